#include "base/codepage.h"

#include <QSysInfo>

#include <algorithm>
#include <climits>

#if defined(Q_OS_WIN)
#include <qt_windows.h>
#else
#include <cerrno>
#include <iconv.h>
#include <langinfo.h>
#endif

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr char16_t replacementCharacter = u'\uFFFD';

#ifdef Q_OS_WIN

constexpr UINT gb18030CodePage = 54936;

// "CP936" → 936, "GB18030" → 54936; 0 for a name that is no Windows code page.
UINT codePageNumber(const QString &name)
{
    if (name.compare(u"GB18030"_s, Qt::CaseInsensitive) == 0)
        return gb18030CodePage;
    if (!name.startsWith(u"CP"_s, Qt::CaseInsensitive))
        return 0;
    bool ok = false;
    const uint number = name.mid(2).toUInt(&ok);
    return ok ? UINT(number) : 0;
}

// The code page of the name when this system has it (UTF-8 is no legacy code page); else 0.
UINT availableCodePage(const QString &name, CPINFO *info = nullptr)
{
    CPINFO ignored;
    const UINT number = codePageNumber(name);
    if (number == 0 || number == CP_UTF8 || !GetCPInfo(number, info ? info : &ignored))
        return 0;
    return number;
}

// All of the bytes as characters of the code page, or nullopt when one is none.
std::optional<QString> multiByteToWideChar(UINT codePage, QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return QString();
    if (bytes.size() > INT_MAX)
        return std::nullopt;
    // The one flag 54936 allows: a byte that is no character fails the call instead of becoming
    // U+FFFD.
    const int length = MultiByteToWideChar(codePage,
                                           MB_ERR_INVALID_CHARS,
                                           bytes.data(),
                                           int(bytes.size()),
                                           nullptr,
                                           0);
    if (length <= 0)
        return std::nullopt;
    QString text(length, Qt::Uninitialized);
    MultiByteToWideChar(codePage,
                        MB_ERR_INVALID_CHARS,
                        bytes.data(),
                        int(bytes.size()),
                        reinterpret_cast<wchar_t *>(text.data()),
                        length);
    return text;
}

// Windows says only that a conversion failed, not where: the bytes are decoded again piece by
// piece, each piece starting at a character boundary (no character is the beginning of another,
// so a piece that decodes ends at one too), and the piece that fails character by character.
DecodingFailure locateDecodingFailure(UINT codePage, QByteArrayView bytes, qsizetype longest)
{
    const auto decodes = [&](qsizetype from, qsizetype to) {
        return multiByteToWideChar(codePage, bytes.sliced(from, to - from)).has_value();
    };
    constexpr qsizetype piece = 64 * 1024;
    qsizetype at = 0;
    for (bool advanced = true; advanced && at < bytes.size();) {
        advanced = false;
        const qsizetype end = std::min(at + piece, bytes.size());
        // The piece may end inside a character.
        for (qsizetype shorter = 0; shorter < longest && end - shorter > at; ++shorter) {
            if (decodes(at, end - shorter)) {
                at = end - shorter;
                advanced = true;
                break;
            }
        }
    }
    while (at < bytes.size()) {
        qsizetype length = 1;
        while (length <= longest && at + length <= bytes.size() && !decodes(at, at + length))
            ++length;
        if (length > longest)
            return {at, false};
        if (at + length > bytes.size())
            return {at, true};
        at += length;
    }
    return {}; // every piece decodes: the whole failed for another reason
}

