#include "treegen.h"

#include <QDir>
#include <QFile>

#include <array>
#include <random>
#include <string_view>

using namespace Qt::StringLiterals;

namespace AgentLoop::Bench {

namespace {

constexpr std::array<std::string_view, 32> words{"value",  "count",   "index",   "buffer",
                                                 "result", "parser",  "model",   "request",
                                                 "reply",  "session", "history", "tool",
                                                 "status", "widget",  "layout",  "offset",
                                                 "length", "cursor",  "folder",  "entry",
                                                 "path",   "encoder", "token",   "stream",
                                                 "chunk",  "limit",   "state",   "config",
                                                 "client", "handle",  "item",    "node"};

constexpr std::array<std::string_view, 8> classNames{"ChatClient",
                                                     "ToolRunner",
                                                     "LineBuffer",
                                                     "PathFilter",
                                                     "TextModel",
                                                     "ReplyParser",
                                                     "Workspace",
                                                     "Inspector"};

// Comment text that is not ASCII: "测试 → café" in UTF-8, "中文注释" in GB18030 (bytes that are
// not valid UTF-8, so a reader has to recognise the encoding).
constexpr std::string_view utf8Comment = "// \xe6\xb5\x8b\xe8\xaf\x95 \xe2\x86\x92 caf\xc3\xa9: ";
constexpr std::string_view gb18030Comment = "// \xd6\xd0\xce\xc4\xd7\xa2\xca\xcd: ";

enum class Encoding { Utf8, Gb18030 };

void append(QByteArray &out, std::string_view text)
{
    out.append(text.data(), qsizetype(text.size()));
}

// Lines of C++-like code from a fixed seed.
class SourceWriter
{
public:
    explicit SourceWriter(quint32 seed)
        : m_random(seed)
    {}

    quint32 next() { return quint32(m_random()); }

    // One line, '\n' (or "\r\n") included.
    void appendLine(QByteArray &out, Encoding encoding, bool crlf)
    {
        switch (next() % 10) {
        case 0:
            out += "#include <";
            append(out, word());
            out += '/';
            append(out, word());
            out += ".h>";
            break;
        case 1:
            out += "    int ";
            append(out, word());
            out += '_' + QByteArray::number(next() % 1000) + " = ";
            append(out, word());
            out += '(';
            append(out, word());
            out += ", " + QByteArray::number(next() % 1000) + ");";
            break;
        case 2:
            out += "    if (";
            append(out, word());
            out += " > " + QByteArray::number(next() % 1000) + ") {";
            break;
        case 3:
            out += "        return ";
            append(out, word());
            out += '.';
            append(out, word());
            out += "();";
            break;
        case 4:
            out += "    }";
            break;
        case 5:
            if (next() % 4 == 0)
                append(out, encoding == Encoding::Gb18030 ? gb18030Comment : utf8Comment);
            else
                out += "// ";
            append(out, word());
            out += " the ";
            append(out, word());
            out += " before the ";
            append(out, word());
            out += '.';
            break;
        case 6:
            out += "static const char *";
            append(out, word());
            out += " = \"";
            append(out, word());
            out += ' ';
            append(out, word());
            out += "\";";
            break;
        case 7:
            out += "class ";
            append(out, classNames[next() % classNames.size()]);
            out += " final : public ";
            append(out, classNames[next() % classNames.size()]);
            break;
        case 8:
            out += next() % 2 ? "{" : "};";
            break;
        default:
            break; // an empty line
        }
        out += crlf ? "\r\n" : "\n";
    }

    // A line that matches grepPattern.
    void appendMatch(QByteArray &out, bool crlf, bool newline = true)
    {
        out += "    frobnicate_" + QByteArray::number(next() % 100) + '(';
        append(out, word());
        out += ");";
        if (newline)
            out += crlf ? "\r\n" : "\n";
    }

    // A line that has the literal part of grepPattern but does not match it.
    void appendNearMiss(QByteArray &out, bool crlf)
    {
        out += "    frobnicate_x(";
        append(out, word());
        out += "); // not frobnicate_12 (a call)";
        out += crlf ? "\r\n" : "\n";
    }

private:
    std::string_view word() { return words[next() % words.size()]; }

    std::mt19937 m_random;
};

Result<void> writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return Error(Error::Io, u"cannot write %1: %2"_s.arg(path, file.errorString()));
    return {};
}

Result<void> makeFolder(const QString &path)
{
    if (!QDir().mkpath(path))
        return Error(Error::Io, u"cannot create %1"_s.arg(path));
    return {};
}

} // namespace

