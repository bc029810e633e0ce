#include "tools/shellsyntax.h"

#include <QCoreApplication>

#include <tree_sitter/api.h>

#include <algorithm>
#include <memory>

extern "C" const TSLanguage *tree_sitter_bash();
extern "C" const TSLanguage *tree_sitter_powershell();

namespace AgentLoop {

namespace {

// Deeper nesting than this is not split: the walkers recurse, and no honest command nests so far.
constexpr int maxDepth = 100;
constexpr qsizetype maxCommandBytes = 64 * 1024;

struct Word
{
    QString value;
    bool literal = true;
};

struct ByteRange
{
    uint32_t start = 0;
    uint32_t end = 0;
};

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// What both tree walkers share: the source bytes, node texts, the verdict and the commands found.
class TreeSplitter
{
public:
    TreeSplitter(const QByteArray &source, ShellParse &parse)
        : m_source(source)
        , m_parse(parse)
    {}

protected:
    QString text(TSNode node) const
    {
        const uint32_t start = ts_node_start_byte(node);
        return QString::fromUtf8(m_source.constData() + start, ts_node_end_byte(node) - start);
    }

    QByteArray type(TSNode node) const { return QByteArray(ts_node_type(node)); }

    void doubt(const QString &reason)
    {
        if (m_parse.certain)
            m_parse.uncertainty = reason;
        m_parse.certain = false;
    }

    void doubtConstruct(TSNode node)
    {
        doubt(QCoreApplication::translate(
                      "ShellSyntax",
                      "The command uses shell syntax that is not split into simple commands "
                      "(%1).")
                      .arg(QString::fromLatin1(ts_node_type(node))));
    }

    bool tooDeep(int depth)
    {
        if (depth <= maxDepth)
            return false;
        doubt(QCoreApplication::translate("ShellSyntax",
                                          "The command nests too deeply to be split."));
        return true;
    }

    // Only blanks (and, where statements may end, newlines) may lie between a node's children:
    // anything else is text the grammar skipped, which the shell might not skip.
    bool gapsAreBlank(TSNode node, bool newlinesAllowed, bool continuationsAllowed)
    {
        uint32_t position = ts_node_start_byte(node);
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i <= count; ++i) {
            const uint32_t next = i < count ? ts_node_start_byte(ts_node_child(node, i))
                                            : ts_node_end_byte(node);
            if (!gapIsBlank(position, next, newlinesAllowed, continuationsAllowed)) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax", "The command has text the splitter could not place."));
                return false;
            }
            if (i < count)
                position = qMax(position, ts_node_end_byte(ts_node_child(node, i)));
        }
        return true;
    }

    // Two words the grammar split must have a blank between them, or the shell joins them.
    bool separated(uint32_t previousEnd, uint32_t nextStart)
    {
        if (previousEnd < nextStart && gapIsBlank(previousEnd, nextStart, true, true))
            return true;
        doubt(QCoreApplication::translate(
                "ShellSyntax", "The command has a word the splitter could not delimit."));
        return false;
    }

    // A line continuation joins what is around it (`a\<newline>b` is one word), so it may only
    // sit in a gap that also has a blank.
    bool gapIsBlank(uint32_t from, uint32_t to, bool newlinesAllowed, bool continuationsAllowed) const
    {
        bool blank = false;
        bool continuation = false;
        for (uint32_t at = from; at < to; ++at) {
            const char c = m_source.at(at);
            if (isBlank(c) || (c == '\n' && newlinesAllowed)) {
                blank = true;
            } else if (continuationsAllowed && c == '\\' && at + 1 < to
                       && m_source.at(at + 1) == '\n') {
                continuation = true;
                ++at;
            } else {
                return false;
            }
        }
        return blank || !continuation;
    }

    const QByteArray &m_source;
    ShellParse &m_parse;
};

// ---- sh and bash ----

class PosixSplitter final : TreeSplitter
{
public:
    using TreeSplitter::TreeSplitter;