// All of the text in the code page, or nullopt when a character has no bytes in it.
std::optional<QByteArray> wideCharToMultiByte(UINT codePage, QStringView text)
{
    if (text.isEmpty())
        return QByteArray();
    if (text.size() > INT_MAX)
        return std::nullopt;
    // 54936 (like UTF-8) takes WC_ERR_INVALID_CHARS and must get no default character; every
    // other code page says through lpUsedDefaultChar that it had no bytes for a character, and
    // WC_NO_BEST_FIT_CHARS keeps a look-alike from standing in for one.
    const bool gb18030 = codePage == gb18030CodePage;
    const DWORD flags = gb18030 ? WC_ERR_INVALID_CHARS : WC_NO_BEST_FIT_CHARS;
    BOOL usedDefault = FALSE;
    BOOL *usedDefaultOut = gb18030 ? nullptr : &usedDefault;
    const auto *wide = reinterpret_cast<const wchar_t *>(text.utf16());
    const int length = WideCharToMultiByte(codePage,
                                           flags,
                                           wide,
                                           int(text.size()),
                                           nullptr,
                                           0,
                                           nullptr,
                                           usedDefaultOut);
    if (length <= 0 || usedDefault)
        return std::nullopt;
    QByteArray bytes(length, Qt::Uninitialized);
    WideCharToMultiByte(codePage,
                        flags,
                        wide,
                        int(text.size()),
                        bytes.data(),
                        length,
                        nullptr,
                        usedDefaultOut);
    return bytes;
}

// The index of the first character the code page has no bytes for, found piece by piece like
// locateDecodingFailure(); -1 when every piece encodes.
qsizetype locateEncodingFailure(UINT codePage, QStringView text)
{
    // A piece ends before a high surrogate, never between the halves of a pair.
    const auto pieceEnd = [&](qsizetype from, qsizetype length) {
        qsizetype end = std::min(from + length, text.size());
        if (end < text.size() && end > from + 1
            && QChar::isHighSurrogate(text.at(end - 1).unicode()))
            --end;
        return end;
    };
    constexpr qsizetype piece = 16 * 1024;
    qsizetype at = 0;
    while (at < text.size()) {
        const qsizetype end = pieceEnd(at, piece);
        if (!wideCharToMultiByte(codePage, text.sliced(at, end - at)))
            break;
        at = end;
    }
    while (at < text.size()) {
        const qsizetype end = pieceEnd(at, 2);
        const qsizetype next = end - at == 2 && QChar::isHighSurrogate(text.at(at).unicode())
                                               && QChar::isLowSurrogate(text.at(at + 1).unicode())
                                       ? end
                                       : at + 1;
        if (!wideCharToMultiByte(codePage, text.sliced(at, next - at)))
            return at;
        at = next;
    }
    return -1;
}

// The text in the code page; *failedAt is the index of the first character it cannot store.
std::optional<QByteArray> fromUtf16(const QString &encoding, QStringView text, qsizetype *failedAt)
{
    *failedAt = -1;
    const UINT codePage = availableCodePage(encoding);
    if (codePage == 0)
        return std::nullopt;
    std::optional<QByteArray> bytes = wideCharToMultiByte(codePage, text);
    if (!bytes)
        *failedAt = locateEncodingFailure(codePage, text);
    return bytes;
}

#else

// QString's code units in iconv's terms.
constexpr const char *nativeUtf16 = QSysInfo::ByteOrder == QSysInfo::LittleEndian ? "UTF-16LE"
                                                                                  : "UTF-16BE";

class Iconv final
{
public:
    Iconv(const char *to, const char *from)
        : m_handle(iconv_open(to, from))
    {}
    ~Iconv()
    {
        if (isValid())
            iconv_close(m_handle);
    }
    Iconv(const Iconv &) = delete;
    Iconv &operator=(const Iconv &) = delete;

    bool isValid() const { return m_handle != iconv_t(-1); }

    // All of input converted; on failure, *failedAt is the offset in input where the conversion
    // stopped and *cut whether only the end of input came too early there (EINVAL).
    std::optional<QByteArray> convert(QByteArrayView input, qsizetype *failedAt, bool *cut)
    {
        *failedAt = -1;
        *cut = false;
        QByteArray output;
        if (!isValid())
            return std::nullopt;
        output.resize(std::max<qsizetype>(64, input.size() * 2));
        char *in = const_cast<char *>(input.data());
        size_t inLeft = size_t(input.size());
        qsizetype written = 0;
        while (inLeft > 0) {
            char *out = output.data() + written;
            size_t outLeft = size_t(output.size() - written);
            const size_t result = iconv(m_handle, &in, &inLeft, &out, &outLeft);
            written = output.size() - qsizetype(outLeft);
            if (result != size_t(-1))
                continue;
            if (errno == E2BIG) {
                output.resize(output.size() * 2);
                continue;
            }
            *failedAt = qsizetype(in - input.data());
            *cut = errno == EINVAL;
            return std::nullopt;
        }
        output.truncate(written);
        return output;
    }

private:
    iconv_t m_handle;
};

