// Component slicing: each file of a diff goes to the first component whose glob matches
// its path (the new path; the old one for a deletion), else to "unassigned". The components
// are [components] of attnverify.toml (review/review_config.h reads them).
// The slice is written into the acceptance package as diff/<component>.diff (byte-exact
// parts of git's output, empty when nothing changed) and evidence/slice.json
// (format in doc/review.md). Plain data; no threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "schema/provenance.h"
#include "schema/slice_json.h"

namespace av {

// What the slicer needs of a component: its name and its path globs (diff/glob.h), in
// priority order.
struct SliceSpec {
  std::string name;
  std::vector<std::string> globs;
};

// The first component whose globs match `path`; empty when none does ("unassigned").
std::string AssignComponent(const std::vector<SliceSpec>& components, std::string_view path);

struct SliceComponent {
  std::string name;                // "unassigned" for the rest
  std::vector<std::string> globs;  // empty for "unassigned"
  std::string path;                // package-relative: "diff/<name>.diff"
  std::vector<size_t> files;       // indices into SliceResult::diff.files
  std::string text;                // the diff file's bytes
  std::string sha256;              // of `text`
};

struct SliceResult {
  Provenance provenance;  // the slice stage's: argv, run id, head commit
  std::string mode;       // "commit", "staged" or "worktree"
  std::string repo;       // the work tree's top folder
  std::string base, base_commit, head_commit;
  Diff diff;
  std::vector<SliceComponent> components;  // configured order, then "unassigned"
};

// Assigns files and renders each component's diff text and sha256.
void SliceDiff(const std::vector<SliceSpec>& specs, SliceResult* slice);

// The evidence/slice.json record (schema/slice_json.h) of a slice.
SliceRecord SliceResultToRecord(const SliceResult& slice);

// Writes diff/<name>.diff for every component and evidence/slice.json under
// `package_dir`; returns the paths written.
Result<std::vector<std::string>> WriteSlice(const std::string& package_dir,
                                            const SliceResult& slice);

// evidence/slice.json read back (strictly), each component's path checked to stay
// inside the package.
Result<SliceRecord> LoadSliceRecord(const std::string& path);

}  // namespace av
