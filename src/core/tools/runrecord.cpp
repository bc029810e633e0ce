#include "tools/runrecord.h"

#include "base/codepage.h"
#include "tools/outputcapture.h"

#include <QRegularExpression>
#include <QStringDecoder>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QByteArray RawStream::bytes() const
{
    QByteArray all;
    qsizetype size = 0;
    for (const RawChunk &chunk : chunks)
        size += chunk.bytes.size();
    all.reserve(size);
    for (const RawChunk &chunk : chunks)
        all.append(chunk.bytes);
    return all;
}

void RawStream::append(qint64 atMs, QByteArrayView bytes, qint64 limit)
{
    if (bytes.isEmpty())
        return;
    const qint64 kept = totalBytes - droppedBytes;
    const qint64 room = std::max<qint64>(0, limit - kept);
    const qsizetype take = qsizetype(std::min<qint64>(room, bytes.size()));
    totalBytes += bytes.size();
    droppedBytes += bytes.size() - take;
    if (take > 0)
        chunks.append({atMs, bytes.first(take).toByteArray()});
}

bool looksLikeSecretName(const QString &name)
{
    static const QRegularExpression secret(
            u"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|PWD$"_s,
            QRegularExpression::CaseInsensitiveOption);
    // PWD alone is the working directory, OLDPWD the one before.
    if (name == u"PWD"_s || name == u"OLDPWD"_s)
        return false;
    return secret.match(name).hasMatch();
}

QList<EnvironmentChange> environmentChanges(const QProcessEnvironment &base,
                                            const QProcessEnvironment &command)
{
    QList<EnvironmentChange> changes;
    QStringList names = base.keys() + command.keys();
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const QString &name : std::as_const(names)) {
        const bool before = base.contains(name);
        const bool after = command.contains(name);
        EnvironmentChange change;
        change.name = name;
        if (before && !after) {
            change.kind = EnvironmentChange::Removed;
        } else if (!before && after) {
            change.kind = EnvironmentChange::Added;
        } else if (base.value(name) != command.value(name)) {
            change.kind = EnvironmentChange::Changed;
        } else {
            continue;
        }
        if (change.kind != EnvironmentChange::Removed) {
            change.valueHidden = looksLikeSecretName(name);
            if (!change.valueHidden)
                change.value = command.value(name);
        }
        changes.append(change);
    }
    return changes;
}

DecodedOutput decodeOutput(QByteArrayView bytes, const QString &legacyEncoding, bool decodeClixml)
{
    // Without a limit worth the name: every character is kept.
    OutputCapture capture({qsizetype(std::min<qint64>(2 * qint64(bytes.size()) + 16,
                                                      std::numeric_limits<qsizetype>::max() / 2)),
                           legacyEncoding,
                           decodeClixml});
    // In pieces as a pipe delivers them, so that long lines are decoded as the runner does.
    constexpr qsizetype piece = 64 * 1024;
    for (qsizetype at = 0; at < bytes.size(); at += piece)
        capture.append(bytes.sliced(at, std::min(piece, bytes.size() - at)).toByteArray());
    const CapturedText captured = capture.finish();
    return {captured.head + captured.tail, captured.decoding};
}

namespace {

// One encoding, fed piece by piece: a character split between pieces comes out with the later.
class PieceDecoder
{
public:
    explicit PieceDecoder(const QString &encoding)
    {
        const auto qt = qtEncoding(encoding);
        if (qt) { // a byte order mark is a character of the text here, shown as it is
            m_qt = std::make_unique<QStringDecoder>(*qt, QStringDecoder::Flag::ConvertInitialBom);
            m_utf8 = *qt == QStringConverter::Utf8;
            m_utf16 = *qt == QStringConverter::Utf16LE || *qt == QStringConverter::Utf16BE;
        } else
            m_legacy = std::make_unique<LegacyDecoder>(encoding);
    }

    bool isValid() const { return m_qt || m_legacy->isValid(); }
    QString decode(QByteArrayView bytes)
    {
        if (!m_qt)
            return m_legacy->decode(bytes);
        m_fed += bytes.size();
        m_last = (m_last + bytes.toByteArray()).right(4);
        return m_qt->decode(bytes);
    }
    // U+FFFD for a character the bytes ended inside of (QStringDecoder keeps it to itself).
    QString finish()
    {
        if (!m_qt)
            return m_legacy->finish();
        bool cut = false;
        if (m_utf16)
            cut = m_fed % 2 != 0;
        else if (m_utf8)
            cut = incompleteUtf8Tail(m_last) > 0;
        m_fed = 0;
        m_last.clear();
        return cut ? QString(QChar::ReplacementCharacter) : QString();
    }

private:
    static std::optional<QStringConverter::Encoding> qtEncoding(const QString &encoding)
    {
        if (encoding == u"UTF-8"_s)
            return QStringConverter::Utf8;
        if (encoding == u"UTF-16LE"_s)
            return QStringConverter::Utf16LE;
        if (encoding == u"UTF-16BE"_s)
            return QStringConverter::Utf16BE;
        if (encoding == u"ISO-8859-1"_s)
            return QStringConverter::Latin1;
        return std::nullopt;
    }

