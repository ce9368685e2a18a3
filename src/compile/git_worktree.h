// A temporary copy of a base revision's files, so that `attnverify build --base REF`
// compiles base and head with the same flags. It is written from git's object store
// (`ls-tree`, then `show` of each blob by id, through core/git.h), not checked out: no filter, hook
// or other program the repository's config names can run, and blobs are written as
// committed. Submodules (CUTLASS in FlashMLA and DeepGEMM) are written the same way from
// the head work tree's own clone of each submodule, when it holds the recorded commit;
// otherwise the folder stays empty and `warnings()` says why. Symlinks are written only
// when they point inside the copy. Not a `git worktree` (git knows nothing of it); removed
// when the object dies. Not thread-safe; one owner.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

class GitWorktree {
 public:
  // `repo_dir` is any folder inside the repository; `ref` a commit-ish ("HEAD~1").
  static Result<std::unique_ptr<GitWorktree>> Create(ProcessRunner& runner,
                                                     const std::string& repo_dir,
                                                     const std::string& ref);
  ~GitWorktree();
  GitWorktree(const GitWorktree&) = delete;
  GitWorktree& operator=(const GitWorktree&) = delete;

  const std::string& path() const { return path_; }          // top of the copy
  const std::string& commit() const { return commit_; }      // full hash
  const std::string& toplevel() const { return toplevel_; }  // of the original repository
  // What the copy lacks: a submodule that could not be written, a symlink left out.
  const std::vector<std::string>& warnings() const { return warnings_; }
  int files() const { return files_; }  // regular files and symlinks written

 private:
  GitWorktree() = default;
  std::string toplevel_, path_, commit_, temp_root_;
  std::vector<std::string> warnings_;
  int files_ = 0;
  friend class TreeWriter;
};

// Limits on what one base copy may write (a hostile repository could hold anything).
inline constexpr int64_t kMaxBaseTreeBytes = int64_t{8} << 30;
inline constexpr int kMaxBaseTreeFiles = 2'000'000;
inline constexpr int kMaxSubmoduleDepth = 4;

}  // namespace av
