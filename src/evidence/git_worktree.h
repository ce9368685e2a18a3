// A temporary, detached git worktree of a base revision, so that `attnverify build
// --base REF` compiles base and head with the same flags. git runs through core/git.h
// (hooks, fsmonitor, external diff and the repository's filter drivers disabled):
// checking out someone else's branch must not run programs its config names. Removed (worktree and
// folder) when the object dies. Not thread-safe; one owner.
#pragma once

#include <memory>
#include <string>

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

  const std::string& path() const { return path_; }          // top of the checkout
  const std::string& commit() const { return commit_; }      // full hash
  const std::string& toplevel() const { return toplevel_; }  // of the original repository

 private:
  GitWorktree(ProcessRunner& runner, std::string toplevel, std::string path, std::string commit,
              std::string temp_root)
      : runner_(runner),
        toplevel_(std::move(toplevel)),
        path_(std::move(path)),
        commit_(std::move(commit)),
        temp_root_(std::move(temp_root)) {}
  ProcessRunner& runner_;
  std::string toplevel_, path_, commit_, temp_root_;
};

}  // namespace av