    void statement(TSNode node, int depth)
    {
        if (tooDeep(depth))
            return;
        const QByteArray kind = type(node);
        if (kind == "comment")
            return;
        if (kind == "command")
            return command(node, {}, depth);
        if (kind == "declaration_command" || kind == "unset_command")
            return declaration(node, depth);
        if (kind == "test_command")
            return testCommand(node, depth);
        if (kind == "redirected_statement")
            return redirected(node, depth);
        if (kind == "program" || kind == "list" || kind == "pipeline" || kind == "subshell"
            || kind == "compound_statement" || kind == "negated_command")
            return sequence(node, depth);
        if (kind == "heredoc_redirect")
            return doubt(
                    QCoreApplication::translate("ShellSyntax", "The command has a here-document."));
        if (kind == "variable_assignment" || kind == "variable_assignments")
            return doubt(QCoreApplication::translate(
                    "ShellSyntax",
                    "The command sets a shell variable that later commands "
                    "see."));
        doubtConstruct(node);
    }

private:
    // lastStart, when given, is set to where the commands of the last statement begin.
    void sequence(TSNode node, int depth, qsizetype *lastStart = nullptr)
    {
        static const QList<QByteArray> separators
                = {"&&", "||", ";", "&", "|", "|&", "(", ")", "{", "}", "!", "\n"};
        if (!gapsAreBlank(node, true, true))
            return;
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            if (lastStart && ts_node_is_named(child))
                *lastStart = m_parse.commands.size();
            if (ts_node_is_named(child))
                statement(child, depth + 1);
            else if (!separators.contains(type(child)))
                doubtConstruct(child);
        }
    }

    void redirected(TSNode node, int depth)
    {
        QList<Redirection> redirections;
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const char *field = ts_node_field_name_for_child(node, i);
            if (field && qstrcmp(field, "body") == 0)
                continue;
            if (!redirect(child, redirections, depth))
                return;
        }
        const TSNode body = ts_node_child_by_field_name(node, "body", 4);
        if (ts_node_is_null(body) || !gapsAreBlank(node, false, true))
            return doubtConstruct(node);
        if (type(body) == "command")
            return command(body, redirections, depth + 1);
        // `(cd x && make) > log`: every command of the body writes there; but the grammar reads
        // `a | b > log` as `(a | b) > log`, where bash redirects b alone.
        qsizetype first = m_parse.commands.size();
        if (type(body) == "pipeline")
            sequence(body, depth + 1, &first);
        else
            statement(body, depth + 1);
        for (qsizetype i = first; i < m_parse.commands.size(); ++i)
            m_parse.commands[i].redirections += redirections;
    }

    void command(TSNode node, const QList<Redirection> &outer, int depth)
    {
        if (!gapsAreBlank(node, false, true))
            return;
        const qsizetype position = m_parse.commands.size();
        SimpleCommand simple;
        simple.text = text(node);
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const QByteArray kind = type(child);
            const bool redirection = kind.endsWith("_redirect");
            if (i > 0 && !redirection && !type(ts_node_child(node, i - 1)).endsWith("_redirect")
                && !separated(ts_node_end_byte(ts_node_child(node, i - 1)),
                              ts_node_start_byte(child)))
                return;
            if (kind == "comment" && i + 1 == count)
                continue;
            if (kind == "variable_assignment" && simple.words.isEmpty()) {
                const Word assignment = word(child, depth);
                simple.assignments.append(assignment.literal ? assignment.value : text(child));
            } else if (redirection) {
                if (!redirect(child, simple.redirections, depth))
                    return;
            } else if (ts_node_is_named(child) && kind != "comment") {
                const Word argument = word(child, depth);
                simple.words.append(argument.value);
                simple.literal.append(argument.literal);
            } else {
                return doubtConstruct(child);
            }
        }
        simple.redirections += outer;
        m_parse.commands.insert(position, simple);
    }

    // `export A=1 B`, `unset X`: a command named by its keyword.
    void declaration(TSNode node, int depth)
    {
        if (!gapsAreBlank(node, false, true))
            return;
        const qsizetype position = m_parse.commands.size();
        SimpleCommand simple;
        simple.text = text(node);
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            if (type(child).endsWith("_redirect"))
                return doubtConstruct(child);
            const Word argument = word(child, depth);
            simple.words.append(argument.value);
            simple.literal.append(argument.literal);
        }
        m_parse.commands.insert(position, simple);
    }

    // `[ -f x ]` is the command `[` and its words; `[[ … ]]` is not split (it evaluates
    // arithmetic, which can run commands).
    void testCommand(TSNode node, int depth)
    {
        if (ts_node_child_count(node) == 0 || type(ts_node_child(node, 0)) != "[")
            return doubtConstruct(node);
        const qsizetype position = m_parse.commands.size();
        SimpleCommand simple;
        simple.text = text(node);
        uint32_t lastEnd = 0;
        testWords(node, simple, lastEnd, depth);
        m_parse.commands.insert(position, simple);
    }

    void testWords(TSNode node, SimpleCommand &simple, uint32_t &lastEnd, int depth)
    {
        static const QList<QByteArray> expressions = {"unary_expression",
                                                      "binary_expression",
                                                      "parenthesized_expression"};
        if (tooDeep(depth) || !gapsAreBlank(node, false, true))
            return;
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const QByteArray kind = type(child);
            if (expressions.contains(kind)) {
                testWords(child, simple, lastEnd, depth + 1);
                continue;
            }
            if (!simple.words.isEmpty() && !separated(lastEnd, ts_node_start_byte(child)))
                return;
            lastEnd = ts_node_end_byte(child);
            const bool bracket = !ts_node_is_named(child) && (kind == "[" || kind == "]");
            const Word argument = kind == "test_operator" || bracket ? Word{text(child), true}
                                                                     : word(child, depth);
            simple.words.append(argument.value);
            simple.literal.append(argument.literal);
        }
    }

    bool redirect(TSNode node, QList<Redirection> &redirections, int depth)
    {
        m_parse.hasRedirection = true;
        const QByteArray kind = type(node);
        if (kind == "heredoc_redirect") {
            doubt(QCoreApplication::translate("ShellSyntax", "The command has a here-document."));
            return false;
        }
        if (kind != "file_redirect" && kind != "herestring_redirect") {
            doubtConstruct(node);
            return false;
        }
        Redirection redirection;
        TSNode destination{};
        int destinations = 0;
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const char *field = ts_node_field_name_for_child(node, i);
            const bool hereString = kind == "herestring_redirect" && ts_node_is_named(child)
                                    && type(child) != "file_descriptor";
            if (hereString || (field && qstrcmp(field, "destination") == 0)) {
                destination = child;
                ++destinations;
            } else if (!ts_node_is_named(child) || type(child) == "file_descriptor") {
                redirection.op += text(child);
            } else {
                doubtConstruct(child);
                return false;
            }
        }
        if (destinations != 1 || !gapsAreBlank(node, false, true)) {
            doubtConstruct(node);
            return false;
        }
        const Word target = word(destination, depth);
        const bool duplication = (redirection.op.endsWith(QLatin1String(">&"))
                                  || redirection.op.endsWith(QLatin1String("<&")))
                                 && target.literal
                                 && (target.value == QLatin1String("-")
                                     || (!target.value.isEmpty()
                                         && target.value.toUInt() == target.value.toULongLong()
                                         && target.value.front().isDigit()));
        if (duplication)
            redirection.op += target.value; // "2>&1", as PowerShell's grammar gives it
        redirection.target = duplication ? QString() : target.value;
        redirection.targetIsLiteral = target.literal;
        const bool output = redirection.op.contains(QLatin1Char('>'));
        static const QStringList devices = {QStringLiteral("/dev/null"),
                                            QStringLiteral("/dev/stdout"),
                                            QStringLiteral("/dev/stderr")};
        redirection.writesFile = output && !duplication
                                 && !(target.literal && devices.contains(target.value));
        redirections.append(redirection);
        return true;
    }

    // A word's value as the shell builds it: the grammar finds the substitutions and expansions
    // inside it, the quoting is undone here from the source text.
    Word word(TSNode node, int depth)
    {
        QList<ByteRange> expansions;
        if (!collectExpansions(node, expansions, depth + 1))
            return {text(node), false};
        WordScanner scanner(m_source, expansions, ts_node_start_byte(node), ts_node_end_byte(node));
        const Word result = scanner.scan();
        if (!scanner.reason.isEmpty())
            doubt(scanner.reason);
        return result;
    }

    bool collectExpansions(TSNode node, QList<ByteRange> &expansions, int depth)
    {
        if (tooDeep(depth))
            return false;
        static const QList<QByteArray> wordParts = {"word",
                                                    "string",
                                                    "string_content",
                                                    "raw_string",
                                                    "ansi_c_string",
                                                    "concatenation",
                                                    "number",
                                                    "translated_string",
                                                    "variable_assignment",
                                                    "variable_name",
                                                    "command_name",
                                                    // some words of `[ … ]`
                                                    "extglob_pattern"};
        const QByteArray kind = type(node);
        const ByteRange range{ts_node_start_byte(node), ts_node_end_byte(node)};
        if (kind == "command_substitution" || kind == "process_substitution") {
            m_parse.hasSubstitution = true;
            // Inside backquotes a backslash can start a nested substitution: `echo \`id\``.
            if (m_source.at(range.start) == '`'
                && m_source.mid(range.start, range.end - range.start).contains('\\')) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax", "The command has a backslash inside backquotes."));
                return false;
            }
            expansions.append(range);
            substitution(node, depth);
            return true;
        }
        if (kind == "simple_expansion" || kind == "expansion") {
            expansions.append(range);
            return plainExpansion(node);
        }
        if (kind == "arithmetic_expansion") {
            doubt(QCoreApplication::translate(
                    "ShellSyntax",
                    "The command has an arithmetic expansion, which can run commands "
                    "through the variables it evaluates."));
            return false;
        }
        if (!ts_node_is_named(node) || wordParts.contains(kind)) {
            const uint32_t count = ts_node_child_count(node);
            for (uint32_t i = 0; i < count; ++i) {
                if (!collectExpansions(ts_node_child(node, i), expansions, depth + 1))
                    return false;
            }
            return true;
        }
        doubtConstruct(node);
        return false;
    }

    void substitution(TSNode node, int depth)
    {
        static const QList<QByteArray> delimiters = {"$(", "`", ")", "<(", ">("};
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            if (ts_node_is_named(child))
                statement(child, depth + 1);
            else if (!delimiters.contains(type(child)))
                doubtConstruct(child);
        }
    }

    // `$X`, `${X}`, `$1`, `$@`: a value only. `${X:-$(…)}`, `${a[$(…)]}` and the like are not
    // split.
    bool plainExpansion(TSNode node)
    {
        static const QList<QByteArray> parts = {"$",
                                                "${",
                                                "}",
                                                "variable_name",
                                                "special_variable_name"};
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            if (!parts.contains(type(ts_node_child(node, i)))) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax",
                        "The command has a parameter expansion with an operator or a "
                        "subscript."));
                return false;
            }
        }
        return true;
    }

    // Undoes bash's quoting over one word's source bytes; the expansions inside it are skipped
    // and make the word not literal.
    class WordScanner
    {
    public:
        WordScanner(const QByteArray &source,
                    const QList<ByteRange> &expansions,
                    uint32_t start,
                    uint32_t end)
            : m_source(source)
            , m_expansions(expansions)
            , m_start(start)
            , m_end(end)
        {}

        QString reason;

        Word scan()
        {
            bool brace = false;
            uint32_t at = m_start;
            while (at < m_end && reason.isEmpty()) {
                if (skipExpansion(at))
                    continue;
                const char c = m_source.at(at);
                const char next = at + 1 < m_end ? m_source.at(at + 1) : '\0';
                if (c == '\\') {
                    if (at + 1 >= m_end)
                        fail(QCoreApplication::translate("ShellSyntax",
                                                         "A word ends with a lone backslash."));
                    else if (next != '\n')
                        m_value += next;
                    at += 2;
                } else if (c == '\'') {
                    at = singleQuoted(at + 1);
                } else if (c == '$' && next == '\'') {
                    at = ansiQuoted(at + 2);
                } else if (c == '$' && next == '"') {
                    m_literal = false; // translated by the locale
                    at = doubleQuoted(at + 2);
                } else if (c == '"') {
                    at = doubleQuoted(at + 1);
                } else if (c == '$' || c == '`') {
                    dollarOrBacktick(at);
                    ++at;
                } else {
                    unquoted(at, brace);
                    ++at;
                }
            }
            return {QString::fromUtf8(m_value), m_literal};
        }

    private:
        void fail(const QString &why)
        {
            if (reason.isEmpty())
                reason = why;
            m_literal = false;
        }

        bool skipExpansion(uint32_t &at)
        {
            for (const ByteRange &range : m_expansions) {
                if (range.start == at) {
                    m_literal = false;
                    m_value += m_source.mid(range.start, range.end - range.start);
                    at = range.end;
                    return true;
                }
            }
            return false;
        }

        // A `$` or backquote the grammar did not see as an expansion.
        void dollarOrBacktick(uint32_t at)
        {
            const char next = at + 1 < m_end ? m_source.at(at + 1) : '\0';
            if (m_source.at(at) == '`' || isNameChar(next)
                || QByteArray("{([@*#?-$!").contains(next))
                fail(QCoreApplication::translate(
                        "ShellSyntax",
                        "The command has an expansion the splitter could not place."));
            else
                m_value += '$';
        }

        void unquoted(uint32_t at, bool &brace)
        {
            const char c = m_source.at(at);
            const char previous = at > m_start ? m_source.at(at - 1) : '\0';
            if (QByteArray(" \t\n;&|<>()").contains(c))
                fail(QCoreApplication::translate(
                        "ShellSyntax", "The command has a word the splitter could not delimit."));
            if (c == '*' || c == '?' || c == '[')
                m_literal = false;
            if (c == '~' && (at == m_start || previous == '=' || previous == ':'))
                m_literal = false;
            if (c == '{')
                brace = true;
            if (brace && (c == ',' || (c == '.' && previous == '.')))
                m_literal = false;
            m_value += c;
        }

        uint32_t singleQuoted(uint32_t at)
        {
            const qsizetype close = m_source.indexOf('\'', at);
            if (close < 0 || uint32_t(close) >= m_end) {
                fail(QCoreApplication::translate("ShellSyntax",
                                                 "The command has an unterminated quote."));
                return m_end;
            }
            m_value += m_source.mid(at, close - at);
            return uint32_t(close) + 1;
        }

        uint32_t doubleQuoted(uint32_t at)
        {
            while (at < m_end && reason.isEmpty()) {
                if (skipExpansion(at))
                    continue;
                const char c = m_source.at(at);
                const char next = at + 1 < m_end ? m_source.at(at + 1) : '\0';
                if (c == '"')
                    return at + 1;
                if (c == '\\' && QByteArray("$`\"\\\n").contains(next) && next != '\0') {
                    if (next != '\n')
                        m_value += next;
                    at += 2;
                } else if (c == '$' || c == '`') {
                    dollarOrBacktick(at);
                    ++at;
                } else {
                    m_value += c;
                    ++at;
                }
            }
            fail(QCoreApplication::translate("ShellSyntax",
                                             "The command has an unterminated quote."));
            return m_end;
        }

        uint32_t ansiQuoted(uint32_t at)
        {
            while (at < m_end && reason.isEmpty()) {
                const char c = m_source.at(at);
                if (c == '\'')
                    return at + 1;
                if (c != '\\') {
                    m_value += c;
                    ++at;
                } else {
                    at = ansiEscape(at + 1);
                }
            }
            fail(QCoreApplication::translate("ShellSyntax",
                                             "The command has an unterminated quote."));
            return m_end;
        }

        uint32_t ansiEscape(uint32_t at)
        {
            static const QByteArray simple = "abeEfnrtv\\'\"?";
            static const QByteArray meaning = "\a\b\x1b\x1b\f\n\r\t\v\\'\"?";
            const char c = at < m_end ? m_source.at(at) : '\0';
            if (const qsizetype index = simple.indexOf(c); index >= 0 && c != '\0') {
                m_value += meaning.at(index);
                return at + 1;
            }
            int base = 0;
            int maxDigits = 0;
            uint32_t digitsAt = at;
            if (c == 'x') {
                base = 16;
                maxDigits = 2;
                ++digitsAt;
            } else if (c >= '0' && c <= '7') {
                base = 8;
                maxDigits = 3;
            }
            int digits = 0;
            int code = 0;
            while (base && digits < maxDigits && digitsAt + digits < m_end) {
                const int digit = QByteArray("0123456789abcdef")
                                          .indexOf(char(QChar::toLower(
                                                  ushort(uchar(m_source.at(digitsAt + digits))))));
                if (digit < 0 || digit >= base)
                    break;
                code = code * base + digit;
                ++digits;
            }
            if (digits == 0 || code == 0 || code > 0xff) {
                fail(QCoreApplication::translate(
                        "ShellSyntax",
                        "The command has a $'…' escape the splitter does not decode."));
                return m_end;
            }
            m_value += char(code);
            return digitsAt + digits;
        }

        const QByteArray &m_source;
        const QList<ByteRange> &m_expansions;
        const uint32_t m_start;
        const uint32_t m_end;
        QByteArray m_value;
        bool m_literal = true;
    };
};

