#include "base/codepage.h"

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
// "CP936" → 936; 0 for a name that is no Windows code page.
UINT codePageNumber(const QString &name)
{
    if (!name.startsWith(u"CP"_s, Qt::CaseInsensitive))
        return 0;
    bool ok = false;
    const uint number = name.mid(2).toUInt(&ok);
    return ok ? UINT(number) : 0;
}
#endif

} // namespace

QString systemLegacyEncoding()
{
#ifdef Q_OS_WIN
    // The system locale's ANSI code page, which GetACP() would give but for the manifest's
    // activeCodePage UTF-8.
    DWORD codePage = 0;
    if (GetLocaleInfoEx(LOCALE_NAME_SYSTEM_DEFAULT,
                        LOCALE_IDEFAULTANSICODEPAGE | LOCALE_RETURN_NUMBER,
                        reinterpret_cast<LPWSTR>(&codePage),
                        int(sizeof codePage / sizeof(WCHAR)))
                == 0
        || codePage == 0 || codePage == CP_UTF8)
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

struct LegacyDecoder::Converter
{
    UINT codePage = 0;
};

LegacyDecoder::LegacyDecoder(const QString &encoding)
    : m_name(encoding)
    , m_converter(std::make_unique<Converter>())
{
    const UINT number = codePageNumber(encoding);
    CPINFO info;
    if (number != 0 && number != CP_UTF8 && GetCPInfo(number, &info))
        m_converter->codePage = number;
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
