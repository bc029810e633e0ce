#pragma once

#include "base/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

namespace AgentLoop {

// One file of a zip archive.
struct ZipEntry
{
    QString name; // with '/' between folders, e.g. "requests/1-request.json"
    QByteArray data;
};

// The CRC-32 a zip file records of each entry (ISO 3309, the polynomial 0xEDB88320).
quint32 crc32(QByteArrayView bytes);

// A zip archive of entries, STORED (no compression: the bug bundle is text, and no zip library
// builds for every platform here), names in UTF-8 (general purpose flag bit 11), every entry
// dated modified (local time, as zip keeps it). Without ZIP64: the archive and each entry stay
// under 4 GiB, and there are fewer than 65535 entries; anything larger is an error.
Result<QByteArray> zipArchive(const QList<ZipEntry> &entries, const QDateTime &modified);

// The entries of an archive zipArchive() wrote (or any STORED one without ZIP64), in the order
// of its central directory, each checked against the CRC-32 and the sizes its headers record.
// Errors for anything else: a compressed or encrypted entry, a truncated or corrupt archive.
Result<QList<ZipEntry>> readZipArchive(const QByteArray &archive);

} // namespace AgentLoop