// ---- PowerShell ----

class PowerShellSplitter final : TreeSplitter
{
public:
    using TreeSplitter::TreeSplitter;

    void statement(TSNode node, int depth)
    {
        if (tooDeep(depth))
            return;
        const QByteArray kind = type(node);
        if (kind == "comment" || kind == "empty_statement")
            return;
        if (kind == "command")
            return command(node, depth);
        if (kind == "program" || kind == "statement_list" || kind == "pipeline"
            || kind == "pipeline_chain" || kind == "pipeline_chain_tail")
            return sequence(node, depth);
        if (kind.endsWith("_expression") || kind == "invokation_expression")
            return doubt(QCoreApplication::translate(
                    "ShellSyntax",
                    "The command evaluates a PowerShell expression, such as a "
                    "method call, which is not a simple command."));
        doubtConstruct(node);
    }

private:
    void sequence(TSNode node, int depth)
    {
        static const QList<QByteArray> separators = {"&&", "||", ";", "|", "&", "\n"};
        if (!gapsAreBlank(node, true, false))
            return;
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            if (ts_node_is_named(child))
                statement(child, depth + 1);
            else if (!separators.contains(type(child)))
                doubtConstruct(child);
        }
    }

    void command(TSNode node, int depth)
    {
        if (!gapsAreBlank(node, false, false))
            return;
        const qsizetype position = m_parse.commands.size();
        SimpleCommand simple;
        simple.text = text(node);
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const QByteArray kind = type(child);
            if (kind == "command_invokation_operator")
                continue;
            if (kind == "command_name" || kind == "command_name_expr") {
                const Word name = commandName(child, depth);
                simple.words.append(name.value);
                simple.literal.append(name.literal);
            } else if (kind == "command_elements") {
                elements(child, simple, depth);
            } else {
                return doubtConstruct(child);
            }
        }
        if (!simple.literal.value(0, false))
            doubt(QCoreApplication::translate(
                    "ShellSyntax", "The command calls a program whose name is computed."));
        m_parse.commands.insert(position, simple);
    }

    Word commandName(TSNode node, int depth)
    {
        if (type(node) == "command_name")
            return bareword(node);
        const TSNode inner = ts_node_named_child(node, 0);
        if (ts_node_named_child_count(node) != 1)
            return {text(node), false};
        if (type(inner) == "command_name")
            return bareword(inner);
        if (type(inner) == "string_literal")
            return string(inner, depth);
        return {text(node), false};
    }

    void elements(TSNode node, SimpleCommand &simple, int depth)
    {
        bool separated = false; // the name and each argument end where a separator starts
        bool joinNext = false;
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const QByteArray kind = type(child);
            if (kind == "command_argument_sep") {
                const QString separator = text(child).trimmed();
                joinNext = separator == QLatin1String(":");
                separated = joinNext || !text(child).isEmpty();
                if (!separator.isEmpty() && !joinNext)
                    return doubtConstruct(child);
                continue;
            }
            if (!separated)
                return doubt(
                        QCoreApplication::translate("ShellSyntax",
                                                    "The command has a word the splitter could not "
                                                    "delimit."));
            separated = false;
            if (kind == "comment" && i + 1 == count)
                continue;
            if (kind == "redirection") {
                redirection(child, simple.redirections, depth);
                continue;
            }
            if (kind == "stop_parsing")
                return doubt(QCoreApplication::translate(
                        "ShellSyntax", "The command uses PowerShell's stop-parsing token --%."));
            if (kind != "array_literal_expression" && kind != "generic_token"
                && kind != "command_parameter")
                return doubtConstruct(child);
            const Word argument = kind == "array_literal_expression" ? expression(child, depth)
                                                                     : bareword(child);
            if (joinNext && !simple.words.isEmpty()) {
                simple.words.last() += QLatin1Char(':') + argument.value;
                simple.literal.last() = simple.literal.last() && argument.literal;
            } else {
                simple.words.append(argument.value);
                simple.literal.append(argument.literal);
            }
            joinNext = false;
        }
    }

    // An argument written without quotes. PowerShell's own escapes and expansions inside one
    // are left to be asked.
    Word bareword(TSNode node)
    {
        const QString value = text(node);
        static const QString special = QStringLiteral("`$@{}()'\",;|&<>");
        for (const QChar c : value) {
            if (special.contains(c)) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax",
                        "The command has a PowerShell argument the splitter does not "
                        "decode."));
                return {value, false};
            }
        }
        const bool wildcard = value.contains(QLatin1Char('*')) || value.contains(QLatin1Char('?'))
                              || value.contains(QLatin1Char('['));
        return {value, !wildcard && !value.startsWith(QLatin1Char('~'))};
    }

    // A command argument that is an expression: a string, a number, a variable, or `$(…)`,
    // `@(…)`, `(…)` and script blocks, whose statements are split too.
    Word expression(TSNode node, int depth)
    {
        TSNode inner = node;
        for (const char *wrapper : {"array_literal_expression", "unary_expression"}) {
            if (type(inner) != wrapper || ts_node_child_count(inner) != 1) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax",
                        "The command evaluates a PowerShell expression, such as a "
                        "method call, which is not a simple command."));
                return {text(node), false};
            }
            inner = ts_node_child(inner, 0);
        }
        const QByteArray kind = type(inner);
        if (kind == "string_literal")
            return string(inner, depth);
        if (kind == "integer_literal") {
            // PowerShell passes the number's value: 0x10 and 1kb are 16 and 1024.
            const QString number = text(inner);
            bool plain = !number.startsWith(QLatin1Char('0')) || number == QLatin1String("0");
            for (const QChar c : number)
                plain = plain && c.isDigit();
            return {number, plain};
        }
        if (kind == "variable") {
            if (text(inner).startsWith(QLatin1Char('@')))
                doubtIfNotPlainSplat(inner);
            return {text(inner), false};
        }
        if (kind == "sub_expression" || kind == "array_expression"
            || kind == "parenthesized_expression" || kind == "script_block_expression") {
            m_parse.hasSubstitution = true;
            nested(inner, depth + 1);
            return {text(inner), false};
        }
        doubt(QCoreApplication::translate(
                "ShellSyntax",
                "The command evaluates a PowerShell expression, such as a method call, "
                "which is not a simple command."));
        return {text(node), false};
    }

    void doubtIfNotPlainSplat(TSNode variable)
    {
        const QString name = text(variable).mid(1);
        for (const QChar c : name) {
            if (!c.isLetterOrNumber() && c != QLatin1Char('_'))
                return doubtConstruct(variable);
        }
    }

    // The statements of `$(…)`, `@(…)`, `(…)` or `{ … }`.
    void nested(TSNode node, int depth)
    {
        if (tooDeep(depth))
            return;
        static const QList<QByteArray> delimiters = {"$(", "@(", "(", ")", "{", "}"};
        static const QList<QByteArray> bodies = {"script_block", "script_block_body"};
        const uint32_t count = ts_node_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_child(node, i);
            const QByteArray kind = type(child);
            if (!ts_node_is_named(child)) {
                if (!delimiters.contains(kind))
                    doubtConstruct(child);
            } else if (bodies.contains(kind)) {
                nested(child, depth + 1);
            } else {
                statement(child, depth + 1);
            }
        }
    }

    // Windows PowerShell and PowerShell 7.3+ pass a `"` inside an argument to a program
    // differently, so such a word is not literal.
    Word string(TSNode node, int depth)
    {
        Word result = stringValue(node, depth);
        result.literal = result.literal && !result.value.contains(QLatin1Char('"'));
        return result;
    }

    Word stringValue(TSNode node, int depth)
    {
        const TSNode inner = ts_node_named_child(node, 0);
        const QByteArray kind = ts_node_named_child_count(node) == 1 ? type(inner) : QByteArray();
        const QString source = text(node);
        if (kind == "verbatim_string_characters" && source.size() >= 2
            && source.startsWith(QLatin1Char('\'')) && source.endsWith(QLatin1Char('\''))) {
            return {source.mid(1, source.size() - 2)
                            .replace(QStringLiteral("''"), QStringLiteral("'")),
                    true};
        }
        if (kind == "expandable_string_literal")
            return expandable(inner, depth);
        doubt(QCoreApplication::translate(
                "ShellSyntax", "The command has a PowerShell string the splitter does not decode."));
        return {source, false};
    }

    // "…": backtick escapes and doubled quotes are undone; variables and `$(…)` make it not
    // literal (and `$(…)` is split).
    Word expandable(TSNode node, int depth)
    {
        QList<ByteRange> expansions;
        const uint32_t count = ts_node_named_child_count(node);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_named_child(node, i);
            const QByteArray kind = type(child);
            if (kind == "sub_expression") {
                m_parse.hasSubstitution = true;
                nested(child, depth + 1);
            } else if (kind != "variable") {
                doubtConstruct(child);
                return {text(node), false};
            }
            expansions.append({ts_node_start_byte(child), ts_node_end_byte(child)});
        }
        Word result;
        QByteArray value;
        uint32_t at = ts_node_start_byte(node) + 1;
        const uint32_t end = ts_node_end_byte(node) - 1;
        static const QByteArray escapes = "abefnrtv";
        static const QByteArray meanings = "\a\b\x1b\f\n\r\t\v";
        while (at < end) {
            const auto expansion = std::find_if(expansions.cbegin(),
                                                expansions.cend(),
                                                [at](const ByteRange &r) { return r.start == at; });
            const char c = m_source.at(at);
            const char next = at + 1 < end ? m_source.at(at + 1) : '\0';
            if (expansion != expansions.cend()) {
                result.literal = false;
                value += m_source.mid(at, expansion->end - at);
                at = expansion->end;
            } else if (c == '`' && next != '\0' && next != '0' && next != 'u') {
                const qsizetype index = escapes.indexOf(next);
                value += index >= 0 ? meanings.at(index) : next;
                at += 2;
            } else if (c == '"' && next == '"') {
                value += '"';
                at += 2;
            } else if (c == '`' || c == '"'
                       || (c == '$'
                           && (isNameChar(next) || next == '{' || next == '(' || next == '$'
                               || next == '?' || next == '^'))) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax",
                        "The command has a PowerShell string the splitter does not "
                        "decode."));
                return {text(node), false};
            } else {
                value += c;
                ++at;
            }
        }
        result.value = QString::fromUtf8(value);
        return result;
    }

    void redirection(TSNode node, QList<Redirection> &redirections, int depth)
    {
        m_parse.hasRedirection = true;
        Redirection redirection;
        const TSNode op = ts_node_named_child(node, 0);
        redirection.op = text(op);
        if (type(op) == "merging_redirection_operator") {
            redirection.writesFile = false;
            redirections.append(redirection);
            return;
        }
        const TSNode file = ts_node_named_child(node, 1);
        if (type(op) != "file_redirection_operator" || type(file) != "redirected_file_name") {
            doubtConstruct(node);
            return;
        }
        Word target{text(file).trimmed(), false};
        const uint32_t count = ts_node_named_child_count(file);
        for (uint32_t i = 0; i < count; ++i) {
            const TSNode child = ts_node_named_child(file, i);
            const QByteArray kind = type(child);
            if (kind == "generic_token")
                target = bareword(child);
            else if (kind == "array_literal_expression")
                target = expression(child, depth);
            else if (kind != "command_argument_sep")
                doubtConstruct(child);
        }
        redirection.target = target.value;
        redirection.targetIsLiteral = target.literal;
        redirection.writesFile = target.value.compare(QLatin1String("$null"), Qt::CaseInsensitive)
                                 != 0;
        redirections.append(redirection);
    }
};

