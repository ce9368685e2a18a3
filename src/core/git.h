// git, run so that a repository cannot make attnverify execute programs its config names:
// hooks, fsmonitor, external diff, pager and filter drivers are disabled on the command
// line, system config is ignored and prompts are off. Used by `attnverify build --base`
// (evidence/git_worktree) and `attnverify slice` (review/git_diff). Any thread; each call
// is independent.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

struct SafeGitOptions {
  std::vector<std::string> config;     // further "key=value" settings, each passed as -c
  size_t max_output_bytes = 16 << 20;  // more is an error, never a silent cut
  int timeout_ms = 300'000;
};

// {"git", "-c", "core.hooksPath=/dev/null", ..., "--no-pager", args...}; the smudge,
// clean and process commands of each of `filter_drivers` are emptied.
std::vector<std::string> SafeGitArgv(const std::vector<std::string>& args,
                                     const std::vector<std::string>& filter_drivers = {},
                                     const std::vector<std::string>& extra_config = {});

// Runs git in `dir`: stdout on success, else InvalidInput with the command and git's stderr.
Result<std::string> RunSafeGit(ProcessRunner& runner, const std::string& dir,
                               const std::vector<std::string>& args,
                               const std::vector<std::string>& filter_drivers = {},
                               const SafeGitOptions& options = {});

// The bytes of `path` (repository-relative) at revision `rev` (a full sha, or "" for the
// index), as committed: `git cat-file blob REV:PATH`, which runs no filter, textconv or
// lazy fetch. NotFound when the path does not exist there; InvalidInput when it is larger
// than `max_bytes` or git fails. Used by the reviewer to see whole files (review/).
Result<std::string> ReadGitBlob(ProcessRunner& runner, const std::string& dir,
                                const std::string& rev, const std::string& path, size_t max_bytes);

// The names X of the repository's filter.X.{smudge,clean,process} settings (to empty them).
std::vector<std::string> GitFilterDrivers(ProcessRunner& runner, const std::string& dir);

// `s` without trailing newlines (git's one-line answers).
std::string TrimNewlines(std::string s);

}  // namespace av