std::optional<QByteArray> fromUtf16(const QString &encoding, QStringView text, qsizetype *failedAt)
{
    Iconv converter(encoding.toLatin1().constData(), nativeUtf16);
    bool cut = false;
    const QByteArrayView units(reinterpret_cast<const char *>(text.utf16()),
                               text.size() * qsizetype(sizeof(char16_t)));
    std::optional<QByteArray> bytes = converter.convert(units, failedAt, &cut);
    if (*failedAt >= 0)
        *failedAt /= qsizetype(sizeof(char16_t));
    return bytes;
}

#endif

} // namespace

QString systemLegacyEncoding()
{
#ifdef Q_OS_WIN
    // The system locale's ANSI code page, which GetACP() would give but for the manifest's
    // activeCodePage UTF-8.
    DWORD codePage = 0;
    const LCTYPE query = LOCALE_IDEFAULTANSICODEPAGE | LOCALE_RETURN_NUMBER;
    const int size = int(sizeof codePage / sizeof(WCHAR));
    auto *answer = reinterpret_cast<LPWSTR>(&codePage);
    // Wine answers the older GetLocaleInfoW only.
    if (GetLocaleInfoEx(LOCALE_NAME_SYSTEM_DEFAULT, query, answer, size) == 0
        && GetLocaleInfoW(LOCALE_SYSTEM_DEFAULT, query, answer, size) == 0)
        return {};
    if (codePage == 0 || codePage == CP_UTF8)
        return {};
    return u"CP%1"_s.arg(codePage);
#else
    const QString codeset = QString::fromLatin1(nl_langinfo(CODESET));
    // "ANSI_X3.4-1968" is the C locale's ASCII: nothing to fall back to.
    if (codeset.isEmpty() || codeset.compare(u"UTF-8"_s, Qt::CaseInsensitive) == 0
        || codeset.compare(u"utf8"_s, Qt::CaseInsensitive) == 0 || codeset == u"ANSI_X3.4-1968"_s)
        return {};
    return codeset;
#endif
}

#ifdef Q_OS_WIN

bool canConvert(const QString &encoding)
{
    return availableCodePage(encoding) != 0;
}

std::optional<QString> decodeStrictly(const QString &encoding,
                                      QByteArrayView bytes,
                                      DecodingFailure *failure)
{
    if (failure)
        *failure = {};
    CPINFO info;
    const UINT codePage = availableCodePage(encoding, &info);
    if (codePage == 0)
        return std::nullopt;
    std::optional<QString> text = multiByteToWideChar(codePage, bytes);
    if (!text && failure)
        *failure = locateDecodingFailure(codePage, bytes, std::max<qsizetype>(1, info.MaxCharSize));
    return text;
}

#else

bool canConvert(const QString &encoding)
{
    return Iconv(nativeUtf16, encoding.toLatin1().constData()).isValid();
}

std::optional<QString> decodeStrictly(const QString &encoding,
                                      QByteArrayView bytes,
                                      DecodingFailure *failure)
{
    Iconv converter(nativeUtf16, encoding.toLatin1().constData());
    DecodingFailure where;
    const std::optional<QByteArray> units = converter.convert(bytes, &where.offset, &where.cut);
    if (failure)
        *failure = where;
    if (!units)
        return std::nullopt;
    return QString(reinterpret_cast<const QChar *>(units->constData()),
                   units->size() / qsizetype(sizeof(char16_t)));
}

#endif

