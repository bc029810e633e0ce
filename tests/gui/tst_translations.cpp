// The zh_CN catalogue reaches every screen: each of its contexts is the name tr() looks up at run
// time (a QObject's class name with its namespace), and the embedded catalogue answers every
// message of the .ts file. A context without its namespace ("ChatModel" for Gui::ChatModel)
// would leave that whole class in English.

#include "agent/agentcontroller.h"
#include "agent/agentsession.h"
#include "agentstatusbar.h"
#include "approvalprompt.h"
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/promptbar.h"
#include "chat/runfeed.h"
#include "conversations/conversationactions.h"
#include "conversations/conversationlistmodel.h"
#include "conversations/conversationpanel.h"
#include "inspector/inspector.h"
#include "inspector/jsontreemodel.h"
#include "inspector/turnmodel.h"
#include "mainwindow.h"
#include "mcpelicitationdialog.h"
#include "mcpservers.h"
#include "mcptrustprompt.h"
#include "settings/mcpimportdialog.h"
#include "settings/mcppage.h"
#include "settings/mcpserverdialog.h"
#include "settings/settingsdialog.h"
#include "storage/keystore.h"
#include "testmain.h"

#include <QFile>
#include <QSet>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace Qt::StringLiterals;

namespace {

struct CatalogueMessage
{
    QString context;
    QString source;
    QString comment;
    bool numerus = false;
};

QList<CatalogueMessage> readCatalogue(const QString &path)
{
    QList<CatalogueMessage> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return messages;
    QXmlStreamReader xml(&file);
    QString context;
    while (xml.readNextStartElement() || !xml.atEnd()) {
        if (!xml.isStartElement())
            continue;
        if (xml.name() == u"name") {
            context = xml.readElementText();
        } else if (xml.name() == u"message") {
            CatalogueMessage message{context,
                                     {},
                                     {},
                                     xml.attributes().value(u"numerus"_s) == u"yes"};
            while (xml.readNextStartElement()) {
                if (xml.name() == u"source")
                    message.source = xml.readElementText();
                else if (xml.name() == u"comment")
                    message.comment = xml.readElementText();
                else
                    xml.skipCurrentElement();
            }
            messages.append(message);
        }
    }
    return messages;
}

// Every class of the app and the core whose strings are translated.
QList<const QMetaObject *> translatedClasses()
{
    return {&AgentLoop::AgentController::staticMetaObject,
            &AgentLoop::AgentSession::staticMetaObject,
            &AgentLoop::KeyStore::staticMetaObject,
            &Gui::AgentStatusBar::staticMetaObject,
            &Gui::ApprovalPrompt::staticMetaObject,
            &Gui::ChatDelegate::staticMetaObject,
            &Gui::ChatModel::staticMetaObject,
            &Gui::ChatView::staticMetaObject,
            &Gui::ConversationActions::staticMetaObject,
            &Gui::ConversationListModel::staticMetaObject,
            &Gui::ConversationPanel::staticMetaObject,
            &Gui::Inspector::staticMetaObject,
            &Gui::JsonTreeModel::staticMetaObject,
            &Gui::MainWindow::staticMetaObject,
            &Gui::McpElicitationDialog::staticMetaObject,
            &Gui::McpImportDialog::staticMetaObject,
            &Gui::McpServerDialog::staticMetaObject,
            &Gui::McpServers::staticMetaObject,
            &Gui::McpServersPage::staticMetaObject,
            &Gui::McpTrustPrompt::staticMetaObject,
            &Gui::PromptBar::staticMetaObject,
            &Gui::RunFeed::staticMetaObject,
            &Gui::SettingsDialog::staticMetaObject,
            &Gui::TurnModel::staticMetaObject};
}

} // namespace

class tst_Translations : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void contextsAreTheRunTimeClassNames();
    void embeddedCatalogueAnswersEveryMessage();

private:
    QList<CatalogueMessage> m_messages;
};

void tst_Translations::initTestCase()
{
    m_messages = readCatalogue(QStringLiteral(AGENTLOOP_ZH_CN_TS));
    QVERIFY2(m_messages.size() > 300, qPrintable(QString::number(m_messages.size())));
}

void tst_Translations::contextsAreTheRunTimeClassNames()
{
    QSet<QString> contexts;
    for (const CatalogueMessage &message : std::as_const(m_messages))
        contexts.insert(message.context);
    for (const QMetaObject *meta : translatedClasses()) {
        const QString className = QString::fromLatin1(meta->className());
        const QString unqualified = className.section(u"::"_s, -1);
        QVERIFY2(contexts.contains(className),
                 qPrintable(u"no strings under %1 in the catalogue"_s.arg(className)));
        // A form's strings are translated under the form's own name (uic's retranslateUi()).
        const bool isForm = unqualified == u"SettingsDialog"; // ui/settingsdialog.ui
        QVERIFY2(isForm || !contexts.contains(unqualified),
                 qPrintable(u"context %1 should be %2: tr() looks up %2"_s.arg(unqualified,
                                                                               className)));
    }
}

void tst_Translations::embeddedCatalogueAnswersEveryMessage()
{
    QTranslator translator;
    QVERIFY(translator.load(u":/i18n/agentloop_zh_CN.qm"_s));
    QStringList untranslated;
    for (const CatalogueMessage &message : std::as_const(m_messages)) {
        const QByteArray context = message.context.toUtf8();
        const QByteArray source = message.source.toUtf8();
        const QByteArray comment = message.comment.toUtf8();
        const QString translated = translator.translate(context.constData(),
                                                        source.constData(),
                                                        comment.isEmpty() ? nullptr
                                                                          : comment.constData(),
                                                        message.numerus ? 2 : -1);
        if (translated.isEmpty())
            untranslated.append(message.context + u": "_s + message.source);
    }
    QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(u'\n')));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_Translations)
#include "tst_translations.moc"
