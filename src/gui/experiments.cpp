#include "experiments.h"

#include "agent/agentsession.h"
#include "chat/runfeed.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::Experiment;

namespace Gui {

namespace {

QLabel *wrappedLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    return label;
}

} // namespace

ExperimentsDialog::ExperimentsDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(u"experimentsDialog"_s);
    setWindowTitle(tr("Experiments"));
    auto *intro = wrappedLabel(tr("Each runs in a fresh conversation on the built-in scripted "
                                  "model: nothing goes to your provider, and your settings stay "
                                  "as they are. Watch the chat and the inspector."),
                               this);

    auto *list = new QWidget(this);
    auto *grid = new QGridLayout(list);
    int row = 0;
    Experiment::Kind shownKind = Experiment::SelfTest;
    bool first = true;
    const QList<Experiment> experiments = AgentLoop::courseExperiments();
    for (const Experiment &experiment : experiments) {
        if (first || experiment.kind != shownKind) {
            shownKind = experiment.kind;
            first = false;
            auto *heading = new QLabel(shownKind == Experiment::CourseExperiment
                                               ? tr("Experiments from the course")
                                               : tr("Self-test questions"),
                                       list);
            QFont bold = heading->font();
            bold.setBold(true);
            heading->setFont(bold);
            grid->addWidget(heading, row++, 0, 1, 2);
        }
        auto *title = new QLabel(experiment.title, list);
        title->setTextFormat(Qt::PlainText);
        QFont titleFont = title->font();
        titleFont.setBold(true);
        title->setFont(titleFont);
        auto *text = new QWidget(list);
        auto *textLayout = new QVBoxLayout(text);
        textLayout->setContentsMargins(0, 0, 0, 0);
        textLayout->setSpacing(2);
        textLayout->addWidget(title);
        if (!experiment.question.isEmpty())
            textLayout->addWidget(wrappedLabel(experiment.question, text));
        QLabel *lookAt = wrappedLabel(tr("What to look at: %1").arg(experiment.lookAt), text);
        lookAt->setForegroundRole(QPalette::PlaceholderText);
        textLayout->addWidget(lookAt);

        auto *button = new QPushButton(tr("Run"), list);
        button->setObjectName(u"runExperiment%1"_s.arg(int(experiment.id)));
        button->setAccessibleName(tr("Run %1").arg(experiment.title));
        button->setToolTip(tr("Start “%1” in a fresh conversation").arg(experiment.title));
        button->setAutoDefault(false);
        connect(button, &QPushButton::clicked, this, [this, id = experiment.id] {
            emit runRequested(id);
        });
        m_buttons.append({experiment.id, button});
        grid->addWidget(text, row, 0);
        grid->addWidget(button, row, 1, Qt::AlignTop);
        ++row;
    }
    grid->setColumnStretch(0, 1);

    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(list);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    resize(620, 640);
}

QPushButton *ExperimentsDialog::runButton(Experiment::Id id) const
{
    for (const auto &[experiment, button] : m_buttons) {
        if (experiment == id)
            return button;
    }
    return nullptr;
}

void ExperimentsDialog::setRunnable(bool runnable)
{
    for (const auto &entry : std::as_const(m_buttons))
        entry.second->setEnabled(runnable);
}

Experiments::Experiments(AgentLoop::AgentSession &session, RunFeed *feed, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_feed(feed)
    , m_window(window)
    , m_action(new QAction(tr("&Experiments…"), this))
{
    m_action->setObjectName(u"experimentsAction"_s);
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X));
    m_action->setStatusTip(tr("Run the course's experiments and self-test cases on the built-in "
                              "scripted model"));
    connect(m_action, &QAction::triggered, this, &Experiments::openDialog);
    connect(&session.controller(),
            &AgentLoop::AgentController::stateChanged,
            this,
            &Experiments::updateRunnable);
}

void Experiments::openDialog()
{
    if (m_dialog) {
        m_dialog->raise();
        m_dialog->activateWindow();
        return;
    }
    auto *dialog = new ExperimentsDialog(m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = dialog;
    connect(dialog, &ExperimentsDialog::runRequested, this, [this](Experiment::Id id) {
        if (run(id) && m_dialog)
            m_dialog->close(); // the chat shows the run
    });
    updateRunnable();
    dialog->show();
}

bool Experiments::run(Experiment::Id id)
{
    if (m_session.controller().isRunning())
        return false;
    const Experiment experiment = AgentLoop::courseExperiment(id);
    m_feed->newConversation(); // the conversation before is saved already
    ChatItem intro;
    intro.kind = ChatItem::Notice;
    intro.text = tr("Experiment “%1”: %2").arg(experiment.title, experiment.lookAt);
    QList<ChatItem> items{intro};
    QHash<QString, QString> toolNames;
    for (const AgentLoop::Message &message : experiment.seed.messages()) {
        for (const AgentLoop::ToolCall &call : message.toolCalls())
            toolNames.insert(call.id, call.name);
        items.append(chatItemsFor(message, 0, toolNames));
    }
    m_feed->chatModel()->append(std::move(items));
    return m_session.runExperiment(experiment);
}

void Experiments::updateRunnable()
{
    if (m_dialog)
        m_dialog->setRunnable(!m_session.controller().isRunning());
}

} // namespace Gui