Result<TreeSummary> generateTree(const QString &root, int files, qint64 bytes)
{
    constexpr int ignoredFiles = 100; // 1 MB: small, so that grep without --exclude-dir stays fair
    constexpr int binaryFiles = 20;
    constexpr qsizetype ignoredFileBytes = 10 * 1000;
    constexpr qsizetype binaryFileBytes = 64 * 1024;
    const int sourceFiles = files - ignoredFiles - binaryFiles;
    if (sourceFiles < 100)
        return Error(Error::Configuration, u"a tree needs at least 220 files"_s);
    const qint64 averageSource = (bytes - ignoredFiles * ignoredFileBytes
                                  - binaryFiles * binaryFileBytes)
                                 / sourceFiles;

    TreeSummary summary;
    const QDir dir(root);
    for (const QString &folder : {u".git"_s, u"assets"_s, QString::fromLatin1(ignoredFolder)}) {
        if (auto made = makeFolder(dir.filePath(folder)); !made)
            return made.error();
    }
    const QByteArray gitignore = "# build output\n/" + QByteArray(ignoredFolder) + "/\n";
    if (auto written = writeFile(dir.filePath(u".gitignore"_s), gitignore); !written)
        return written.error();

    SourceWriter writer(20261201); // fixed: every run and every subject get the same bytes
    QString folder;
    for (int k = 0; k < sourceFiles; ++k) {
        const QString path = u"src/m%1/s%2/f%3.%4"_s.arg(k / 1000, 2, 10, QChar(u'0'))
                                     .arg((k / 100) % 10)
                                     .arg(k, 5, 10, QChar(u'0'))
                                     .arg(k % 3 == 2 ? u"h"_s : u"cpp"_s);
        const QString fileFolder = path.section(u'/', 0, -2);
        if (fileFolder != folder) {
            folder = fileFolder;
            if (auto made = makeFolder(dir.filePath(folder)); !made)
                return made.error();
        }
        const Encoding encoding = k % 97 == 5 ? Encoding::Gb18030 : Encoding::Utf8;
        const bool crlf = k % 50 == 7;
        // 0.2 to 1.8 times the average size.
        const qsizetype size = qsizetype(averageSource * (200 + writer.next() % 1601) / 1000);
        // One file in 47 has one or two matching lines (spread over the file), one in 13 a near
        // miss; some matches are the last line, without a line break.
        const int matches = k % 47 == 0 ? (k % 3 == 0 ? 2 : 1) : 0;
        const bool lastLineMatches = matches > 0 && k % 5 == 0;
        QByteArray out;
        out.reserve(size + 256);
        int placed = 0;
        bool nearMiss = k % 13 == 1;
        while (out.size() < size) {
            if (placed < matches - (lastLineMatches ? 1 : 0)
                && out.size() >= size * (placed + 1) / (matches + 1)) {
                writer.appendMatch(out, crlf);
                ++placed;
            } else if (nearMiss && out.size() >= size / 2) {
                writer.appendNearMiss(out, crlf);
                nearMiss = false;
            } else {
                writer.appendLine(out, encoding, crlf);
            }
        }
        if (lastLineMatches)
            writer.appendMatch(out, crlf, false);
        if (k == 1) { // two matches on one line: one matching line for everyone
            out += "    frobnicate_1(frobnicate_2(value));\n";
            ++summary.matchingFiles;
            ++summary.matchingLines;
        }
        if (auto written = writeFile(dir.filePath(path), out); !written)
            return written.error();
        summary.matchingLines += matches;
        summary.matchingFiles += matches > 0 ? 1 : 0;
        summary.gb18030Files += encoding == Encoding::Gb18030 ? 1 : 0;
        summary.bytes += out.size();
        ++summary.files;
    }

    for (int k = 0; k < ignoredFiles; ++k) {
        QByteArray out;
        while (out.size() < ignoredFileBytes / 2)
            writer.appendLine(out, Encoding::Utf8, false);
        writer.appendMatch(out, false);
        while (out.size() < ignoredFileBytes)
            writer.appendLine(out, Encoding::Utf8, false);
        const QString path = u"%1/obj%2.cpp"_s.arg(QString::fromLatin1(ignoredFolder))
                                     .arg(k, 3, 10, QChar(u'0'));
        if (auto written = writeFile(dir.filePath(path), out); !written)
            return written.error();
        ++summary.ignoredMatchingLines;
        summary.bytes += out.size();
        ++summary.files;
    }

    for (int k = 0; k < binaryFiles; ++k) {
        // A PNG-like header (NUL bytes at once), then bytes with NULs among them.
        QByteArray out("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
        while (out.size() < binaryFileBytes) {
            const quint32 r = writer.next();
            out += r % 7 == 0 ? '\0' : char(0x20 + r % 0x5f);
        }
        if (auto written = writeFile(dir.filePath(u"assets/image%1.png"_s.arg(k)), out); !written)
            return written.error();
        summary.bytes += out.size();
        ++summary.binaryFiles;
        ++summary.files;
    }
    return summary;
}

Result<void> generateTextFile(const QString &path, qint64 bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error(Error::Io, u"cannot write %1: %2"_s.arg(path, file.errorString()));
    SourceWriter writer(20261202);
    QByteArray chunk;
    for (qint64 written = 0; written < bytes; written += chunk.size()) {
        chunk.clear();
        while (chunk.size() < 1024 * 1024)
            writer.appendLine(chunk, Encoding::Utf8, false);
        chunk.truncate(std::min<qint64>(chunk.size(), bytes - written));
        if (file.write(chunk) != chunk.size())
            return Error(Error::Io, u"cannot write %1: %2"_s.arg(path, file.errorString()));
    }
    return {};
}

} // namespace AgentLoop::Bench