// ---- cmd.exe ----

// cmd.exe has no grammar to borrow: it is split by hand, and anything but plain commands joined
// by & && || | and newlines, with quotes, ^ escapes and redirections, is left to be asked.
class CmdSplitter
{
public:
    CmdSplitter(const QString &source, ShellParse &parse)
        : m_source(source)
        , m_parse(parse)
    {}

    void split()
    {
        qsizetype at = 0;
        while (at < m_source.size() && m_parse.certain)
            at = command(at);
    }

private:
    void doubt(const QString &reason)
    {
        if (m_parse.certain)
            m_parse.uncertainty = reason;
        m_parse.certain = false;
    }

    QChar at(qsizetype index) const
    {
        return index < m_source.size() ? m_source.at(index) : QChar();
    }

    // One command from start; returns where the next begins.
    qsizetype command(qsizetype start)
    {
        SimpleCommand simple;
        m_unquotedDelimiter = false;
        qsizetype index = start;
        while (index < m_source.size() && m_parse.certain) {
            const QChar c = m_source.at(index);
            if (c == QLatin1Char(' ') || c == QLatin1Char('\t')) {
                ++index;
            } else if (c == QLatin1Char('&') || c == QLatin1Char('|') || c == QLatin1Char('\n')) {
                break;
            } else if (c == QLatin1Char('(') || c == QLatin1Char(')')) {
                doubt(QCoreApplication::translate(
                        "ShellSyntax", "The command has a cmd.exe block in parentheses."));
            } else if (c == QLatin1Char('<') || c == QLatin1Char('>')) {
                index = redirection(index, -1, simple);
            } else if (c.isDigit()
                       && (at(index + 1) == QLatin1Char('>') || at(index + 1) == QLatin1Char('<'))) {
                index = redirection(index + 1, c.digitValue(), simple);
            } else {
                Word word;
                index = this->word(index, word);
                simple.words.append(word.value);
                simple.literal.append(word.literal);
            }
        }
        simple.text = m_source.mid(start, index - start).trimmed();
        finish(simple);
        return separator(index);
    }

