#include "diff/git_diff.h"

#include "core/git.h"

namespace av {
namespace {

// Settings that make `git diff` print what ParseUnifiedDiff reads, whatever the user's
// config says (prefixes, quoting, colour, relative paths).
const std::vector<std::string>& DiffConfig() {
  static const std::vector<std::string> kConfig = {
      "diff.noprefix=false", "diff.mnemonicPrefix=false",
      "diff.relative=false", "diff.suppressBlankEmpty=false",
      "color.ui=false",      "core.quotePath=true"};
  return kConfig;
}

Result<std::string> RunDiffGit(ProcessRunner& runner, const std::string& dir,
                               const std::vector<std::string>& args,
                               const std::vector<std::string>& filter_drivers = {}) {
  SafeGitOptions options;
  options.config = DiffConfig();
  // A diff of a large refactor stays well under this; past it we refuse rather than cut.
  options.max_output_bytes = size_t{512} << 20;
  return RunSafeGit(runner, dir, args, filter_drivers, options);
}

}  // namespace

std::vector<std::string> SafeGitDiffArgv(const std::vector<std::string>& args,
                                         const std::vector<std::string>& filter_drivers) {
  return SafeGitArgv(args, filter_drivers, DiffConfig());
}

Result<GitDiffOutput> RunGitDiff(ProcessRunner& runner, const GitDiffRequest& request) {
  if (request.base.empty() || request.base[0] == '-') {
    return InvalidInput("base \"" + request.base + "\" is not a revision");
  }
  GitDiffOutput out;
  AV_ASSIGN_OR_RETURN(std::string top,
                      RunDiffGit(runner, request.repo_dir, {"rev-parse", "--show-toplevel"}));
  out.toplevel = TrimNewlines(top);
  AV_ASSIGN_OR_RETURN(std::string base,
                      RunDiffGit(runner, out.toplevel,
                                 {"rev-parse", "--verify", "--quiet", "--end-of-options",
                                  request.base + "^{commit}"}));
  out.base_commit = TrimNewlines(base);
  std::vector<std::string> args = {
      "diff",         "--no-ext-diff",   "--no-textconv",   "--no-color",  "--full-index",
      "-M",           "--src-prefix=a/", "--dst-prefix=b/", "--unified=3", "--submodule=short",
      "--no-relative"};
  switch (request.mode) {
    case DiffMode::kCommit: {
      AV_ASSIGN_OR_RETURN(std::string head, RunDiffGit(runner, out.toplevel,
                                                       {"rev-parse", "--verify", "--quiet",
                                                        "--end-of-options", "HEAD^{commit}"}));
      out.head_commit = TrimNewlines(head);
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
  std::vector<std::string> filters = GitFilterDrivers(runner, out.toplevel);
  AV_ASSIGN_OR_RETURN(out.text, RunDiffGit(runner, out.toplevel, args, filters));
  return out;
}

}  // namespace av