    std::unique_ptr<QStringDecoder> m_qt;
    std::unique_ptr<LegacyDecoder> m_legacy;
    bool m_utf8 = false;
    bool m_utf16 = false;
    qint64 m_fed = 0;
    QByteArray m_last; // the last bytes fed, for a character cut at the end
};

bool isUtf8(QByteArrayView bytes)
{
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    [[maybe_unused]] const QString text = utf8.decode(bytes);
    return !utf8.hasError();
}

} // namespace

QString decodeAs(QByteArrayView bytes, const QString &encoding)
{
    PieceDecoder decoder(encoding);
    if (!decoder.isValid())
        return {};
    QString text = decoder.decode(bytes);
    text += decoder.finish();
    return text;
}

DecodedRows decodeRows(QByteArrayView bytes,
                       qsizetype rowBytes,
                       const QString &encoding,
                       const StreamDecoding &decoding,
                       const QString &legacyEncoding)
{
    DecodedRows rows;
    rowBytes = std::max<qsizetype>(rowBytes, 1);
    const qsizetype count = (bytes.size() + rowBytes - 1) / rowBytes;
    rows.rowStarts.reserve(count + 1);
    rows.text.reserve(bytes.size());

    // The parts: [start, end) of the bytes in one decoder each.
    struct Part
    {
        qsizetype start;
        qsizetype end;
        PieceDecoder *decoder;
    };
    QList<Part> parts;
    PieceDecoder utf8(u"UTF-8"_s);
    std::unique_ptr<PieceDecoder> other;
    if (!encoding.isEmpty()) {
        other = std::make_unique<PieceDecoder>(encoding);
        if (other->isValid())
            parts.append({0, bytes.size(), other.get()});
    } else if (decoding.basis == StreamDecoding::Basis::Utf16Bom
               || decoding.basis == StreamDecoding::Basis::Utf16Zeros) {
        other = std::make_unique<PieceDecoder>(decoding.encoding);
        parts.append({0, bytes.size(), other.get()});
    } else if (decoding.basis == StreamDecoding::Basis::LegacyLines && !legacyEncoding.isEmpty()) {
        other = std::make_unique<PieceDecoder>(legacyEncoding);
        for (qsizetype start = 0; start < bytes.size();) {
            const qsizetype lineBreak = bytes.sliced(start).indexOf('\n');
            const qsizetype end = lineBreak < 0 ? bytes.size() : start + lineBreak + 1;
            const QByteArrayView line = bytes.sliced(start, end - start);
            parts.append({start, end, isUtf8(line) || !other->isValid() ? &utf8 : other.get()});
            start = end;
        }
    } else {
        parts.append({0, bytes.size(), &utf8});
    }

    qsizetype part = 0;
    for (qsizetype row = 0; row < count; ++row) {
        rows.rowStarts.append(rows.text.size());
        const qsizetype rowStart = row * rowBytes;
        const qsizetype rowEnd = std::min(bytes.size(), rowStart + rowBytes);
        for (qsizetype at = rowStart; at < rowEnd && part < parts.size();) {
            const Part &p = parts.at(part);
            const qsizetype end = std::min(rowEnd, p.end);
            rows.text += p.decoder->decode(bytes.sliced(at, end - at));
            at = end;
            if (end == p.end) {
                if (part + 1 == parts.size() || parts.at(part + 1).decoder != p.decoder)
                    rows.text += p.decoder->finish();
                ++part;
            }
        }
    }
    rows.rowStarts.append(rows.text.size());
    return rows;
}

QList<EncodingChoice> availableEncodings()
{
    QList<EncodingChoice> choices{
            {u"UTF-8"_s, u"UTF-8"_s},
            {u"UTF-16LE"_s, u"UTF-16 LE"_s},
            {u"UTF-16BE"_s, u"UTF-16 BE"_s},
    };
    // Code pages by the names both iconv and Windows know (codepage.h).
    const QList<EncodingChoice> pages{
            {u"GB18030"_s, u"GB18030"_s},
            {u"CP936"_s, u"GBK (CP936)"_s},
            {u"CP950"_s, u"Big5 (CP950)"_s},
            {u"CP932"_s, u"Shift_JIS (CP932)"_s},
            {u"CP949"_s, u"EUC-KR (CP949)"_s},
            {u"CP1252"_s, u"Windows-1252"_s},
            {u"CP1251"_s, u"Windows-1251"_s},
            {u"CP437"_s, u"OEM 437 (CP437)"_s},
            {u"CP850"_s, u"OEM 850 (CP850)"_s},
            {u"CP866"_s, u"OEM 866 (CP866)"_s},
    };
    for (const EncodingChoice &page : pages) {
        if (LegacyDecoder(page.encoding).isValid())
            choices.append(page);
    }
    choices.append({u"ISO-8859-1"_s, u"Latin-1 (ISO-8859-1)"_s});
    return choices;
}

} // namespace AgentLoop