std::optional<QByteArray> encodeStrictly(const QString &encoding,
                                         QStringView text,
                                         qsizetype *unencodableIndex)
{
    qsizetype failedAt = -1;
    std::optional<QByteArray> bytes = fromUtf16(encoding, text, &failedAt);
    if (bytes) {
        // A converter may map a character to the bytes of a look-alike (glibc's CP932 writes
        // U+2252 of NEC's row 13 as the JIS one): such a character has no bytes of its own.
        const std::optional<QString> back = decodeStrictly(encoding, *bytes);
        if (!back || *back != text) {
            const QStringView readBack = back ? QStringView(*back) : QStringView();
            failedAt = std::mismatch(text.begin(), text.end(), readBack.begin(), readBack.end()).first
                       - text.begin();
            failedAt = std::min(failedAt, text.size() - 1);
            if (failedAt > 0 && QChar::isLowSurrogate(text.at(failedAt).unicode())
                && QChar::isHighSurrogate(text.at(failedAt - 1).unicode()))
                --failedAt;
            bytes.reset();
        }
    }
    if (!bytes && unencodableIndex)
        *unencodableIndex = failedAt;
    return bytes;
}

#ifdef Q_OS_WIN

struct LegacyDecoder::Converter
{
    UINT codePage = 0;
};

LegacyDecoder::LegacyDecoder(const QString &encoding)
    : m_name(encoding)
    , m_converter(std::make_unique<Converter>())
{
    m_converter->codePage = availableCodePage(encoding);
}

LegacyDecoder::~LegacyDecoder() = default;

bool LegacyDecoder::isValid() const
{
    return m_converter->codePage != 0;
}

QString LegacyDecoder::decode(QByteArrayView bytes)
{
    if (!isValid() || bytes.isEmpty())
        return {};
    QByteArray data = m_pending + bytes.toByteArray();
    m_pending.clear();
    // A lead byte at the very end waits for its trail byte.
    qsizetype complete = 0;
    while (complete < data.size()) {
        const bool lead = IsDBCSLeadByteEx(m_converter->codePage, BYTE(data.at(complete)));
        if (lead && complete + 1 == data.size())
            break;
        complete += lead ? 2 : 1;
    }
    m_pending = data.mid(complete);
    data.truncate(complete);
    if (data.isEmpty())
        return {};
    const int length = MultiByteToWideChar(m_converter->codePage,
                                           0,
                                           data.constData(),
                                           int(data.size()),
                                           nullptr,
                                           0);
    QString text(length, Qt::Uninitialized);
    MultiByteToWideChar(m_converter->codePage,
                        0,
                        data.constData(),
                        int(data.size()),
                        reinterpret_cast<wchar_t *>(text.data()),
                        length);
    return text;
}

#else

struct LegacyDecoder::Converter
{
    iconv_t handle = iconv_t(-1);
    ~Converter()
    {
        if (handle != iconv_t(-1))
            iconv_close(handle);
    }
};

LegacyDecoder::LegacyDecoder(const QString &encoding)
    : m_name(encoding)
    , m_converter(std::make_unique<Converter>())
{
    m_converter->handle = iconv_open("UTF-16LE", encoding.toLatin1().constData());
}

LegacyDecoder::~LegacyDecoder() = default;

bool LegacyDecoder::isValid() const
{
    return m_converter->handle != iconv_t(-1);
}

QString LegacyDecoder::decode(QByteArrayView bytes)
{
    if (!isValid() || bytes.isEmpty())
        return {};
    QByteArray data = m_pending + bytes.toByteArray();
    m_pending.clear();
    QString text;
    char *in = data.data();
    size_t inLeft = size_t(data.size());
    char16_t buffer[512];
    while (inLeft > 0) {
        char *out = reinterpret_cast<char *>(buffer);
        size_t outLeft = sizeof buffer;
        const size_t result = iconv(m_converter->handle, &in, &inLeft, &out, &outLeft);
        text.append(QStringView(buffer, qsizetype((sizeof buffer - outLeft) / sizeof(char16_t))));
        if (result != size_t(-1) || errno == E2BIG)
            continue;
        if (errno == EINVAL) { // a character continues in the next piece
            m_pending = QByteArray(in, qsizetype(inLeft));
            break;
        }
        // EILSEQ: a byte the encoding has no character for.
        text.append(QChar(replacementCharacter));
        ++in;
        --inLeft;
    }
    return text;
}

#endif

QString LegacyDecoder::finish()
{
    if (m_pending.isEmpty())
        return {};
    m_pending.clear();
    return QString(QChar(replacementCharacter));
}

} // namespace AgentLoop
