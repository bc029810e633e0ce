#include "base/ziparchive.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>
#include <limits>

namespace AgentLoop {

namespace {

struct ZipText
{
    Q_DECLARE_TR_FUNCTIONS(ZipArchive)
};

constexpr quint32 localSignature = 0x04034b50;
constexpr quint32 centralSignature = 0x02014b50;
constexpr quint32 endSignature = 0x06054b50;
constexpr quint16 versionNeeded = 20; // 2.0: folders in names
constexpr quint16 utf8Names = 1 << 11;
constexpr qsizetype localHeaderSize = 30;
constexpr qsizetype centralHeaderSize = 46;
constexpr qsizetype endRecordSize = 22;
constexpr qint64 zipLimit = std::numeric_limits<quint32>::max();

constexpr std::array<quint32, 256> crcTable()
{
    std::array<quint32, 256> table{};
    for (quint32 n = 0; n < 256; ++n) {
        quint32 c = n;
        for (int k = 0; k < 8; ++k)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    return table;
}

constexpr std::array<quint32, 256> crcValues = crcTable();

void put16(QByteArray &out, quint16 value)
{
    out.append(char(value & 0xFF)).append(char(value >> 8));
}

void put32(QByteArray &out, quint32 value)
{
    put16(out, quint16(value & 0xFFFF));
    put16(out, quint16(value >> 16));
}

quint16 get16(const QByteArray &in, qsizetype at)
{
    return quint16(uchar(in[at]) | uchar(in[at + 1]) << 8);
}

quint32 get32(const QByteArray &in, qsizetype at)
{
    return quint32(get16(in, at)) | quint32(get16(in, at + 2)) << 16;
}

// MS-DOS date and time, as zip keeps them: 2-second steps, years from 1980.
quint16 dosTime(const QDateTime &when)
{
    const QTime time = when.time();
    return quint16(time.hour() << 11 | time.minute() << 5 | time.second() / 2);
}

quint16 dosDate(const QDateTime &when)
{
    const QDate date = when.date();
    const int year = std::clamp(date.year(), 1980, 2107);
    return quint16((year - 1980) << 9 | date.month() << 5 | date.day());
}

Error corrupt(const QString &why)
{
    return Error(Error::Io, ZipText::tr("The zip archive cannot be read: %1").arg(why));
}

} // namespace

quint32 crc32(QByteArrayView bytes)
{
    quint32 c = 0xFFFFFFFFu;
    for (const char byte : bytes)
        c = crcValues[(c ^ uchar(byte)) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

Result<QByteArray> zipArchive(const QList<ZipEntry> &entries, const QDateTime &modified)
{
    if (entries.size() >= 0xFFFF)
        return Error(Error::Io, ZipText::tr("Too many files for one zip archive."));
    const QDateTime local = modified.toLocalTime();
    const quint16 time = dosTime(local);
    const quint16 date = dosDate(local);
    qint64 total = endRecordSize;
    for (const ZipEntry &entry : entries) {
        total += localHeaderSize + centralHeaderSize + 2 * entry.name.toUtf8().size()
                 + entry.data.size();
    }
    if (total > zipLimit)
        return Error(Error::Io, ZipText::tr("The files are too large for one zip archive (4 GB)."));

    QByteArray archive;
    archive.reserve(qsizetype(total));
    QByteArray central;
    for (const ZipEntry &entry : entries) {
        const QByteArray name = entry.name.toUtf8();
        if (name.isEmpty() || name.size() > 0xFFFF)
            return Error(Error::Io, ZipText::tr("A file in a zip archive needs a name."));
        const quint32 crc = crc32(entry.data);
        const auto offset = quint32(archive.size());
        const auto size = quint32(entry.data.size());
        put32(archive, localSignature);
        put16(archive, versionNeeded);
        put16(archive, utf8Names);
        put16(archive, 0); // stored
        put16(archive, time);
        put16(archive, date);
        put32(archive, crc);
        put32(archive, size); // compressed
        put32(archive, size);
        put16(archive, quint16(name.size()));
        put16(archive, 0); // no extra field
        archive.append(name).append(entry.data);

        put32(central, centralSignature);
        put16(central, versionNeeded); // made by: MS-DOS, 2.0
        put16(central, versionNeeded);
        put16(central, utf8Names);
        put16(central, 0);
        put16(central, time);
        put16(central, date);
        put32(central, crc);
        put32(central, size);
        put32(central, size);
        put16(central, quint16(name.size()));
        put16(central, 0); // extra
        put16(central, 0); // comment
        put16(central, 0); // disk
        put16(central, 0); // internal attributes
        put32(central, 0); // external attributes
        put32(central, offset);
        central.append(name);
    }
    const auto centralOffset = quint32(archive.size());
    archive.append(central);
    put32(archive, endSignature);
    put16(archive, 0);
    put16(archive, 0);
    put16(archive, quint16(entries.size()));
    put16(archive, quint16(entries.size()));
    put32(archive, quint32(central.size()));
    put32(archive, centralOffset);
    put16(archive, 0); // no comment
    return archive;
}

Result<QList<ZipEntry>> readZipArchive(const QByteArray &archive)
{
    const qsizetype size = archive.size();
    if (size < endRecordSize)
        return corrupt(ZipText::tr("it is too short."));
    // The end record is last, before a comment of at most 65535 bytes.
    qsizetype end = -1;
    for (qsizetype at = size - endRecordSize; at >= 0 && at >= size - endRecordSize - 0xFFFF; --at) {
        if (get32(archive, at) == endSignature
            && at + endRecordSize + get16(archive, at + 20) == size) {
            end = at;
            break;
        }
    }
    if (end < 0)
        return corrupt(ZipText::tr("it has no end of central directory record."));
    const int count = get16(archive, end + 10);
    const qint64 centralSize = get32(archive, end + 12);
    const qint64 centralOffset = get32(archive, end + 16);
    if (centralOffset + centralSize > end)
        return corrupt(ZipText::tr("its central directory lies outside it."));

    QList<ZipEntry> entries;
    qsizetype at = qsizetype(centralOffset);
    for (int i = 0; i < count; ++i) {
        if (at + centralHeaderSize > end || get32(archive, at) != centralSignature)
            return corrupt(ZipText::tr("its central directory is damaged."));
        const quint16 flags = get16(archive, at + 8);
        const quint16 method = get16(archive, at + 10);
        const quint32 crc = get32(archive, at + 16);
        const quint32 compressed = get32(archive, at + 20);
        const quint32 uncompressed = get32(archive, at + 24);
        const qsizetype nameLength = get16(archive, at + 28);
        const qsizetype extraLength = get16(archive, at + 30);
        const qsizetype commentLength = get16(archive, at + 32);
        const qint64 offset = get32(archive, at + 42);
        if (at + centralHeaderSize + nameLength + extraLength + commentLength > end)
            return corrupt(ZipText::tr("its central directory is damaged."));
        const QByteArray name = archive.mid(at + centralHeaderSize, nameLength);
        if (flags & 1)
            return corrupt(ZipText::tr("an entry is encrypted."));
        if (method != 0 || compressed != uncompressed)
            return corrupt(ZipText::tr("an entry is compressed."));
        if (offset + localHeaderSize > centralOffset || get32(archive, offset) != localSignature)
            return corrupt(ZipText::tr("a local header is missing."));
        const qint64 dataAt = offset + localHeaderSize + get16(archive, offset + 26)
                              + get16(archive, offset + 28);
        if (dataAt + compressed > centralOffset)
            return corrupt(ZipText::tr("an entry is truncated."));
        ZipEntry entry;
        entry.name = flags & utf8Names ? QString::fromUtf8(name) : QString::fromLatin1(name);
        entry.data = archive.mid(qsizetype(dataAt), qsizetype(compressed));
        if (crc32(entry.data) != crc)
            return corrupt(ZipText::tr("the CRC-32 of %1 does not match.").arg(entry.name));
        entries.append(entry);
        at += centralHeaderSize + nameLength + extraLength + commentLength;
    }
    return entries;
}

} // namespace AgentLoop
