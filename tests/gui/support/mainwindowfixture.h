#pragma once

#include "chat/chatmodel.h"
#include "fakechatserver.h"
#include "mainwindow.h"
#include "settings/appsettings.h"
#include "storage/keystore.h"

#include <QList>
#include <QSize>
#include <QString>
#include <QTemporaryDir>

#include <memory>
#include <optional>

class QMessageBox;

namespace AgentLoop {

// The desktop app as the GUI tests drive it (after KeePassXC's tests/gui/GuiTestBase): a
// Gui::MainWindow talking to a fake OpenAI server on 127.0.0.1 that requires the fixture's API
// key, with a workspace of its own and a session-only key store, and the helpers a test uses as
// a user would: type a prompt, answer the approval box, wait for the run to end.
//
// Made in two steps, so that a test can first prepare what the window reads when it is made
// (saved conversations, settings, a scripted command runner): the constructor makes everything
// but the window and fills in settings and windowOptions; openWindow() makes the window from them
// and shows it.
class MainWindowFixture
{
public:
    // What the constructor makes differently for some tests.
    struct Options
    {
        // The key the fake provider requires and the window is configured with.
        QString apiKey = QStringLiteral("sk-gui-test-secret-4f9a2c7e1b");
        // The workspace: this existing folder, or (empty) a temporary one named after
        // workspaceTemplate (empty: QTemporaryDir's default name).
        QString workspace;
        QString workspaceTemplate;
        // Conversations are saved in <workspace>/conversations and long outputs kept in
        // <workspace>/outputs; otherwise the window uses the app's default folders.
        bool savesInWorkspace = false;
        // The window's size when it opens; empty: the size it gives itself.
        QSize windowSize;
    };

    MainWindowFixture();
    explicit MainWindowFixture(const Options &options);
    MainWindowFixture(const MainWindowFixture &) = delete;
    MainWindowFixture &operator=(const MainWindowFixture &) = delete;

    // Makes the window from settings and windowOptions, shows it and makes it the active window,
    // and waits until it lists the saved conversations.
    void openWindow();
    // True once the window has the keyboard focus, as the user's window has.
    bool waitForWindowActive();
    // True once the window is on screen.
    bool waitForWindowExposed();

    // Types prompt into the prompt box, key by key, and presses Enter, as a user would.
    void type(const QString &prompt);
    // Puts prompt into the prompt box at once, as a paste does (line breaks stay in the prompt),
    // and presses Enter.
    void sendPasted(const QString &prompt);

    // The approval box once it is on screen (within 10 s), or null.
    QMessageBox *waitForApproval();
    // Clicks Allow in the open approval box once it wakes (it waits a moment after opening, so
    // that a key meant for the prompt cannot allow a call); false when there is no box or Allow
    // never woke.
    bool allowPendingCall();
    // True once the status bar says "Finished"; otherwise logs what it says instead.
    bool waitUntilFinished(int timeoutMs = 10000);
    // Opens a saved conversation as the list does, and waits for it (waitUntilOpened()).
    bool openConversation(const QString &id);
    // True once the conversation with this id is the window's and every message of it is in the
    // chat (it is read on another thread, and shown from its end); otherwise logs what the window
    // shows instead.
    bool waitUntilOpened(const QString &id, int timeoutMs = 60000);

    Gui::ChatModel *chat() const;
    // The chat's items of one kind, and their rows, in order.
    QList<Gui::ChatItem> items(Gui::ChatItem::Kind kind) const;
    QList<int> rows(Gui::ChatItem::Kind kind) const;
    // A file in the workspace.
    QString inWorkspace(const QString &name) const;

    const QString apiKey;
    FakeChatServer server;
    AgentLoop::KeyStore keyStore;
    // What openWindow() makes the window with: the fake provider and its key, model "gpt-test",
    // the workspace, 20 turns, a 30 s request timeout; real commands (a ProcessCommandRunner),
    // this key store, nothing saved of the window's layout, and no warning that the app runs
    // elevated (even when the test does).
    Gui::AppSettings settings;
    Gui::MainWindow::Options windowOptions;
    std::unique_ptr<Gui::MainWindow> window;

private:
    std::optional<QTemporaryDir> m_workspace;
    QSize m_windowSize;
};

// The message box on screen, if any.
QMessageBox *visibleMessageBox();
// Closes every message box on screen with its Escape answer: one that a failed test left open
// must not answer for the next.
void rejectVisibleMessageBoxes();

} // namespace AgentLoop
