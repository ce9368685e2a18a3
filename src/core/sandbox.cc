#include "core/sandbox.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace av {
namespace {

namespace fs = std::filesystem;

// The namespaces and mounts every sandbox gets (BwrapArgv's fixed part).
std::vector<std::string> BaseArgs(const std::string& bwrap) {
  std::vector<std::string> a = {bwrap,
                                // attnverify's death kills the sandbox (PR_SET_PDEATHSIG)
                                "--die-with-parent",
                                // no network; own pids: its pid 1 takes every process down
                                "--unshare-net", "--unshare-pid",
                                // a new session: no ioctl on attnverify's terminal
                                "--new-session",
                                // the machine as it is: toolchain, python, caches, /tmp
                                "--bind", "/", "/",
                                // a fresh /dev (null, zero, urandom, shm, pts), /proc of the
                                // new pid namespace
                                "--dev", "/dev", "--proc", "/proc"};
  for (const std::string& node : GpuDeviceNodes()) {
    a.insert(a.end(), {"--dev-bind", node, node});
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
  for (const std::string& p : spec.read_only) a.insert(a.end(), {"--ro-bind", p, p});
  for (const std::string& p : spec.writable) a.insert(a.end(), {"--bind", p, p});
  if (!spec.cwd.empty()) a.insert(a.end(), {"--chdir", spec.cwd});
  a.push_back("--");
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
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
  req.argv = BwrapArgv(bwrap, {{"/tmp"}, {}, "/"}, {true_path.empty() ? "/bin/true" : true_path});
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
