#include "permissions/workspacerules.h"

#include "files/workspace.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSet>
#include <QStandardPaths>

#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr qint64 ruleFileLimit = 1024 * 1024; // a rules file is a few hundred bytes
const QString acceptedKey = u"acceptedAllowRules"_s;

struct WorkspaceRulesText
{
    Q_DECLARE_TR_FUNCTIONS(WorkspaceRules)
};

// The key of a rules file in the trust file: its absolute, clean path.
QString trustKey(const QString &path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString ruleHash(const QString &ruleText)
{
    return QString::fromLatin1(
            QCryptographicHash::hash(ruleText.toUtf8(), QCryptographicHash::Sha256).toHex());
}

QJsonObject readTrust()
{
    QFile file(trustedRuleFilePath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

Result<void> recordAccepted(const QString &rulesPath, const QSet<QString> &hashes)
{
    QJsonObject trust = readTrust();
    QStringList sorted(hashes.cbegin(), hashes.cend());
    sorted.sort();
    trust.insert(trustKey(rulesPath),
                 QJsonObject{{acceptedKey, QJsonArray::fromStringList(sorted)}});
    const QString path = trustedRuleFilePath();
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(QJsonDocument(trust).toJson(QJsonDocument::Indented)) < 0 || !file.commit())
        return Error{Error::Io,
                     WorkspaceRulesText::tr("Could not record the trusted rules in %1: %2")
                             .arg(QDir::toNativeSeparators(path), file.errorString()),
                     WorkspaceRulesText::tr("Check that the folder exists and can be written.")};
    return {};
}

// The hashes of the allow rules of `rules`; only of those whose text is in texts, when given.
QSet<QString> allowHashes(const QList<PermissionRule> &rules,
                          const std::optional<QStringList> &texts = std::nullopt)
{
    QSet<QString> hashes;
    for (const PermissionRule &rule : rules) {
        if (rule.effect == RuleEffect::Allow && (!texts || texts->contains(rule.text)))
            hashes.insert(ruleHash(rule.text));
    }
    return hashes;
}

// A workspace's rules file as read: its bytes, for an old record's whole-file hash, and its rules.
struct RuleFile
{
    QByteArray bytes;
    QList<PermissionRule> rules;
};

// The file's bytes and rules, through the boundary.
Result<RuleFile> readWorkspaceRules(const QString &workspace)
{
    const QString path = workspaceRuleFilePath(workspace);
    const WorkspaceFileRead read = readWorkspaceFile(WorkspaceBoundary(workspace),
                                                     u".agentloop/permissions.json"_s,
                                                     ruleFileLimit);
    switch (read.outcome) {
    case WorkspaceFileRead::Missing:
        return RuleFile{};
    case WorkspaceFileRead::Refused:
        return Error{
                Error::Io,
                WorkspaceRulesText::tr("The rules file %1 is not read: %2")
                        .arg(QDir::toNativeSeparators(path), read.refusal.detail),
                WorkspaceRulesText::tr(
                        "A workspace's rules file must be a regular file inside the workspace. "
                        "Until it is, every tool call is denied.")};
    case WorkspaceFileRead::Read:
        break;
    }
    if (!read.complete)
        return Error{Error::Io,
                     WorkspaceRulesText::tr(
                             "The rules file %1 is larger than 1 MB: it is not read.")
                             .arg(QDir::toNativeSeparators(path)),
                     WorkspaceRulesText::tr("Until it is fixed, every tool call is denied.")};
    Result<QList<PermissionRule>> parsed = parseRuleFile(read.bytes, RuleOrigin::Workspace);
    if (!parsed)
        return Error{Error::Io,
                     WorkspaceRulesText::tr("The rules file %1: %2")
                             .arg(QDir::toNativeSeparators(path), parsed.error().message),
                     parsed.error().hint};
    return RuleFile{read.bytes, std::move(parsed).value()};
}

// The hashes of the allow rules the user accepted for the file at path, of those in it.
QSet<QString> acceptedHashes(const QString &path, const RuleFile &file)
{
    const QJsonValue record = readTrust().value(trustKey(path));
    if (record.isString()) {
        // Recorded by an older version: the whole file's hash. While the file is still exactly
        // that, every allow rule in it was seen and trusted.
        const QString hash = QString::fromLatin1(
                QCryptographicHash::hash(file.bytes, QCryptographicHash::Sha256).toHex());
        return hash == record.toString() ? allowHashes(file.rules) : QSet<QString>();
    }
    QSet<QString> hashes;
    for (const QJsonValue &hash : record.toObject().value(acceptedKey).toArray())
        hashes.insert(hash.toString());
    return hashes & allowHashes(file.rules);
}

} // namespace

QStringList WorkspaceRules::trustedAllowRules() const
{
    QStringList texts;
    for (const PermissionRule &rule : rules) {
        if (rule.effect == RuleEffect::Allow)
            texts.append(rule.text);
    }
    return texts;
}

QString trustedRuleFilePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + u"/trusted-workspace-rules.json"_s;
}

Result<QList<PermissionRule>> readWorkspaceRuleFile(const QString &workspace)
{
    Result<RuleFile> read = readWorkspaceRules(workspace);
    if (!read)
        return read.error();
    return std::move(read).value().rules;
}

WorkspaceRules loadWorkspaceRules(const QString &workspace)
{
    WorkspaceRules loaded;
    loaded.path = workspaceRuleFilePath(workspace);
    const Result<RuleFile> read = readWorkspaceRules(workspace);
    if (!read) {
        loaded.error = read.error();
        return loaded;
    }
    const QSet<QString> accepted = acceptedHashes(loaded.path, *read);
    for (const PermissionRule &rule : read->rules) {
        if (rule.effect == RuleEffect::Allow && !accepted.contains(ruleHash(rule.text)))
            loaded.ignoredAllowRules.append(rule.text);
        else
            loaded.rules.append(rule);
    }
    return loaded;
}

Result<void> saveWorkspaceRules(const QString &workspace,
                                const QList<PermissionRule> &rules,
                                const QStringList &acceptedAllowRules)
{
    const QString path = workspaceRuleFilePath(workspace);
    if (Result<void> written = writeRuleFile(path, rules); !written)
        return written;
    return recordAccepted(path, allowHashes(rules, acceptedAllowRules));
}

Result<void> trustWorkspaceRules(const QString &workspace, const QStringList &allowRules)
{
    const Result<RuleFile> read = readWorkspaceRules(workspace);
    if (!read)
        return read.error();
    const QString path = workspaceRuleFilePath(workspace);
    // Only rules still in the file: one removed and planted again later is asked about again.
    QSet<QString> accepted = acceptedHashes(path, *read);
    accepted.unite(allowHashes(read->rules, allowRules));
    return recordAccepted(path, accepted);
}

} // namespace AgentLoop
