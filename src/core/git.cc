#include "core/git.h"

#include <algorithm>
#include <charconv>

#include "core/shell_quote.h"

namespace av {
namespace {

// Settings that switch off everything a repository's config can make git run or
// contact. `-c` beats every config file, included ones too.
const std::vector<std::string>& SafetySettings() {
  static const std::vector<std::string> kSettings = {
      "core.hooksPath=/dev/null",  // hooks (.git/hooks and any core.hooksPath)
      "core.fsmonitor=false",
      "core.untrackedCache=false",
      "core.pager=cat",
      "diff.external=",
      "protocol.allow=never",  // every transport: no fetch, lazy or not, no ssh, no http
      "credential.helper=",    // an empty value clears the helper list
      "core.askPass=",
      "log.showSignature=false",  // gpg.program would verify signed commits
      "submodule.recurse=false",
      "gc.auto=0",
      "maintenance.auto=false",
      "advice.detachedHead=false"};
  return kSettings;
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && *out >= 0;
}

}  // namespace

std::string TrimNewlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<std::string> SafeGitArgv(const std::vector<std::string>& args,
                                     const std::vector<std::string>& filter_drivers,
                                     const std::vector<std::string>& extra_config) {
  std::vector<std::string> argv = {"git"};
  for (const std::string& setting : SafetySettings()) {
    argv.push_back("-c");
    argv.push_back(setting);
  }
  for (const std::string& setting : extra_config) {
    argv.push_back("-c");
    argv.push_back(setting);
  }
  // An empty smudge/clean/process means "no filter" to git: a work-tree diff runs no
  // clean filter.
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

const std::map<std::string, std::string>& SafeGitEnvironment() {
  // No system config or attributes (they could name programs), no on-demand fetch of a
  // partial clone's missing objects (git >= 2.45; protocol.allow=never blocks it on older
  // ones), no prompts, no pager, no index lock taken for a read, C-locale messages.
  static const std::map<std::string, std::string> kEnv = {
      {"GIT_CONFIG_NOSYSTEM", "1"},    {"GIT_ATTR_NOSYSTEM", "1"},
      {"GIT_NO_LAZY_FETCH", "1"},      {"GIT_TERMINAL_PROMPT", "0"},
      {"GIT_PROTOCOL_FROM_USER", "0"}, {"GIT_PAGER", "cat"},
      {"GIT_OPTIONAL_LOCKS", "0"},     {"LC_ALL", "C"}};
  return kEnv;
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
  req.extra_env = SafeGitEnvironment();
  AV_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(req));
  if (!r.ok()) {
    std::vector<std::string> shown = {"git"};
    shown.insert(shown.end(), args.begin(), args.end());
    const std::string cmd = ShellJoin(shown);
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

Result<std::vector<GitTreeEntry>> ListGitTree(ProcessRunner& runner, const std::string& dir,
                                              const std::string& commit) {
  SafeGitOptions options;
  options.max_output_bytes = size_t{256} << 20;
  AV_ASSIGN_OR_RETURN(
      std::string out,
      RunSafeGit(runner, dir, {"ls-tree", "-r", "-l", "-z", "--full-tree", commit}, {}, options));
  std::vector<GitTreeEntry> entries;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\0', pos);
    if (end == std::string::npos) end = out.size();
    std::string_view rec(out.data() + pos, end - pos);
    pos = end + 1;
    // "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
    size_t tab = rec.find('\t');
    size_t s1 = rec.find(' ');
    size_t s2 = s1 == std::string_view::npos ? s1 : rec.find(' ', s1 + 1);
    size_t s3 = s2 == std::string_view::npos ? s2 : rec.find(' ', s2 + 1);
    if (tab == std::string_view::npos || s3 == std::string_view::npos || s3 > tab) {
      return InvalidInput("git ls-tree " + commit + ": unexpected line \"" +
                          std::string(rec.substr(0, 200)) + "\"");
    }
    GitTreeEntry e;
    e.mode = std::string(rec.substr(0, s1));
    e.type = std::string(rec.substr(s1 + 1, s2 - s1 - 1));
    e.object = std::string(rec.substr(s2 + 1, s3 - s2 - 1));
    std::string_view size = rec.substr(s3 + 1, tab - s3 - 1);
    while (!size.empty() && size.front() == ' ') size.remove_prefix(1);
    if (size != "-" && !ParseInt64(size, &e.size)) {
      return InvalidInput("git ls-tree " + commit + ": bad size in \"" +
                          std::string(rec.substr(0, 200)) + "\"");
    }
    e.path = std::string(rec.substr(tab + 1));
    entries.push_back(std::move(e));
  }
  return entries;
}

Result<std::vector<std::string>> ReadGitBlobsById(ProcessRunner& runner, const std::string& dir,
                                                  const std::vector<std::string>& ids,
                                                  const std::vector<int64_t>& sizes) {
  constexpr size_t kIdsPerCall = 2000;  // well under the argv limit
  constexpr int64_t kBytesPerCall = int64_t{256} << 20;
  if (ids.size() != sizes.size()) return Internal("ReadGitBlobsById: ids and sizes differ");
  std::vector<std::string> blobs;
  blobs.reserve(ids.size());
  size_t i = 0;
  while (i < ids.size()) {
    std::vector<std::string> args = {"show", "--no-textconv", "--no-color"};
    int64_t total = 0;
    size_t j = i;
    while (j < ids.size() && j - i < kIdsPerCall && (j == i || total + sizes[j] <= kBytesPerCall)) {
      const std::string& id = ids[j];
      bool hex = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      });
      if (!hex || sizes[j] < 0) {
        return InvalidInput(std::string("\"").append(id, 0, 80).append("\" is not a blob id with a size"));
      }
      args.push_back(id + "^{blob}");
      total += sizes[j];
      ++j;
    }
    SafeGitOptions options;
    options.max_output_bytes = static_cast<size_t>(total) + 1;
    AV_ASSIGN_OR_RETURN(std::string out, RunSafeGit(runner, dir, args, {}, options));
    if (static_cast<int64_t>(out.size()) != total) {
      return InvalidInput("git show in " + dir + " printed " + std::to_string(out.size()) +
                          " bytes for blobs of " + std::to_string(total) + " bytes");
    }
    size_t at = 0;
    for (size_t k = i; k < j; ++k) {
      blobs.push_back(out.substr(at, static_cast<size_t>(sizes[k])));
      at += static_cast<size_t>(sizes[k]);
    }
    i = j;
  }
  return blobs;
}

}  // namespace av
