#include "core/sandbox.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/seal_key.h"

namespace av {
namespace {

namespace fs = std::filesystem;

constexpr const char* kReportPrefix = "\nattnverify-sandbox: leftover_processes=";

// Runs the program ("$@") in the foreground, then counts the processes of the sandbox's
// pid namespace other than bwrap's init (1), itself and zombies; kills them all
// (kill -1: every process but init and the caller); waits until they are gone, so that no
// one writes after it; and reports the count as stderr's last line. Builtins only (dash):
// nothing it runs after the program is a process to count.
constexpr const char* kCountingShell =
    // Caches that tools keep under $HOME (read-only here) go to the private /tmp, unless
    // the candidate's environment names a place already.
    ": \"${XDG_CACHE_HOME:=/tmp/.cache}\" \"${TRITON_CACHE_DIR:=/tmp/.triton/cache}\" "
    "\"${CUDA_CACHE_PATH:=/tmp/.nv/ComputeCache}\" \"${DG_JIT_CACHE_DIR:=/tmp/.deep_gemm}\"\n"
    "export XDG_CACHE_HOME TRITON_CACHE_DIR CUDA_CACHE_PATH DG_JIT_CACHE_DIR\n"
    "\"$@\"; rc=$?\n"
    "live() { n=0; for p in /proc/[0-9]*; do p=${p#/proc/}\n"
    "  [ \"$p\" = 1 ] || [ \"$p\" = $$ ] || { s=; { read -r s < /proc/$p/stat; } 2>/dev/null\n"
    "    s=${s##*) }; s=${s%% *}; [ \"$s\" = Z ] || [ \"$s\" = X ] || [ -z \"$s\" ] || "
    "n=$((n+1)); }\n"
    "done; }\n"
    "live; left=$n\n"
    "i=0; while [ $n -gt 0 ] && [ $i -lt 2000 ]; do kill -9 -1 2>/dev/null; live; "
    "i=$((i+1)); done\n"
    "printf '\\nattnverify-sandbox: leftover_processes=%d\\n' \"$left\" >&2\n"
    "exit $rc\n";
constexpr const char* kShellName = "attnverify-sandbox";

bool Inside(const std::string& path, const std::string& dir) {
  const fs::path rel = fs::path(path).lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

bool InsideAny(const std::string& path, const std::vector<std::string>& dirs) {
  return std::any_of(dirs.begin(), dirs.end(),
                     [&](const std::string& d) { return Inside(path, d); });
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

bool IsDir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// The namespaces and mounts every sandbox gets (BwrapArgv's fixed part).
std::vector<std::string> BaseArgs(const std::string& bwrap) {
  std::vector<std::string> a = {bwrap,
                                // attnverify's death kills the sandbox (PR_SET_PDEATHSIG)
                                "--die-with-parent",
                                // no network; own pids: its pid 1 takes every process down
                                "--unshare-net", "--unshare-pid",
                                // a new session: no ioctl on attnverify's terminal
                                "--new-session",
                                // no capabilities, even for root: nothing may remount the
                                // read-only binds writable
                                "--cap-drop", "ALL",
                                // the machine as it is, read-only: nothing on PATH, in
                                // $HOME or in the host's /tmp can be planted or changed
                                "--ro-bind", "/", "/",
                                // a fresh /dev (null, zero, urandom, shm, pts), /proc of the
                                // new pid namespace
                                "--dev", "/dev", "--proc", "/proc"};
  for (const std::string& node : GpuDeviceNodes()) {
    a.insert(a.end(), {"--dev-bind", node, node});
  }
  // A private /tmp, gone with the sandbox. $HOME stays where it is (read-only): pyenv,
  // conda and the like find their interpreters through it.
  a.insert(a.end(), {"--tmpfs", "/tmp"});
  // The run-seal key is attnverify's alone.
  const std::string key = SealKeyPath();
  struct stat st;
  if (!key.empty() && ::stat(key.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    a.insert(a.end(), {"--ro-bind", "/dev/null", key});
  }
  return a;
}

}  // namespace

std::vector<std::string> GpuDeviceNodes() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/dev", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("nvidia", 0) == 0 || name == "dri") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> BwrapArgv(const std::string& bwrap, const SandboxSpec& spec,
                                   const std::vector<std::string>& argv) {
  std::vector<std::string> a = BaseArgs(bwrap);
  const std::string home = Env("HOME");
  // Folders the private /tmp would hide, bound back read-only (a checkout or build under
  // /tmp): the program's, every absolute path the command names (a script given to
  // python3), and attnverify's own (the build folder, where example candidates live).
  std::vector<std::string> shown;
  auto show = [&](const std::string& dir) {
    if (dir.empty() || !Inside(dir, "/tmp") || fs::path(dir) == "/tmp") return;
    if (InsideAny(dir, spec.read_only) || InsideAny(dir, shown)) return;
    if (!spec.cwd.empty() && Inside(dir, spec.cwd)) return;
    if (!IsDir(dir)) return;
    shown.push_back(dir);
    a.insert(a.end(), {"--ro-bind", dir, dir});
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].empty() || argv[i][0] != '/') continue;
    show(IsDir(argv[i]) ? argv[i] : fs::path(argv[i]).parent_path().string());
  }
  std::error_code self_ec;
  show(fs::read_symlink("/proc/self/exe", self_ec).parent_path().string());
  // The working folder outside the package: writable (prepare builds there), but its
  // .git stays read-only (no hooks planted). Never / or $HOME or above it.
  if (!spec.cwd.empty() && !InsideAny(spec.cwd, spec.read_only) && IsDir(spec.cwd)) {
    const bool too_wide =
        fs::path(spec.cwd) == "/" ||
        (!home.empty() && (Inside(home, spec.cwd) || fs::path(home) == fs::path(spec.cwd)));
    if (!too_wide) {
      a.insert(a.end(), {"--bind", spec.cwd, spec.cwd});
      const std::string git = (fs::path(spec.cwd) / ".git").string();
      std::error_code ec;
      if (fs::exists(git, ec)) a.insert(a.end(), {"--ro-bind", git, git});
    } else if (Inside(spec.cwd, "/tmp")) {
      a.insert(a.end(), {"--ro-bind", spec.cwd, spec.cwd});
    }
  }
  for (const std::string& p : spec.read_only) a.insert(a.end(), {"--ro-bind", p, p});
  for (const std::string& p : spec.writable) a.insert(a.end(), {"--bind", p, p});
  a.insert(a.end(), {"--setenv", "TMPDIR", "/tmp"});
  if (!spec.cwd.empty()) a.insert(a.end(), {"--chdir", spec.cwd});
  a.insert(a.end(), {"--", "/bin/sh", "-c", kCountingShell, kShellName});
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

bool IsSandboxArgv(const std::vector<std::string>& argv) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == kCountingShell && argv[i + 1] == kShellName) return true;
  }
  return false;
}

