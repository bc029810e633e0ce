#include "permissions/workspacerules.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// The key of a rules file in the trust file: its absolute, clean path.
QString trustKey(const QString &path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString contentHash(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLatin1(
            QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex());
}

QJsonObject readTrust()
{
    QFile file(trustedRuleFilePath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

Result<void> recordTrust(const QString &rulesPath)
{
    QJsonObject trust = readTrust();
    trust.insert(trustKey(rulesPath), contentHash(rulesPath));
    const QString path = trustedRuleFilePath();
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(QJsonDocument(trust).toJson(QJsonDocument::Indented)) < 0 || !file.commit())
        return Error{Error::Io,
                     QCoreApplication::translate("WorkspaceRules",
                                                 "Could not record the trusted rules in %1: %2")
                             .arg(QDir::toNativeSeparators(path), file.errorString()),
                     QCoreApplication::translate(
                             "WorkspaceRules", "Check that the folder exists and can be written.")};
    return {};
}

} // namespace

QString trustedRuleFilePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + u"/trusted-workspace-rules.json"_s;
}

WorkspaceRules loadWorkspaceRules(const QString &workspace)
{
    WorkspaceRules loaded;
    loaded.path = workspaceRuleFilePath(workspace);
    Result<QList<PermissionRule>> read = readRuleFile(loaded.path, RuleOrigin::Workspace);
    if (!read) {
        loaded.error = read.error();
        return loaded;
    }
    const bool trusted = !QFileInfo::exists(loaded.path)
                         || readTrust().value(trustKey(loaded.path)).toString()
                                    == contentHash(loaded.path);
    for (const PermissionRule &rule : *read) {
        if (rule.effect == RuleEffect::Allow && !trusted)
            loaded.ignoredAllowRules.append(rule.text);
        else
            loaded.rules.append(rule);
    }
    return loaded;
}

Result<void> saveWorkspaceRules(const QString &workspace, const QList<PermissionRule> &rules)
{
    const QString path = workspaceRuleFilePath(workspace);
    if (Result<void> written = writeRuleFile(path, rules); !written)
        return written;
    return recordTrust(path);
}

Result<void> trustWorkspaceRules(const QString &workspace)
{
    return recordTrust(workspaceRuleFilePath(workspace));
}

} // namespace AgentLoop
