#pragma once

#include "files/textcodec.h"
#include "files/workspace.h"
#include "tools/filetools.h"
#include "tools/tool.h"

#include <variant>

namespace AgentLoop {

// A text file of the workspace, opened for one file tool call.
struct OpenedTextFile
{
    WorkspacePath path;
    qint64 size = 0;
    DecodedText decoded;
    bool wholeFileDecoded = false;     // decoded.text is the whole file, not only its beginning
    qsizetype lineCount = 0;           // when wholeFileDecoded
    QByteArray bytes;                  // the whole file, when it was read whole
    FileReadLedger::Entry fingerprint; // when it was read whole
};

// "512 B", "12.3 KB", "100.0 MB": sizes in the file tools' results.
QString sizeText(qint64 bytes);

// Resolves, opens and decodes a file: a file up to limits.editByteLimit is read whole (and
// fingerprinted), a larger one only its first headBytes. Failures are the tool's result:
// outside_workspace, file_not_found, is_directory, binary_file, undecodable, read_failed.
std::variant<OpenedTextFile, ToolResult> openTextFile(const FileToolContext &context,
                                                      const QString &path,
                                                      WorkspaceBoundary::Access access,
                                                      qint64 headBytes);

// write_file and edit_file before the approval: the diff of the change against the file as it is
// now, or the result of a call that cannot succeed (answered without asking the user).
Review reviewFileEdit(const FileToolContext &context,
                      const QString &tool,
                      const QJsonObject &arguments);

// write_file and edit_file after the approval: the same change, computed again from the file on
// disk, written atomically only if that file is still the one the approved diff was computed
// from (approvedBasis, the review's CallPreview::basis; empty: not checked).
ToolResult applyFileEdit(const FileToolContext &context,
                         const QString &tool,
                         const QJsonObject &arguments,
                         const QByteArray &approvedBasis);

} // namespace AgentLoop
