// Component slicing: each file of a diff goes to the first [components] entry whose glob
// matches its path (the new path; the old one for a deletion), else to "unassigned".
// The slice is written into the acceptance package as diff/<component>.diff (byte-exact
// parts of git's output, empty when nothing changed) and evidence/slice.json
// (format in doc/review.md). Plain data; no threads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "review/diff.h"
#include "review/review_config.h"

namespace av {

struct SliceComponent {
  std::string name;                // "unassigned" for the rest
  std::vector<std::string> globs;  // empty for "unassigned"
  std::string path;                // package-relative: "diff/<name>.diff"
  std::vector<size_t> files;       // indices into SliceResult::diff.files
  std::string text;                // the diff file's bytes
  std::string sha256;              // of `text`
};

struct SliceResult {
  std::string command;  // "attnverify slice --config ..."
  std::string mode;     // "commit", "staged" or "worktree"
  std::string repo;     // the work tree's top folder
  std::string base, base_commit, head_commit;
  Diff diff;
  std::vector<SliceComponent> components;  // configured order, then "unassigned"
};

// Assigns files and renders each component's diff text and sha256.
void SliceDiff(const std::vector<ComponentSpec>& specs, SliceResult* slice);

nlohmann::json SliceToJson(const SliceResult& slice, const std::string& tool_version);

// Writes diff/<name>.diff for every component and evidence/slice.json under
// `package_dir`; returns the paths written.
Result<std::vector<std::string>> WriteSlice(const std::string& package_dir,
                                            const SliceResult& slice,
                                            const std::string& tool_version);

// What review needs back from evidence/slice.json.
struct SliceRecord {
  std::string base, base_commit, head_commit;
  std::string repo, mode;  // the work tree's top folder and "commit"/"staged"/"worktree"
  struct Entry {
    std::string name, path, sha256;
  };
  std::vector<Entry> components;
};
Result<SliceRecord> LoadSliceRecord(const std::string& path);

}  // namespace av
