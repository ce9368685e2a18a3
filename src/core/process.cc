#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace av {
namespace {

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string FindInPath(const std::string& name, const std::string& path_var) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return IsExecutableFile(name) ? name : "";
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

// Closes a descriptor on every return path.
struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

int64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// Appends what a read returned, keeping at most `cap` bytes.
void Keep(std::string* out, bool* truncated, const char* data, size_t n, size_t cap) {
  size_t room = out->size() < cap ? cap - out->size() : 0;
  out->append(data, std::min(room, n));
  if (n > room) *truncated = true;
}

}  // namespace

std::string ProcessResult::Describe() const {
  if (timed_out) return "timed out after " + std::to_string(wall_ms / 1000) + " s";
  if (term_signal != 0) return "killed by signal " + std::to_string(term_signal);
  if (exited) return "exit " + std::to_string(exit_code);
  return "did not run";
}

const std::vector<std::string>& EnvAllowlist() {
  static const std::vector<std::string> kAllow = {"PATH",
                                                  "HOME",
                                                  "TMPDIR",
                                                  "LANG",
                                                  "LC_ALL",
                                                  "LC_CTYPE",
                                                  "TERM",
                                                  "USER",
                                                  "CUDA_HOME",
                                                  "CUDA_PATH",
                                                  "LD_LIBRARY_PATH",
                                                  "NVCC_PREPEND_FLAGS",
                                                  "NVCC_APPEND_FLAGS",
                                                  "CUDA_CACHE_PATH",
                                                  "CUDA_CACHE_DISABLE",
                                                  "SOURCE_DATE_EPOCH"};
  return kAllow;
}

std::vector<std::string> ScrubEnvironment(const std::map<std::string, std::string>& current,
                                          const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> kept;
  for (const std::string& name : EnvAllowlist()) {
    auto it = current.find(name);
    if (it != current.end()) kept[name] = it->second;
  }
  for (const auto& [name, value] : extra) kept[name] = value;
  std::vector<std::string> out;
  out.reserve(kept.size());
  for (const auto& [name, value] : kept) out.push_back(name + "=" + value);
  return out;
}

std::string FindExecutable(const std::string& name) {
  const char* path = std::getenv("PATH");
  return FindInPath(name, path ? path : "/usr/local/bin:/usr/bin:/bin");
}

ProcessResult MakeExitedResult(int code, std::string stdout_text, std::string stderr_text) {
  ProcessResult r;
  r.exited = true;
  r.exit_code = code;
  r.stdout_text = std::move(stdout_text);
  r.stderr_text = std::move(stderr_text);
  return r;
}

Result<ProcessResult> PosixProcessRunner::Run(const ProcessRequest& request) {
  if (request.argv.empty()) return InvalidInput("process: empty argv");
  std::map<std::string, std::string> current = CurrentEnvironment();
  std::vector<std::string> env = ScrubEnvironment(current, request.extra_env);
  std::string path_var;
  for (const std::string& kv : env) {
    if (kv.rfind("PATH=", 0) == 0) path_var = kv.substr(5);
  }
  // "build/tool" with a cwd means the tool in that folder, as a shell started there would
  // run it; posix_spawn would resolve it against our own folder instead.
  std::string name = request.argv[0];
  if (!request.cwd.empty() && name.find('/') != std::string::npos && name.front() != '/') {
    name = request.cwd + "/" + name;
  }
  std::string program = FindInPath(name, path_var);
  if (program.empty()) {
    return NotFound(request.argv[0] + ": not found" +
                    (request.argv[0].find('/') == std::string::npos ? " in PATH"
                     : name != request.argv[0]                      ? " (looked for " + name + ")"
                                                                    : ""));
  }

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return IoError(std::string("pipe: ") + std::strerror(errno));
  Fd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0)
    return IoError(std::string("pipe: ") + std::strerror(errno));
  Fd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  if (!request.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so a timeout kills nvcc's children (cicc, ptxas) too; default
  // signal dispositions and an empty mask, whatever the parent had.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const std::string& a : request.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv[0] = const_cast<char*>(program.c_str());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& kv : env) envp.push_back(const_cast<char*>(kv.c_str()));
  envp.push_back(nullptr);

  int64_t start = NowMs();
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::string why = std::strerror(rc);
    if (rc == ENOENT && !request.cwd.empty()) why += " (or the folder " + request.cwd + ")";
    return IoError(request.argv[0] + ": cannot start: " + why);
  }
  out_w.Close();
  err_w.Close();

  ProcessResult result;
  int64_t deadline = start + std::max(request.timeout_ms, 1);
  bool killed = false;
  int64_t kill_time = 0;
  char buf[65536];
  while (out_r.fd >= 0 || err_r.fd >= 0) {
    int64_t now = NowMs();
    if (!killed && now >= deadline) {
      ::kill(-pid, SIGKILL);
      killed = true;
      kill_time = now;
      result.timed_out = true;
    }
    // After the kill, a grandchild that left our group may still hold a pipe: give up
    // reading after 2 s rather than hang.
    if (killed && now - kill_time > 2000) break;
    int wait_ms = static_cast<int>(killed ? 100 : std::min<int64_t>(deadline - now, 1000));
    pollfd fds[2];
    int nfds = 0;
    if (out_r.fd >= 0) fds[nfds++] = {out_r.fd, POLLIN, 0};
    if (err_r.fd >= 0) fds[nfds++] = {err_r.fd, POLLIN, 0};
    int ready = ::poll(fds, nfds, std::max(wait_ms, 1));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < nfds; ++i) {
      if (fds[i].revents == 0) continue;
      bool is_out = fds[i].fd == out_r.fd;
      ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        (is_out ? out_r : err_r).Close();
        continue;
      }
      if (is_out) {
        Keep(&result.stdout_text, &result.stdout_truncated, buf, n, request.max_output_bytes);
      } else {
        Keep(&result.stderr_text, &result.stderr_truncated, buf, n, request.max_output_bytes);
      }
    }
  }
  // A child that closed its pipes early is still held to the deadline.
  int status = 0;
  while (true) {
    pid_t done = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (done == 0) {
      if (NowMs() >= deadline) {
        ::kill(-pid, SIGKILL);
        killed = true;
        result.timed_out = true;
      } else {
        ::usleep(10'000);
      }
    }
  }
  result.wall_ms = NowMs() - start;
  if (WIFEXITED(status) && !result.timed_out) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace av
