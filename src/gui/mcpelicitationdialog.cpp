#include "mcpelicitationdialog.h"

#include "base/redaction.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QIntValidator>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// The server's words are bounded: a message, a field's title and its description.
constexpr qsizetype messageLength = 4000;
constexpr qsizetype titleLength = 200;
constexpr qsizetype descriptionLength = 1000;
// A form bigger than this is not the kind a person fills in.
constexpr int maximumFields = 50;

const char kindProperty[] = "mcpFieldKind";

enum class Kind { Text, Choice, Number, Integer, Boolean };

// A choice's values and what the user reads for each: enum with enumNames, or oneOf/anyOf of
// {const, title}.
QList<std::pair<QJsonValue, QString>> choicesOf(const QJsonObject &schema)
{
    QList<std::pair<QJsonValue, QString>> choices;
    const QJsonArray values = schema.value(u"enum"_s).toArray();
    const QJsonArray names = schema.value(u"enumNames"_s).toArray();
    for (qsizetype i = 0; i < values.size(); ++i) {
        const QJsonValue value = values.at(i);
        const QString name = i < names.size() && names.at(i).isString()
                                     ? names.at(i).toString()
                                     : value.toVariant().toString();
        choices.append({value, name});
    }
    for (const char *key : {"oneOf", "anyOf"}) {
        for (const QJsonValue &option : schema.value(QLatin1String(key)).toArray()) {
            const QJsonObject object = option.toObject();
            if (!object.contains(u"const"_s))
                continue;
            const QJsonValue value = object.value(u"const"_s);
            choices.append({value, object.value(u"title"_s).toString(value.toVariant().toString())});
        }
    }
    return choices;
}

} // namespace

McpElicitationDialog::McpElicitationDialog(const AgentLoop::McpElicitation &request, QWidget *parent)
    : QDialog(parent)
    , m_request(request)
    , m_form(new QFormLayout)
    , m_message(new QLabel(this))
    , m_error(new QLabel(this))
    , m_accept(new QPushButton(tr("&Accept"), this))
    , m_decline(new QPushButton(tr("&Decline"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    setObjectName(u"mcpElicitationDialog"_s);
    const QString server = AgentLoop::displayedLine(request.serverName, titleLength);
    setWindowTitle(tr("%1 asks for information").arg(server));
    setMinimumWidth(fontMetrics().averageCharWidth() * 64);

    auto *heading = new QLabel(tr("The MCP server “%1” asks:").arg(server), this);
    heading->setObjectName(u"mcpElicitationServer"_s);
    heading->setTextFormat(Qt::PlainText);
    heading->setWordWrap(true);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    m_message->setObjectName(u"mcpElicitationMessage"_s);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setText(shownText(request.message, messageLength).text);
    auto *note = newNoteLabel(tr("What you enter goes to this server only. Decline or Cancel "
                                 "sends nothing."),
                              this);
    m_error->setObjectName(u"mcpElicitationError"_s);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    QPalette errorPalette = m_error->palette();
    errorPalette.setColor(QPalette::WindowText,
                          errorPalette.color(QPalette::Window).lightness() < 128
                                  ? QColor(0xff, 0x8a, 0x80)
                                  : QColor(0xb3, 0x26, 0x1e));
    m_error->setPalette(errorPalette);
    m_error->hide();

    const QJsonObject schema = request.requestedSchema;
    const QJsonObject properties = schema.value(u"properties"_s).toObject();
    for (const QJsonValue &name : schema.value(u"required"_s).toArray())
        m_required << name.toString();
    int added = 0;
    for (auto it = properties.constBegin(); it != properties.constEnd() && added < maximumFields;
         ++it, ++added)
        addField(it.key(), it.value().toObject(), m_required.contains(it.key()));

    auto *formWidget = new QWidget(this);
    formWidget->setLayout(m_form);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(formWidget);
    scroll->setVisible(!m_order.isEmpty());

    m_accept->setObjectName(u"mcpElicitationAccept"_s);
    m_decline->setObjectName(u"mcpElicitationDecline"_s);
    m_cancel->setObjectName(u"mcpElicitationCancel"_s);
    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_accept, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_decline, QDialogButtonBox::DestructiveRole);
    buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);
    m_cancel->setDefault(false);
    m_accept->setAutoDefault(false);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(m_message);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_error);
    layout->addWidget(note);
    layout->addWidget(buttons);

    connect(m_accept, &QPushButton::clicked, this, [this] {
        const auto entered = content();
        if (!entered) {
            m_error->setText(entered.error().message);
            m_error->show();
            return;
        }
        answer(u"accept"_s, *entered);
    });
    connect(m_decline, &QPushButton::clicked, this, [this] { answer(u"decline"_s); });
    connect(m_cancel, &QPushButton::clicked, this, &McpElicitationDialog::reject);
}