    qsizetype separator(qsizetype index)
    {
        if (index >= m_source.size())
            return index;
        const QChar c = m_source.at(index);
        if (c != QLatin1Char('\n') && at(index + 1) == c)
            return index + 2;
        return index + 1;
    }

    void finish(const SimpleCommand &simple)
    {
        if (!m_parse.certain)
            return;
        if (simple.words.isEmpty()) {
            if (!simple.redirections.isEmpty())
                doubt(QCoreApplication::translate(
                        "ShellSyntax", "The command has a redirection without a command."));
            return;
        }
        const QString name = simple.words.first();
        static const QStringList keywords = {QStringLiteral("if"),
                                             QStringLiteral("for"),
                                             QStringLiteral("rem"),
                                             QStringLiteral("goto")};
        if (keywords.contains(name, Qt::CaseInsensitive))
            return doubt(QCoreApplication::translate("ShellSyntax",
                                                     "The command uses a cmd.exe statement (%1).")
                                 .arg(name));
        // cmd.exe's own commands end at more than blanks (`echo.x`, `cd..`) and split their
        // arguments at , ; = too.
        static const QStringList builtins
                = {QStringLiteral("assoc"),  QStringLiteral("call"),   QStringLiteral("cd"),
                   QStringLiteral("chdir"),  QStringLiteral("cls"),    QStringLiteral("color"),
                   QStringLiteral("copy"),   QStringLiteral("date"),   QStringLiteral("del"),
                   QStringLiteral("dir"),    QStringLiteral("echo"),   QStringLiteral("endlocal"),
                   QStringLiteral("erase"),  QStringLiteral("exit"),   QStringLiteral("ftype"),
                   QStringLiteral("md"),     QStringLiteral("mkdir"),  QStringLiteral("mklink"),
                   QStringLiteral("move"),   QStringLiteral("path"),   QStringLiteral("pause"),
                   QStringLiteral("popd"),   QStringLiteral("prompt"), QStringLiteral("pushd"),
                   QStringLiteral("rd"),     QStringLiteral("ren"),    QStringLiteral("rename"),
                   QStringLiteral("rmdir"),  QStringLiteral("set"),    QStringLiteral("setlocal"),
                   QStringLiteral("shift"),  QStringLiteral("start"),  QStringLiteral("time"),
                   QStringLiteral("title"),  QStringLiteral("type"),   QStringLiteral("ver"),
                   QStringLiteral("verify"), QStringLiteral("vol"),    QStringLiteral("break")};
        qsizetype letters = 0;
        while (letters < name.size() && name.at(letters).isLetter())
            ++letters;
        const QString builtin = name.left(letters).toLower();
        if (builtins.contains(builtin)
            && (letters < name.size() || (m_unquotedDelimiter && builtin != QLatin1String("set"))))
            return doubt(QCoreApplication::translate(
                    "ShellSyntax",
                    "The command is a cmd.exe command whose arguments cmd.exe "
                    "splits itself."));
        for (const QChar c : {QLatin1Char('/'),
                              QLatin1Char(','),
                              QLatin1Char(';'),
                              QLatin1Char('='),
                              QLatin1Char('+'),
                              QLatin1Char('@')}) {
            if (name.contains(c))
                return doubt(QCoreApplication::translate(
                        "ShellSyntax",
                        "The program name has a character cmd.exe may read as "
                        "a separator."));
        }
        m_parse.commands.append(simple);
    }

