// libFuzzer target: a command line as a prompt-injected model may write it, split in each shell's
// syntax and judged by permission rules. Whatever it is, nothing may crash or hang, every simple
// command must say of each word whether it is literal, and a rule offered by "Always allow…" must
// allow the very call it is offered for, and a call these rules allow runs only programs named
// without a folder, as the rules name them (a repository's ./git or tools\git.exe is not `git`),
// and never with an option that makes the program write or run something (`git diff --output`,
// `npm run test --script-shell`), which no rule with a wildcard covers (properties checked here,
// so the fuzzer stops on a violation).
#include "permissions/permissionrules.h"
#include "tools/shellsyntax.h"

#include <cstdlib>

using namespace AgentLoop;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const PermissionPolicy
            policy({{QStringLiteral("shell(git status)"), RuleEffect::Allow, RuleOrigin::App},
                    {QStringLiteral("shell(npm run test:*)"), RuleEffect::Allow, RuleOrigin::App},
                    {QStringLiteral("shell(echo *)"), RuleEffect::Allow, RuleOrigin::App},
                    {QStringLiteral("shell(git diff:*)"), RuleEffect::Allow, RuleOrigin::App},
                    {QStringLiteral("shell(sort:*)"), RuleEffect::Allow, RuleOrigin::App},
                    {QStringLiteral("shell(rm:*)"), RuleEffect::Deny, RuleOrigin::App}},
                   PermissionOptions(),
                   nullptr);
    const QString command = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    for (const ShellSyntax syntax :
         {ShellSyntax::Posix, ShellSyntax::PowerShell, ShellSyntax::Cmd}) {
        const ShellParse parse = parseShellCommand(command, syntax);
        for (const SimpleCommand &simple : parse.commands) {
            if (simple.literal.size() != simple.words.size())
                std::abort();
        }
        RuleCall call;
        call.tool = QStringLiteral("shell");
        call.sideEffect = SideEffect::Execute;
        call.subject = RuleSubject{RuleSubject::Command, command, syntax};
        if (policy.check(call).verdict == Verdict::Allow) {
            for (const SimpleCommand &simple : parse.commands) {
                qsizetype program = 0;
                if (syntax == ShellSyntax::PowerShell && !simple.words.isEmpty()
                    && simple.words.first() == QStringLiteral("&"))
                    program = 1;
                if (program < simple.words.size()
                    && (simple.words.at(program).contains(QLatin1Char('/'))
                        || simple.words.at(program).contains(QLatin1Char('\\'))))
                    std::abort();
                if (program < simple.words.size()
                    && !writeOrRunOption(simple.words.at(program).toLower(),
                                         simple.words.mid(program + 1))
                                .isEmpty())
                    std::abort();
            }
        }
        const QStringList suggested = policy.suggestedRules(call);
        if (suggested.isEmpty())
            continue;
        QList<PermissionRule> rules;
        for (const QString &rule : suggested)
            rules.append({rule, RuleEffect::Allow, RuleOrigin::App});
        if (policy.withRules(rules).check(call).verdict != Verdict::Allow)
            std::abort();
    }
    return 0;
}
