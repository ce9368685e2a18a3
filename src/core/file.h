// Whole-file helpers. Writes are atomic (temporary file in the same folder, fsync,
// rename), so an interrupted run never leaves half a report and never destroys the
// previous one. Thread-safe for distinct paths.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

Result<std::string> ReadFileToString(const std::string& path);

// Replaces `path` with `contents` atomically; creates no parent folders.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace av
