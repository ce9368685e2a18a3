#include "evidence/git_worktree.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace av {
namespace {

std::string TrimNewline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// Names X of the repository's filter.X.{smudge,clean,process} settings.
std::vector<std::string> FilterDrivers(ProcessRunner& runner, const std::string& dir) {
  std::vector<std::string> names;
  auto out = RunGit(runner, dir, {"config", "--get-regexp", "^filter\\..*\\.(smudge|clean|process)$"});
  if (!out.ok()) return names;  // exit 1: no such settings
  size_t pos = 0;
  while (pos < out->size()) {
    size_t nl = out->find('\n', pos);
    if (nl == std::string::npos) nl = out->size();
    std::string key = out->substr(pos, out->find(' ', pos) - pos);
    pos = nl + 1;
    size_t first = key.find('.'), last = key.rfind('.');
    if (first == std::string::npos || last <= first) continue;
    std::string name = key.substr(first + 1, last - first - 1);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

}  // namespace

std::vector<std::string> SafeGitArgv(const std::vector<std::string>& args,
                                     const std::vector<std::string>& filter_drivers) {
  std::vector<std::string> argv = {"git",
                                   "-c", "core.hooksPath=/dev/null",
                                   "-c", "core.fsmonitor=false",
                                   "-c", "core.untrackedCache=false",
                                   "-c", "diff.external=",
                                   "-c", "gc.auto=0",
                                   "-c", "maintenance.auto=false",
                                   "-c", "advice.detachedHead=false"};
  // An empty smudge/clean/process means "no filter" to git; the checkout then holds the
  // blobs as committed (an LFS pointer stays a pointer, and the build says so).
  for (const std::string& d : filter_drivers) {
    for (const char* what : {"smudge", "clean", "process"}) {
      argv.push_back("-c");
      argv.push_back("filter." + d + "." + what + "=");
    }
    argv.push_back("-c");
    argv.push_back("filter." + d + ".required=false");
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Result<std::string> RunGit(ProcessRunner& runner, const std::string& dir, const std::vector<std::string>& args,
                           const std::vector<std::string>& filter_drivers) {
  ProcessRequest req;
  req.argv = SafeGitArgv(args, filter_drivers);
  req.cwd = dir;
  req.timeout_ms = 300'000;
  // No system config, no prompts: a checkout must not ask for credentials.
  req.extra_env = {{"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_TERMINAL_PROMPT", "0"}};
  AV_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(req));
  if (!r.ok()) {
    std::string cmd = "git";
    for (const std::string& a : args) cmd += " " + a;
    return InvalidInput(cmd + " (in " + dir + "): " + r.Describe() + ": " +
                        TrimNewline(r.stderr_text.substr(0, 2000)));
  }
  return r.stdout_text;
}

Result<std::unique_ptr<GitWorktree>> GitWorktree::Create(ProcessRunner& runner, const std::string& repo_dir,
                                                         const std::string& ref) {
  if (ref.empty() || ref[0] == '-') return InvalidInput("--base \"" + ref + "\" is not a revision");
  AV_ASSIGN_OR_RETURN(std::string top, RunGit(runner, repo_dir, {"rev-parse", "--show-toplevel"}));
  top = TrimNewline(top);
  AV_ASSIGN_OR_RETURN(std::string commit,
                      RunGit(runner, top, {"rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"}));
  commit = TrimNewline(commit);
  std::string pattern = (std::filesystem::temp_directory_path() / "attnverify-base-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return IoError("cannot create a temporary folder for the base");
  std::string path = pattern + "/src";
  std::vector<std::string> filters = FilterDrivers(runner, top);
  auto added = RunGit(runner, top, {"worktree", "add", "--detach", "--quiet", path, commit}, filters);
  if (!added.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(pattern, ec);
    return added.status();
  }
  return std::unique_ptr<GitWorktree>(new GitWorktree(runner, top, path, commit, pattern));
}

GitWorktree::~GitWorktree() {
  (void)RunGit(runner_, toplevel_, {"worktree", "remove", "--force", path_});
  std::error_code ec;
  std::filesystem::remove_all(temp_root_, ec);
  (void)RunGit(runner_, toplevel_, {"worktree", "prune"});
}

}  // namespace av
