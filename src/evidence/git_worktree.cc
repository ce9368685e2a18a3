#include "evidence/git_worktree.h"

#include <unistd.h>

#include <filesystem>

#include "core/git.h"

namespace av {

Result<std::unique_ptr<GitWorktree>> GitWorktree::Create(ProcessRunner& runner,
                                                         const std::string& repo_dir,
                                                         const std::string& ref) {
  if (ref.empty() || ref[0] == '-') return InvalidInput("--base \"" + ref + "\" is not a revision");
  AV_ASSIGN_OR_RETURN(std::string top,
                      RunSafeGit(runner, repo_dir, {"rev-parse", "--show-toplevel"}));
  top = TrimNewlines(top);
  AV_ASSIGN_OR_RETURN(std::string commit, RunSafeGit(runner, top,
                                                     {"rev-parse", "--verify", "--quiet",
                                                      "--end-of-options", ref + "^{commit}"}));
  commit = TrimNewlines(commit);
  std::string pattern =
      (std::filesystem::temp_directory_path() / "attnverify-base-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return IoError("cannot create a temporary folder for the base");
  std::string path = pattern + "/src";
  std::vector<std::string> filters = GitFilterDrivers(runner, top);
  auto added =
      RunSafeGit(runner, top, {"worktree", "add", "--detach", "--quiet", path, commit}, filters);
  if (!added.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(pattern, ec);
    return added.status();
  }
  return std::unique_ptr<GitWorktree>(new GitWorktree(runner, top, path, commit, pattern));
}

GitWorktree::~GitWorktree() {
  (void)RunSafeGit(runner_, toplevel_, {"worktree", "remove", "--force", path_});
  std::error_code ec;
  std::filesystem::remove_all(temp_root_, ec);
  (void)RunSafeGit(runner_, toplevel_, {"worktree", "prune"});
}

}  // namespace av
