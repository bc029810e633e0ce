#pragma once

#include "mcp/mcpclient.h"

#include <QDialog>
#include <QHash>
#include <QJsonObject>

class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QPushButton;

namespace Gui {

// A question an MCP server asks the user (elicitation): the server's name, its message (through
// displayText(), bounded), and a form made from its requestedSchema — a line for a string, a
// choice for an enum (oneOf with titles too), a number or a whole number typed and checked, a
// box for a boolean — with the schema's defaults filled in and required fields marked. Accept
// sends what was entered (an empty optional field is left out), once it checks against the
// schema; Decline says no; Cancel, Esc and closing the dialog cancel (fail closed). answered()
// is emitted exactly once, also when the dialog is destroyed unanswered (cancel).
class McpElicitationDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit McpElicitationDialog(const AgentLoop::McpElicitation &request,
                                  QWidget *parent = nullptr);
    ~McpElicitationDialog() override;

    const AgentLoop::McpElicitation &request() const { return m_request; }
    // The field for a property of requestedSchema, or null.
    QWidget *field(const QString &property) const { return m_fields.value(property); }
    QPushButton *acceptButton() const { return m_accept; }
    QPushButton *declineButton() const { return m_decline; }
    QPushButton *cancelButton() const { return m_cancel; }
    QString messageText() const;
    QString errorText() const;

    // What Accept would send, or why it cannot.
    AgentLoop::Result<QJsonObject> content() const;
    // The keys an answer must not hold (every provider profile's): Accept refuses a field that
    // holds one, and says why.
    void setKnownSecrets(const QStringList &secrets) { m_secrets = secrets; }

    void reject() override;

signals:
    // action: "accept" (with content), "decline" or "cancel".
    void answered(quint64 id, const QString &action, const QJsonObject &content);

private:
    void addField(const QString &property, const QJsonObject &schema, bool required);
    void answer(const QString &action, const QJsonObject &content = {});

    AgentLoop::McpElicitation m_request;
    QFormLayout *m_form;
    QLabel *m_message;
    QLabel *m_error;
    QPushButton *m_accept;
    QPushButton *m_decline;
    QPushButton *m_cancel;
    QStringList m_order;
    QHash<QString, QWidget *> m_fields;
    QHash<QString, QJsonObject> m_schemas;
    QStringList m_required;
    QStringList m_secrets;
    bool m_answered = false;
};

} // namespace Gui
