// Unified diffs: the data model and its parser. A Diff is what `git diff` (or plain
// `diff -u`) printed: files with old/new paths, status (added, deleted, renamed, copied,
// mode change), binary markers and hunks whose lines carry old- and new-side numbers.
// The parser never trusts its input (doc/review.md lists what it accepts and rejects);
// values are plain data, safe to share between threads once built.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

enum class DiffLineKind { kContext, kAdd, kDelete };

struct DiffLine {
  DiffLineKind kind = DiffLineKind::kContext;
  std::string text;  // without the leading ' ', '+' or '-' and without the newline
  // 1-based line numbers; 0 on the side the line does not exist (old for an add, new for
  // a delete). A deleted line's `new_line` is 0 but `anchor` gives where it sat.
  int64_t old_line = 0;
  int64_t new_line = 0;
  // For every line: the new-side line number at which it sits (for a deletion, the line
  // that follows it on the new side, clamped to at least 1).
  int64_t anchor = 0;
  bool no_newline_at_end = false;  // followed by "\ No newline at end of file"
  int source_line = 0;             // 1-based line of the diff text
};

struct Hunk {
  int64_t old_start = 0, old_count = 0;
  int64_t new_start = 0, new_count = 0;
  std::string section;  // text after the closing "@@" (git's function context), trimmed
  int source_line = 0;
  std::vector<DiffLine> lines;
};

enum class FileStatus { kModified, kAdded, kDeleted, kRenamed, kCopied, kModeChanged };
std::string_view FileStatusName(FileStatus status);  // "modified", "added", ...

struct FileDiff {
  std::string old_path;  // repository-relative, no "a/" prefix; empty for an added file
  std::string new_path;  // empty for a deleted file
  FileStatus status = FileStatus::kModified;
  int similarity = -1;             // percent, for renames and copies; -1 when not given
  std::string old_mode, new_mode;  // "100644"... when the diff names them
  bool binary = false;             // "Binary files ... differ" or "GIT binary patch"
  std::vector<Hunk> hunks;
  int source_line = 0;  // the file's first header line
  // The exact bytes of this file's part of the diff (headers, hunks, binary data), so
  // that slicing writes back byte for byte what git printed.
  std::string raw;
  // Text after the file's hunks that belongs to no file: a `git format-patch` signature
  // ("-- \n2.43.0\n") and, in a series, the next patch's mail header and message.
  std::string trailer;

  // The path that names the file now: new_path, or old_path for a deletion.
  const std::string& path() const { return new_path.empty() ? old_path : new_path; }
  int64_t added_lines() const;
  int64_t deleted_lines() const;
};

struct Diff {
  std::string source;    // file name (or "git diff") for messages
  std::string preamble;  // bytes before the first file (a commit message, "diff -ru" lines)
  std::vector<FileDiff> files;
};

// Caps: inputs past these are rejected rather than allocated.
inline constexpr size_t kMaxDiffBytes = size_t{512} << 20;
inline constexpr size_t kMaxDiffFiles = 200'000;
inline constexpr int64_t kMaxHunkLineCount = 100'000'000;

// Parses `git diff` output (diff --git headers, extended headers, quoted paths with C
// escapes, binary markers), `git format-patch` / `git show` output (mail header and message
// kept as the preamble, the "-- " signature as a file's trailer) and plain `diff -u` output. Errors
// are InvalidInput naming `source_name:LINE`. Paths that are absolute, contain a ".." component or
// a control character are rejected.
Result<Diff> ParseUnifiedDiff(std::string_view text, const std::string& source_name);

// Checks one repository-relative path (after unquoting); the error text says what is wrong.
Status ValidateDiffPath(std::string_view path);

// The exact text of the given files (indices into diff.files, in the order given), for
// slicing: each file's raw bytes. No preamble, no trailers.
std::string WriteUnifiedDiff(const Diff& diff, std::span<const size_t> file_indices);
// Every file with its trailer, preceded by the preamble: equals the parsed text.
std::string WriteUnifiedDiff(const Diff& diff);

}  // namespace av
