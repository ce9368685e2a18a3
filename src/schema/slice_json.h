// evidence/slice.json as one model: which diff/<component>.diff files `attnverify slice`
// cut from git's diff, with each file's digest and the files it holds. The review stage
// reads it back (and checks the diffs' digests); the report cites it. Schema /2 adds the
// provenance block; /1 files are still read. Format: doc/review.md ("slice.json").
// Pure values; any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/provenance.h"

namespace av {

inline constexpr const char* kSliceJsonSchema = "attnverify.slice/2";
inline constexpr const char* kSliceJsonSchemaV1 = "attnverify.slice/1";

struct SliceFileRecord {
  std::string path, old_path, new_path;
  std::string status;  // "modified", "added", "deleted", "renamed", "copied", "mode_changed"
  bool binary = false;
  int64_t added = 0, deleted = 0, hunks = 0;
  int64_t similarity = -1;  // renames and copies; -1: none
  std::string old_mode, new_mode;
};

struct SliceComponentRecord {
  std::string name;  // "unassigned" for the rest
  std::vector<std::string> globs;
  std::string path;  // package-relative: "diff/<name>.diff"
  std::string sha256;
  int64_t bytes = 0;
  std::vector<SliceFileRecord> files;
};

struct SliceRecord {
  Provenance provenance;
  bool has_provenance = false;
  std::string legacy_command;  // schema /1's "command" line
  std::string tool_version;
  std::string mode;  // "commit", "staged" or "worktree"
  std::string repo;  // the work tree's top folder (absolute)
  std::string base, base_commit, head_commit;
  int64_t files_total = 0;
  std::vector<SliceComponentRecord> components;
};

nlohmann::json SliceToJson(const SliceRecord& record);
// Strict: base, base_commit, head_commit and the components (each with a name and a
// path) are required. Whether a path is safe to open is the reader's check
// (diff/slice.h LoadSliceRecord).
Result<SliceRecord> ParseSlice(std::string_view text, const std::string& path);

}  // namespace av
