#include "leaksearch.h"

using namespace Qt::StringLiterals;

namespace AgentLoop {

KeyNeedles keyNeedles(const QString &key)
{
    const QByteArray utf8 = key.toUtf8();
    QByteArray utf16le;
    QByteArray utf16be;
    for (const QChar c : key) {
        utf16le.append(char(c.unicode() & 0xff)).append(char(c.unicode() >> 8));
        utf16be.append(char(c.unicode() >> 8)).append(char(c.unicode() & 0xff));
    }
    KeyNeedles needles{
            {"UTF-8", utf8},
            {"UTF-16LE", utf16le},
            {"UTF-16BE", utf16be},
            {"base64", utf8.toBase64(QByteArray::OmitTrailingEquals)},
            {"base64url",
             utf8.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)},
            {"random part", utf8.mid(utf8.lastIndexOf('-') + 1)},
    };
    // The key inside a base64 stream at either other alignment ("Bearer <key>", "user:<key>").
    for (const QByteArray &prefix : {QByteArray("x"), QByteArray("xx")}) {
        const QByteArray encoded = (prefix + utf8).toBase64(QByteArray::OmitTrailingEquals);
        needles.append({"base64 after " + QByteArray::number(prefix.size()) + " byte(s)",
                        encoded.mid(4, encoded.size() - 8)});
    }
    return needles;
}

QStringList keyHits(const QByteArray &bytes, const QString &what, const KeyNeedles &needles)
{
    const QString keyText = QString::fromUtf8(needles.constFirst().second);
    QStringList hits;
    for (const auto &[encoding, needle] : needles) {
        const qsizetype at = bytes.indexOf(needle);
        if (at < 0)
            continue;
        const QString excerpt = QString::fromUtf8(bytes.mid(qMax(qsizetype(0), at - 80), 180))
                                        .replace(keyText, u"<KEY>"_s);
        hits << u"%1: %2 at byte %3: ...%4..."_s.arg(what,
                                                     QString::fromLatin1(encoding),
                                                     QString::number(at),
                                                     excerpt);
    }
    return hits;
}

} // namespace AgentLoop
