// The slice and review stages as library calls on an acceptance package, so that
// `attnverify slice`, `attnverify review` and `attnverify run` share one implementation:
// load attnverify.toml, run git or read the sliced diffs, apply the rules, write the
// package files. Not thread-safe across calls on the same package.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "diff/git_diff.h"
#include "diff/slice.h"
#include "findings/finding.h"
#include "schema/provenance.h"

namespace av {

struct SliceRequest {
  std::string config_path = "attention-verify/attnverify.toml";
  std::string base;  // empty: [slice] base
  DiffMode mode = DiffMode::kCommit;
  Provenance provenance;  // the stage's block (StartProvenance), recorded in slice.json
};

struct SliceOutcome {
  SliceResult slice;
  std::string package_dir;
  std::vector<std::string> written;  // absolute paths
};

// Errors (exit 2): bad config, base that does not resolve, not a git work tree, a diff
// the parser rejects, a package folder that cannot be written.
Result<SliceOutcome> SlicePackage(ProcessRunner& runner, const SliceRequest& request);

struct ReviewRequest {
  std::string config_path;  // empty: attention-verify/attnverify.toml, optional with diff_files
  // Runs git to read the slice's base and head files (null: a PosixProcessRunner).
  ProcessRunner* runner = nullptr;
  std::vector<std::string> diff_files;  // empty: the package's slice
  std::string out_dir;                  // empty: the config's folder ("." without a config)
  Provenance provenance;                // the stage's block, recorded in review.json
};

struct ReviewOutcome {
  ReviewReport report;
  std::string json_path, markdown_path;
};

// Reads the diffs (checking each sliced file's sha256 against evidence/slice.json),
// runs the built-in rules (reading the slice's base and head files from git, and
// comparing the package's own config with the base revision's) and writes
// evidence/review.json and reports/review_01.md.
Result<ReviewOutcome> ReviewPackage(const ReviewRequest& request);

}  // namespace av