void ApplySandboxReport(ProcessResult* result) {
  std::string& err = result->stderr_text;
  const size_t at = err.rfind(kReportPrefix);
  const bool last_line = at != std::string::npos && err.find('\n', at + 1) + 1 == err.size();
  // Unknown reads 0: the count is evidence against the candidate, never for it.
  result->leftover_processes = 0;
  if (result->stderr_truncated || !last_line) return;
  const std::string digits = err.substr(at + std::string(kReportPrefix).size());
  char* end = nullptr;
  const long n = std::strtol(digits.c_str(), &end, 10);
  if (end == digits.c_str() || *end != '\n' || n < 0) return;
  result->leftover_processes = static_cast<int>(std::min(n, 1L << 20));
  err.resize(at);
}

Result<std::string> FindWorkingBwrap(ProcessRunner& runner) {
  static std::mutex mu;
  static bool probed = false;
  static Result<std::string> answer = NotFound("not probed");
  std::lock_guard<std::mutex> lock(mu);
  if (probed) return answer;
  probed = true;
  const std::string bwrap = FindExecutable("bwrap");
  if (bwrap.empty()) {
    answer = NotFound("bwrap (Debian bubblewrap) is not installed");
    return answer;
  }
  const std::string true_path = FindExecutable("true");
  ProcessRequest req;
  req.argv = BwrapArgv(bwrap, {{}, {}, "/"}, {true_path.empty() ? "/bin/true" : true_path});
  req.timeout_ms = 20'000;
  req.max_output_bytes = 4096;
  Result<ProcessResult> r = runner.Run(req);
  if (!r.ok()) {
    answer = IoError("bwrap cannot start: " + r.status().message());
  } else if (!r->ok()) {
    std::string why = r->stderr_text;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    answer = IoError("bwrap cannot create its sandbox here (" + r->Describe() +
                     (why.empty() ? "" : ": " + why) +
                     "); user namespaces may be disabled in this container");
  } else {
    answer = bwrap;
  }
  return answer;
}

}  // namespace av
