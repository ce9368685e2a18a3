#include "review/git_diff.h"

#include <algorithm>

namespace av {
namespace {

std::string TrimNewline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// Runs git with the safe argv in `dir`; stdout on success, else InvalidInput naming git's
// complaint (a base that does not exist, a folder that is not a repository).
Result<std::string> RunSafeGit(ProcessRunner& runner, const std::string& dir, const std::vector<std::string>& args,
                               const std::vector<std::string>& filter_drivers = {}) {
  ProcessRequest req;
  req.argv = SafeGitDiffArgv(args, filter_drivers);
  req.cwd = dir;
  req.timeout_ms = 300'000;
  // A diff of a large refactor stays well under this; past it we refuse rather than cut.
  req.max_output_bytes = size_t{512} << 20;
  // No system config (it could name programs), no prompts, no pager, no index lock
  // taken for a read, and C-locale messages.
  req.extra_env = {{"GIT_CONFIG_NOSYSTEM", "1"},
                   {"GIT_TERMINAL_PROMPT", "0"},
                   {"GIT_PAGER", "cat"},
                   {"GIT_OPTIONAL_LOCKS", "0"},
                   {"LC_ALL", "C"}};
  AV_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(req));
  if (!r.ok()) {
    std::string cmd = "git";
    for (const std::string& a : args) cmd += " " + a;
    return InvalidInput(cmd + " (in " + dir + "): " + r.Describe() + ": " + TrimNewline(r.stderr_text.substr(0, 2000)));
  }
  if (r.stdout_truncated) return InvalidInput("git output in " + dir + " is larger than 512 MiB");
  return r.stdout_text;
}

// Names X of the repository's filter.X.{smudge,clean,process} settings: a work-tree diff
// runs the clean filter on changed files, so each is emptied on the command line.
std::vector<std::string> FilterDrivers(ProcessRunner& runner, const std::string& dir) {
  std::vector<std::string> names;
  auto out = RunSafeGit(runner, dir, {"config", "--get-regexp", "^filter\\..*\\.(smudge|clean|process)$"});
  if (!out.ok()) return names;  // exit 1: no such settings
  size_t pos = 0;
  while (pos < out->size()) {
    size_t nl = out->find('\n', pos);
    if (nl == std::string::npos) nl = out->size();
    std::string key = out->substr(pos, std::min(out->find(' ', pos), nl) - pos);
    pos = nl + 1;
    size_t first = key.find('.'), last = key.rfind('.');
    if (first == std::string::npos || last <= first) continue;
    std::string name = key.substr(first + 1, last - first - 1);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

}  // namespace

std::vector<std::string> SafeGitDiffArgv(const std::vector<std::string>& args,
                                         const std::vector<std::string>& filter_drivers) {
  std::vector<std::string> argv = {"git",
                                   "-c", "core.hooksPath=/dev/null",
                                   "-c", "core.fsmonitor=false",
                                   "-c", "core.untrackedCache=false",
                                   "-c", "core.pager=cat",
                                   "-c", "diff.external=",
                                   "-c", "diff.noprefix=false",
                                   "-c", "diff.mnemonicPrefix=false",
                                   "-c", "diff.relative=false",
                                   "-c", "diff.suppressBlankEmpty=false",
                                   "-c", "color.ui=false",
                                   "-c", "core.quotePath=true",
                                   "-c", "gc.auto=0",
                                   "-c", "maintenance.auto=false"};
  for (const std::string& d : filter_drivers) {
    for (const char* what : {"smudge", "clean", "process"}) {
      argv.push_back("-c");
      argv.push_back("filter." + d + "." + what + "=");
    }
    argv.push_back("-c");
    argv.push_back("filter." + d + ".required=false");
  }
  argv.push_back("--no-pager");
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Result<GitDiffOutput> RunGitDiff(ProcessRunner& runner, const GitDiffRequest& request) {
  if (request.base.empty() || request.base[0] == '-') {
    return InvalidInput("base \"" + request.base + "\" is not a revision");
  }
  GitDiffOutput out;
  AV_ASSIGN_OR_RETURN(std::string top, RunSafeGit(runner, request.repo_dir, {"rev-parse", "--show-toplevel"}));
  out.toplevel = TrimNewline(top);
  AV_ASSIGN_OR_RETURN(std::string base, RunSafeGit(runner, out.toplevel, {"rev-parse", "--verify", "--quiet",
                                                                         "--end-of-options",
                                                                         request.base + "^{commit}"}));
  out.base_commit = TrimNewline(base);
  std::vector<std::string> args = {"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--full-index",
                                   "-M", "--src-prefix=a/", "--dst-prefix=b/", "--unified=3",
                                   "--submodule=short", "--no-relative"};
  switch (request.mode) {
    case DiffMode::kCommit: {
      AV_ASSIGN_OR_RETURN(std::string head, RunSafeGit(runner, out.toplevel, {"rev-parse", "--verify", "--quiet",
                                                                             "--end-of-options", "HEAD^{commit}"}));
      out.head_commit = TrimNewline(head);
      args.push_back(out.base_commit);
      args.push_back(out.head_commit);
      break;
    }
    case DiffMode::kStaged:
      out.head_commit = "index";
      args.push_back("--cached");
      args.push_back(out.base_commit);
      break;
    case DiffMode::kWorktree:
      out.head_commit = "worktree";
      args.push_back(out.base_commit);
      break;
  }
  args.push_back("--");
  std::vector<std::string> filters = FilterDrivers(runner, out.toplevel);
  AV_ASSIGN_OR_RETURN(out.text, RunSafeGit(runner, out.toplevel, args, filters));
  return out;
}

}  // namespace av