    // One word, up to a blank or an operator outside quotes.
    qsizetype word(qsizetype index, Word &word)
    {
        bool quoted = false;
        static const QString operators = QStringLiteral(" \t&|<>()\n");
        for (; index < m_source.size(); ++index) {
            const QChar c = m_source.at(index);
            if (!quoted && operators.contains(c))
                break;
            if (!quoted && (c == QLatin1Char(',') || c == QLatin1Char(';') || c == QLatin1Char('=')))
                m_unquotedDelimiter = true;
            if (c == QLatin1Char('"')) {
                if (index > 0 && m_source.at(index - 1) == QLatin1Char('\\'))
                    doubt(QCoreApplication::translate(
                            "ShellSyntax",
                            "The command has a \\\" that cmd.exe and the program read "
                            "differently."));
                quoted = !quoted;
            } else if (c == QLatin1Char('^') && !quoted) {
                if (index + 1 >= m_source.size() || m_source.at(index + 1) == QLatin1Char('\n'))
                    doubt(QCoreApplication::translate("ShellSyntax",
                                                      "The command continues on another line."));
                else
                    word.value += m_source.at(++index);
            } else {
                if (c == QLatin1Char('%') || c == QLatin1Char('!') || c == QLatin1Char('*')
                    || c == QLatin1Char('?'))
                    word.literal = false;
                word.value += c;
            }
        }
        if (quoted)
            doubt(QCoreApplication::translate("ShellSyntax",
                                              "The command has an unterminated quote."));
        return index;
    }