McpElicitationDialog::~McpElicitationDialog()
{
    // Destroyed unanswered (the window closed): fail closed.
    if (!m_answered) {
        m_answered = true;
        emit answered(m_request.id, u"cancel"_s, {});
    }
}

void McpElicitationDialog::addField(const QString &property,
                                    const QJsonObject &schema,
                                    bool required)
{
    const QString type = schema.value(u"type"_s).toString();
    const QJsonValue fallback = schema.value(u"default"_s);
    const QList<std::pair<QJsonValue, QString>> choices = choicesOf(schema);
    QWidget *field = nullptr;
    Kind kind = Kind::Text;
    if (!choices.isEmpty()) {
        kind = Kind::Choice;
        auto *combo = new QComboBox(this);
        if (!required)
            combo->addItem(tr("(none)"));
        for (const auto &[value, name] : choices)
            combo->addItem(AgentLoop::displayedLine(name, titleLength), value.toVariant());
        if (!fallback.isUndefined()) {
            const int index = combo->findData(fallback.toVariant());
            if (index >= 0)
                combo->setCurrentIndex(index);
        }
        field = combo;
    } else if (type == u"boolean") {
        kind = Kind::Boolean;
        auto *check = new QCheckBox(this);
        check->setChecked(fallback.toBool(false));
        field = check;
    } else if (type == u"number" || type == u"integer") {
        kind = type == u"integer" ? Kind::Integer : Kind::Number;
        auto *edit = new QLineEdit(this);
        if (kind == Kind::Integer)
            edit->setValidator(new QIntValidator(edit));
        if (fallback.isDouble())
            edit->setText(QString::number(fallback.toDouble(), 'g', 17));
        QStringList range;
        if (schema.contains(u"minimum"_s))
            range << tr("at least %1").arg(schema.value(u"minimum"_s).toDouble());
        if (schema.contains(u"maximum"_s))
            range << tr("at most %1").arg(schema.value(u"maximum"_s).toDouble());
        edit->setPlaceholderText(range.join(u", "_s));
        field = edit;
    } else {
        auto *edit = new QLineEdit(this);
        if (fallback.isString())
            edit->setText(fallback.toString());
        if (const int maximum = schema.value(u"maxLength"_s).toInt(0); maximum > 0)
            edit->setMaxLength(maximum);
        const QString format = schema.value(u"format"_s).toString();
        if (format == u"email")
            edit->setPlaceholderText(u"name@example.com"_s);
        else if (format == u"uri")
            edit->setPlaceholderText(u"https://…"_s);
        else if (format == u"date")
            edit->setPlaceholderText(u"2026-12-31"_s);
        field = edit;
    }
    field->setObjectName(u"mcpField_"_s + property);
    field->setProperty(kindProperty, int(kind));
    const QString title = AgentLoop::displayedLine(schema.value(u"title"_s).toString(property),
                                                   titleLength);
    //: A required field of an MCP server's form
    const QString label = required ? tr("%1 (required):").arg(title) : tr("%1:").arg(title);
    field->setAccessibleName(title);
    const QString description = schema.value(u"description"_s).toString();
    if (!description.isEmpty()) {
        const QString shown = AgentLoop::displayed(description,
                                                   {true, true, false, descriptionLength});
        field->setToolTip(plainToolTip(shown));
        field->setAccessibleDescription(shown);
        auto *column = new QWidget(this);
        auto *columnLayout = new QVBoxLayout(column);
        columnLayout->setContentsMargins(0, 0, 0, 0);
        columnLayout->setSpacing(2);
        columnLayout->addWidget(field);
        columnLayout->addWidget(newNoteLabel(shown, column));
        m_form->addRow(label, column);
    } else {
        m_form->addRow(label, field);
    }
    m_order << property;
    m_fields.insert(property, field);
    m_schemas.insert(property, schema);
}

