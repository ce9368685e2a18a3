// Git access for slicing: the diff between a base revision and HEAD, the index or the
// work tree, produced by the `git` binary through ProcessRunner (argv only). Everything
// a repository can configure to run a program is switched off: hooks, fsmonitor, pager,
// external diff and textconv drivers (also those named in .gitattributes), and the
// clean/smudge/process filters of `filter.<name>` settings. doc/review.md has the full
// list. Stateless; one call per slice.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

enum class DiffMode {
  kCommit,    // base..HEAD (the default)
  kStaged,    // base..index (--staged)
  kWorktree,  // base..work tree, tracked files only (--worktree)
};

struct GitDiffRequest {
  std::string repo_dir;  // any folder inside the work tree
  std::string base;      // a revision ("HEAD~1", "main", a sha)
  DiffMode mode = DiffMode::kCommit;
};

struct GitDiffOutput {
  std::string toplevel;     // the work tree's top folder
  std::string base_commit;  // full sha of base
  std::string head_commit;  // full sha of HEAD (kCommit), "index" or "worktree"
  std::string text;         // `git diff` output
};

// The safe argv: {"git", "-c", "core.hooksPath=/dev/null", ..., "--no-pager", args...}.
std::vector<std::string> SafeGitDiffArgv(const std::vector<std::string>& args,
                                         const std::vector<std::string>& filter_drivers = {});

Result<GitDiffOutput> RunGitDiff(ProcessRunner& runner, const GitDiffRequest& request);

}  // namespace av
