#include "compactionprompt.h"

#include <QCheckBox>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace Gui {

CompactionPrompt *CompactionPrompt::ask(quint64 proposalId,
                                        const AgentLoop::CompactionPreview &preview,
                                        QWidget *parent)
{
    auto *box = new QMessageBox(parent);
    auto *prompt = new CompactionPrompt(proposalId, preview, box);
    box->open();
    return prompt;
}

QString CompactionPrompt::description(const AgentLoop::CompactionPreview &preview)
{
    const QLocale locale;
    QStringList lines;
    // Two sources rather than %n: English has no catalogue to pick a plural form from.
    const qsizetype summarised = preview.summarizedMessages;
    if (summarised == 1)
        lines << tr("• 1 earlier message summarised by one extra request to the model");
    else if (summarised > 1)
        lines << tr("• %1 earlier messages summarised by one extra request to the model")
                         .arg(locale.toString(summarised));
    const qsizetype stubbed = preview.stubbedOutputs;
    if (stubbed == 1)
        lines << tr("• 1 long tool output replaced by a short stub (the whole output stays on "
                    "disk)");
    else if (stubbed > 1)
        lines << tr("• %1 long tool outputs replaced by short stubs (the whole outputs stay on "
                    "disk)")
                         .arg(locale.toString(stubbed));
    lines << tr("• The request goes from about %1 to about %2 tokens")
                     .arg(locale.toString(preview.tokensBefore),
                          locale.toString(preview.tokensAfter));
    return lines.join(u'\n');
}

CompactionPrompt::CompactionPrompt(quint64 proposalId,
                                   const AgentLoop::CompactionPreview &preview,
                                   QMessageBox *box)
    : QObject(box)
    , m_proposalId(proposalId)
    , m_box(box)
{
    box->setObjectName(u"compactionPrompt"_s);
    box->setWindowTitle(tr("Compact the conversation?"));
    box->setAccessibleName(tr("Compact the conversation"));
    box->setIcon(QMessageBox::Question);
    // Figures only, nothing the model wrote; plain text all the same.
    box->setTextFormat(Qt::PlainText);
    box->setText(tr("The next request would fill most of the model's context window. Before it "
                    "is sent, the conversation can be compacted:")
                 + u"\n\n"_s + description(preview));
    box->setInformativeText(tr("The conversation file keeps every message as it was, and Undo "
                               "compaction sends them in full again. Send without compacting, "
                               "Esc or closing this box sends the request as it is."));
    m_compact = box->addButton(tr("&Compact"), QMessageBox::AcceptRole);
    m_compact->setObjectName(u"compactionCompact"_s);
    m_send = box->addButton(tr("&Send without compacting"), QMessageBox::RejectRole);
    m_send->setObjectName(u"compactionSend"_s);
    box->setDefaultButton(m_compact);
    box->setEscapeButton(m_send);
    m_dontAsk = new QCheckBox(tr("&Don't ask again"), box);
    m_dontAsk->setObjectName(u"compactionDontAsk"_s);
    m_dontAsk->setToolTip(tr("Compact automatically from now on, without this question "
                             "(Settings › Context turns it back on)"));
    box->setCheckBox(m_dontAsk);

    connect(box, &QMessageBox::finished, this, [this] {
        decide(m_box && m_box->clickedButton() == m_compact);
        if (m_box)
            m_box->deleteLater();
    });
}

CompactionPrompt::~CompactionPrompt()
{
    decide(false);
}

void CompactionPrompt::decide(bool compact)
{
    if (std::exchange(m_decided, true))
        return;
    emit decided(m_proposalId, compact, m_dontAsk && m_dontAsk->isChecked());
}

} // namespace Gui