AgentLoop::Result<QJsonObject> McpElicitationDialog::content() const
{
    QJsonObject content;
    const QLocale c = QLocale::c();
    for (const QString &property : m_order) {
        QWidget *field = m_fields.value(property);
        const QJsonObject schema = m_schemas.value(property);
        const QString title = AgentLoop::displayedLine(schema.value(u"title"_s).toString(property),
                                                       titleLength);
        const bool required = m_required.contains(property);
        const auto missing = [&] {
            return AgentLoop::Error{AgentLoop::Error::Configuration,
                                    tr("Fill in “%1”: the server needs it.").arg(title)};
        };
        switch (Kind(field->property(kindProperty).toInt())) {
        case Kind::Choice: {
            const QVariant value = static_cast<QComboBox *>(field)->currentData();
            if (!value.isValid()) {
                if (required)
                    return missing();
                break;
            }
            content.insert(property, QJsonValue::fromVariant(value));
            break;
        }
        case Kind::Boolean:
            content.insert(property, static_cast<QCheckBox *>(field)->isChecked());
            break;
        case Kind::Number:
        case Kind::Integer: {
            const QString text = static_cast<QLineEdit *>(field)->text().trimmed();
            if (text.isEmpty()) {
                if (required)
                    return missing();
                break;
            }
            bool ok = false;
            double value = c.toDouble(text, &ok);
            if (!ok)
                value = QLocale().toDouble(text, &ok);
            const bool integer = Kind(field->property(kindProperty).toInt()) == Kind::Integer;
            if (!ok || (integer && value != std::floor(value)))
                return AgentLoop::Error{AgentLoop::Error::Configuration,
                                        integer ? tr("“%1” needs a whole number.").arg(title)
                                                : tr("“%1” needs a number.").arg(title)};
            if ((schema.contains(u"minimum"_s) && value < schema.value(u"minimum"_s).toDouble())
                || (schema.contains(u"maximum"_s) && value > schema.value(u"maximum"_s).toDouble()))
                return AgentLoop::Error{AgentLoop::Error::Configuration,
                                        tr("“%1” is out of its range.").arg(title)};
            if (integer)
                content.insert(property, qint64(value));
            else
                content.insert(property, value);
            break;
        }
        case Kind::Text: {
            const QString text = static_cast<QLineEdit *>(field)->text();
            if (text.isEmpty()) {
                if (required)
                    return missing();
                break;
            }
            for (const QString &secret : m_secrets) {
                if (AgentLoop::containsSecret(text.toUtf8(), secret))
                    return AgentLoop::Error{
                            AgentLoop::Error::Configuration,
                            tr("“%1” holds the API key of one of your provider profiles: Agent "
                               "Loop never sends it to an MCP server. If the server needs a key, "
                               "give it one of its own in its configuration.")
                                    .arg(title)};
            }
            if (text.size() < schema.value(u"minLength"_s).toInt(0))
                return AgentLoop::Error{AgentLoop::Error::Configuration,
                                        tr("“%1” needs at least %2 characters.")
                                                .arg(title)
                                                .arg(schema.value(u"minLength"_s).toInt())};
            content.insert(property, text);
            break;
        }
        }
    }
    return content;
}

QString McpElicitationDialog::messageText() const
{
    return m_message->text();
}

QString McpElicitationDialog::errorText() const
{
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

void McpElicitationDialog::reject()
{
    answer(u"cancel"_s);
}

void McpElicitationDialog::answer(const QString &action, const QJsonObject &content)
{
    if (m_answered)
        return;
    m_answered = true;
    emit answered(m_request.id, action, content);
    if (action == u"accept")
        QDialog::accept();
    else
        QDialog::reject();
}

} // namespace Gui
