// git, run so that a repository cannot make attnverify execute programs or reach the
// network: hooks, fsmonitor, external diff, pager, transports (protocol.allow=never, no
// lazy fetch of a partial clone), signature programs, submodule recursion and the
// repository's filter drivers are disabled on the command line, system config is ignored
// and prompts are off. The one way attnverify runs git: `slice` (diff/git_diff),
// `build --base` (evidence/git_worktree) and the reviewer's blob reads. doc/review.md and
// doc/formats/attnverify-toml-build.md list what is switched off. Any thread; each call
// is independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
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

// The environment every safe git call adds: no system config, no lazy fetch, no
// prompts, no pager, no optional locks, C-locale messages.
const std::map<std::string, std::string>& SafeGitEnvironment();

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

// One entry of `git ls-tree -r -l -z --full-tree COMMIT`.
struct GitTreeEntry {
  std::string mode;    // "100644", "100755", "120000" (symlink), "160000" (submodule)
  std::string type;    // "blob" or "commit" (a submodule's commit)
  std::string object;  // hex object id
  int64_t size = -1;   // blob size; -1 for a submodule
  std::string path;    // from the top of the tree, '/'-separated, as stored
};

// Every file of `commit`'s tree (recursively). Reads no file of the work tree.
Result<std::vector<GitTreeEntry>> ListGitTree(ProcessRunner& runner, const std::string& dir,
                                              const std::string& commit);

// The contents of the blobs `ids` (hex object ids from ListGitTree), whose sizes are
// `sizes`: `git show ID^{blob} ...` in batches, which prints each blob raw (no path, so no
// filter and no textconv). An id that is not a local blob, or output of another length
// than the sizes add up to, is an error: attnverify never fetches.
Result<std::vector<std::string>> ReadGitBlobsById(ProcessRunner& runner, const std::string& dir,
                                                  const std::vector<std::string>& ids,
                                                  const std::vector<int64_t>& sizes);

}  // namespace av
