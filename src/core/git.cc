#include "core/git.h"

#include <algorithm>

namespace av {

std::string TrimNewlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<std::string> SafeGitArgv(const std::vector<std::string>& args,
                                     const std::vector<std::string>& filter_drivers,
                                     const std::vector<std::string>& extra_config) {
  std::vector<std::string> argv = {"git",
                                   "-c",
                                   "core.hooksPath=/dev/null",
                                   "-c",
                                   "core.fsmonitor=false",
                                   "-c",
                                   "core.untrackedCache=false",
                                   "-c",
                                   "core.pager=cat",
                                   "-c",
                                   "diff.external=",
                                   "-c",
                                   "gc.auto=0",
                                   "-c",
                                   "maintenance.auto=false",
                                   "-c",
                                   "advice.detachedHead=false"};
  for (const std::string& setting : extra_config) {
    argv.push_back("-c");
    argv.push_back(setting);
  }
  // An empty smudge/clean/process means "no filter" to git: a checkout holds the blobs as
  // committed (an LFS pointer stays a pointer), a work-tree diff runs no clean filter.
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

Result<std::string> RunSafeGit(ProcessRunner& runner, const std::string& dir,
                               const std::vector<std::string>& args,
                               const std::vector<std::string>& filter_drivers,
                               const SafeGitOptions& options) {
  ProcessRequest req;
  req.argv = SafeGitArgv(args, filter_drivers, options.config);
  req.cwd = dir;
  req.timeout_ms = options.timeout_ms;
  req.max_output_bytes = options.max_output_bytes;
  // No system config (it could name programs), no prompts (a checkout must not ask for
  // credentials), no pager, no index lock taken for a read, C-locale messages.
  req.extra_env = {{"GIT_CONFIG_NOSYSTEM", "1"},
                   {"GIT_TERMINAL_PROMPT", "0"},
                   {"GIT_PAGER", "cat"},
                   {"GIT_OPTIONAL_LOCKS", "0"},
                   {"LC_ALL", "C"}};
  AV_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(req));
  if (!r.ok()) {
    std::string cmd = "git";
    for (const std::string& a : args) cmd += " " + a;
    return InvalidInput(cmd + " (in " + dir + "): " + r.Describe() + ": " +
                        TrimNewlines(r.stderr_text.substr(0, 2000)));
  }
  if (r.stdout_truncated) {
    return InvalidInput("git output in " + dir + " is larger than " +
                        std::to_string(options.max_output_bytes >> 20) + " MiB");
  }
  return r.stdout_text;
}

Result<std::string> ReadGitBlob(ProcessRunner& runner, const std::string& dir,
                                const std::string& rev, const std::string& path, size_t max_bytes) {
  if (path.empty() || path[0] == '/' || path.find('\n') != std::string::npos) {
    return InvalidInput("\"" + path + "\" is not a repository path");
  }
  for (char c : rev) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!hex) return InvalidInput("\"" + rev + "\" is not a commit id");
  }
  // "REV:PATH" never starts with '-', so it cannot be read as an option. protocol.allow=never:
  // a blob missing from a partial clone is an error, not a fetch that runs a remote helper.
  SafeGitOptions options;
  options.config = {"protocol.allow=never", "core.quotePath=true"};
  options.max_output_bytes = max_bytes;
  options.timeout_ms = 60'000;
  const std::string object = rev + ":" + path;
  Result<std::string> blob = RunSafeGit(runner, dir, {"cat-file", "blob", object}, {}, options);
  if (!blob.ok() && blob.status().message().find("larger than") == std::string::npos) {
    // A path missing at that revision, or not a file there (a folder, a submodule).
    return NotFound(path + " is not a file at " + (rev.empty() ? "the index" : rev) + ": " +
                    blob.status().message());
  }
  return blob;
}

std::vector<std::string> GitFilterDrivers(ProcessRunner& runner, const std::string& dir) {
  std::vector<std::string> names;
  auto out =
      RunSafeGit(runner, dir, {"config", "--get-regexp", "^filter\\..*\\.(smudge|clean|process)$"});
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

}  // namespace av