    qsizetype redirection(qsizetype index, int descriptor, SimpleCommand &simple)
    {
        m_parse.hasRedirection = true;
        Redirection redirection;
        if (descriptor >= 0)
            redirection.op = QString::number(descriptor);
        const QChar direction = m_source.at(index);
        redirection.op += direction;
        ++index;
        if (direction == QLatin1Char('>') && at(index) == QLatin1Char('>'))
            redirection.op += m_source.at(index++);
        if (at(index) == QLatin1Char('&') && at(index + 1).isDigit()) {
            redirection.op += QLatin1Char('&') + m_source.at(index + 1);
            simple.redirections.append(redirection);
            return index + 2;
        }
        while (at(index) == QLatin1Char(' ') || at(index) == QLatin1Char('\t'))
            ++index;
        Word target;
        index = word(index, target);
        if (target.value.isEmpty())
            doubt(QCoreApplication::translate("ShellSyntax",
                                              "The command has a redirection without a target."));
        redirection.target = target.value;
        redirection.targetIsLiteral = target.literal;
        redirection.writesFile = direction == QLatin1Char('>')
                                 && target.value.compare(QLatin1String("nul"), Qt::CaseInsensitive)
                                            != 0;
        simple.redirections.append(redirection);
        return index;
    }

    const QString &m_source;
    ShellParse &m_parse;
    bool m_unquotedDelimiter = false; // in the current command: , ; = outside quotes
};

// Control characters (but tabs and newlines) are read differently by shells and by the people
// who approve the command.
bool hasControlCharacter(const QString &command)
{
    for (const QChar c : command) {
        if ((c.unicode() < 0x20 && c != QLatin1Char('\t') && c != QLatin1Char('\n'))
            || c.unicode() == 0x7f)
            return true;
    }
    return false;
}

// PowerShell reads typographic quotes and dashes as their plain forms.
bool hasPowerShellLookalike(const QString &command)
{
    for (const QChar c : command) {
        const char16_t u = c.unicode();
        if ((u >= 0x2013 && u <= 0x2015) || (u >= 0x2018 && u <= 0x201e))
            return true;
    }
    return false;
}

void parseTree(const QByteArray &source, ShellSyntax syntax, ShellParse &parse)
{
    const std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(),
                                                                        &ts_parser_delete);
    const TSLanguage *language = syntax == ShellSyntax::Posix ? tree_sitter_bash()
                                                              : tree_sitter_powershell();
    if (!ts_parser_set_language(parser.get(), language)) {
        parse.certain = false;
        parse.uncertainty = QCoreApplication::translate("ShellSyntax",
                                                        "The shell grammar could not be loaded.");
        return;
    }
    const std::unique_ptr<TSTree, decltype(&ts_tree_delete)>
            tree(ts_parser_parse_string(parser.get(),
                                        nullptr,
                                        source.constData(),
                                        uint32_t(source.size())),
                 &ts_tree_delete);
    const TSNode root = ts_tree_root_node(tree.get());
    if (ts_node_has_error(root)) {
        parse.certain = false;
        parse.uncertainty
                = QCoreApplication::translate("ShellSyntax",
                                              "The command has a syntax error or a construct the "
                                              "splitter does not know.");
        return;
    }
    if (syntax == ShellSyntax::Posix)
        PosixSplitter(source, parse).statement(root, 0);
    else
        PowerShellSplitter(source, parse).statement(root, 0);
}

} // namespace

ShellParse parseShellCommand(const QString &command, ShellSyntax syntax)
{
    ShellParse parse;
    const QByteArray source = command.toUtf8();
    if (hasControlCharacter(command)) {
        parse.certain = false;
        parse.uncertainty = QCoreApplication::translate("ShellSyntax",
                                                        "The command has control characters.");
    } else if (source.size() > maxCommandBytes) {
        parse.certain = false;
        parse.uncertainty = QCoreApplication::translate("ShellSyntax",
                                                        "The command is too long to be split.");
    } else if (syntax == ShellSyntax::Cmd) {
        CmdSplitter(command, parse).split();
    } else if (syntax == ShellSyntax::PowerShell && hasPowerShellLookalike(command)) {
        parse.certain = false;
        parse.uncertainty
                = QCoreApplication::translate("ShellSyntax",
                                              "The command has typographic quotes or dashes, which "
                                              "PowerShell reads as plain ones.");
    } else {
        parseTree(source, syntax, parse);
    }
    return parse;
}

} // namespace AgentLoop
