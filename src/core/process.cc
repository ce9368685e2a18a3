#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include "core/process_tree.h"
#include "core/sandbox.h"

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
    // An empty PATH entry is the current folder.
    std::string candidate = end == start ? std::string(".") : path_var.substr(start, end - start);
    candidate += '/';
    candidate += name;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

// The reapers alive now. Their pids are the only children attnverify expects; any other
// child was handed to us when its reaper died and is killed (SweepOrphans). The mutex is
// held across fork() and the insert, so a sweep never sees a reaper not yet listed.
std::mutex& ReaperMutex() {
  static std::mutex mu;
  return mu;
}
std::set<pid_t>& LiveReapers() {
  static std::set<pid_t> reapers;
  return reapers;
}

// Kills and reaps every child of this process that is not a live reaper: what a killed
// reaper's program left behind (they came to us as the subreaper).
void SweepOrphans() {
  std::lock_guard<std::mutex> lock(ReaperMutex());
  const pid_t self = ::getpid();
  for (int round = 0; round < 5000; ++round) {
    pid_t kids[256];
    const int n = process_tree::ListChildren(self, kids, 256);
    int others = 0;
    for (int i = 0; i < n && i < 256; ++i) {
      if (LiveReapers().count(kids[i]) != 0) continue;
      ++others;
      ::kill(kids[i], SIGKILL);
      int st;
      ::waitpid(kids[i], &st, WNOHANG | __WALL);
    }
    if (others == 0) return;
    ::usleep(1000);
  }
}

// Closes a descriptor on every return path.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Close();
      fd = o.fd;
      o.fd = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
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
  static const std::vector<std::string> kAllow = {
      "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "USER", "CUDA_HOME",
      "CUDA_PATH", "LD_LIBRARY_PATH", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "CUDA_CACHE_PATH",
      "CUDA_CACHE_DISABLE", "SOURCE_DATE_EPOCH",
      // core/package_lock.h: a stage of `run`
      // knows its parent holds the lock
      "ATTNVERIFY_PACKAGE_LOCK",
      // core/seal_key.h: the stages and the report that `run` starts seal and check
      // evidence/run.json with the same key as `run` (the sandbox hides the key itself)
      "ATTNVERIFY_KEY_FILE", "XDG_STATE_HOME"};
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

void InitProcessGuards() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int fd = 0; fd < 3; ++fd) {
      if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
        int null_fd = ::open("/dev/null", O_RDWR);
        if (null_fd >= 0 && null_fd != fd) {
          ::dup2(null_fd, fd);
          ::close(null_fd);
        }
      }
    }
    ::signal(SIGXFSZ, SIG_IGN);
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  });
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

Result<std::string> ResolveProgram(const std::string& argv0, const std::string& cwd,
                                   const std::map<std::string, std::string>& extra_env) {
  std::vector<std::string> env = ScrubEnvironment(CurrentEnvironment(), extra_env);
  std::string path_var;
  for (const std::string& kv : env) {
    if (kv.rfind("PATH=", 0) == 0) path_var = kv.substr(5);
  }
  // "build/tool" with a cwd means the tool in that folder, as a shell started there would
  // run it; execve would resolve it against our own folder instead.
  std::string name = argv0;
  if (!cwd.empty() && name.find('/') != std::string::npos && name.front() != '/') {
    name = cwd + "/" + name;
  }
  std::string program = FindInPath(name, path_var);
  if (program.empty()) {
    return NotFound(argv0 + ": not found" +
                    (argv0.find('/') == std::string::npos ? " in PATH"
                     : name != argv0                      ? " (looked for " + name + ")"
                                                          : ""));
  }
  return program;
}

PosixProcessRunner::PosixProcessRunner() { InitProcessGuards(); }

namespace {

// The reaper's report, read once it has exited; kind 0 when it died without one.
process_tree::ShimReport ReadReport(int fd) {
  process_tree::ShimReport report;
  char* p = reinterpret_cast<char*>(&report);
  size_t got = 0;
  while (got < sizeof(report)) {
    ssize_t n = ::read(fd, p + got, sizeof(report) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got != sizeof(report)) report = process_tree::ShimReport();
  return report;
}

// The three pipes between attnverify and the reaper: the program's stdout and stderr, and
// the reaper's report of how the program ended.
struct ChildPipes {
  Fd out_r, out_w, err_r, err_w, status_r, status_w;
};

Result<ChildPipes> OpenChildPipes() {
  ChildPipes p;
  Fd* ends[3][2] = {{&p.out_r, &p.out_w}, {&p.err_r, &p.err_w}, {&p.status_r, &p.status_w}};
  for (auto& end : ends) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return IoError(std::string("pipe: ") + std::strerror(errno));
    end[0]->fd = fds[0];
    end[1]->fd = fds[1];
  }
  return p;
}

// Everything the reaper uses, built before fork(): between fork() and _exit() it may not
// allocate. The plan points into the vectors, so it lives as long as this does.
struct ShimArguments {
  std::vector<char*> argv, envp;
  process_tree::ShimPlan plan;
};

void BuildShimPlan(const ProcessRequest& request, const std::string& program,
                   const std::vector<std::string>& env, const ChildPipes& pipes,
                   ShimArguments* a) {
  for (const std::string& arg : request.argv) a->argv.push_back(const_cast<char*>(arg.c_str()));
  a->argv[0] = const_cast<char*>(program.c_str());
  a->argv.push_back(nullptr);
  for (const std::string& kv : env) a->envp.push_back(const_cast<char*>(kv.c_str()));
  a->envp.push_back(nullptr);
  a->plan.program = program.c_str();
  a->plan.argv = a->argv.data();
  a->plan.envp = a->envp.data();
  a->plan.cwd = request.cwd.empty() ? nullptr : request.cwd.c_str();
  a->plan.stdout_fd = pipes.out_w.fd;
  a->plan.stderr_fd = pipes.err_w.fd;
  a->plan.status_fd = pipes.status_w.fd;
  a->plan.parent = ::getpid();
}

// One running reaper: reads its program's output until both pipes close and holds it to
// the deadline (SIGTERM to the reaper, which kills the tree; SIGKILL to the reaper itself
// 2 s later, and then the sweep kills what it left).
class ReaperWatch {
 public:
  ReaperWatch(pid_t reaper, int64_t deadline, const ProcessRequest& request,
              ProcessResult* result)
      : reaper_(reaper), deadline_(deadline), request_(request), result_(result) {}

  void PumpOutput(Fd& out_r, Fd& err_r);
  int WaitForReaper();  // the reaper's wait status

 private:
  void EnforceDeadline(int64_t now);
  void PollReaper(int64_t now);

  pid_t reaper_;
  int64_t deadline_;
  const ProcessRequest& request_;
  ProcessResult* result_;
  bool stop_sent_ = false, kill_sent_ = false, reaper_done_ = false;
  int64_t stop_time_ = 0, reaper_done_time_ = 0;
  int reaper_status_ = 0;
};

void ReaperWatch::EnforceDeadline(int64_t now) {
  if (!stop_sent_ && now >= deadline_) {
    ::kill(reaper_, SIGTERM);
    stop_sent_ = true;
    stop_time_ = now;
    result_->timed_out = true;
  } else if (stop_sent_ && !kill_sent_ && now - stop_time_ > 2000) {
    ::kill(reaper_, SIGKILL);
    kill_sent_ = true;
  }
}

void ReaperWatch::PollReaper(int64_t now) {
  if (reaper_done_) return;
  if (::waitpid(reaper_, &reaper_status_, WNOHANG | __WALL) == reaper_) {
    reaper_done_ = true;
    reaper_done_time_ = now;
  }
}

void ReaperWatch::PumpOutput(Fd& out_r, Fd& err_r) {
  char buf[65536];
  while (out_r.fd >= 0 || err_r.fd >= 0) {
    const int64_t now = NowMs();
    EnforceDeadline(now);
    PollReaper(now);
    // The reaper closes its tree's pipes by killing it; one left open after the reaper
    // ended belongs to a process that escaped it (the sweep below kills it): stop
    // reading 2 s later rather than hang.
    if (reaper_done_ && now - reaper_done_time_ > 2000) break;
    int wait_ms = static_cast<int>(stop_sent_ ? 100 : std::min<int64_t>(deadline_ - now, 250));
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
        Keep(&result_->stdout_text, &result_->stdout_truncated, buf, n, request_.max_output_bytes);
      } else {
        Keep(&result_->stderr_text, &result_->stderr_truncated, buf, n, request_.max_output_bytes);
      }
    }
  }
}

int ReaperWatch::WaitForReaper() {
  // A program that closed its pipes early is still held to the deadline.
  while (!reaper_done_) {
    pid_t done = ::waitpid(reaper_, &reaper_status_, WNOHANG | __WALL);
    if (done == reaper_) break;
    if (done < 0 && errno != EINTR) break;
    EnforceDeadline(NowMs());
    ::usleep(2'000);
  }
  return reaper_status_;
}

// How the program ended, from the reaper's report (ProcessResult's fields).
Status ApplyReport(const process_tree::ShimReport& report, const ProcessRequest& request,
                   ProcessResult* result) {
  switch (report.kind) {
    case process_tree::ShimReport::kCannotStart: {
      std::string why = std::strerror(report.value);
      if (report.step == 1) why += " (the folder " + request.cwd + ")";
      return IoError(request.argv[0] + ": cannot start: " + why);
    }
    case process_tree::ShimReport::kExited:
      if (WIFEXITED(report.value) && !result->timed_out) {
        result->exited = true;
        result->exit_code = WEXITSTATUS(report.value);
      } else if (WIFSIGNALED(report.value)) {
        result->term_signal = WTERMSIG(report.value);
      } else {
        result->term_signal = SIGKILL;  // it ended as the deadline passed
      }
      return Status::Ok();
    default:
      // Stopped by our timeout or killed: the tree died of SIGKILL.
      result->term_signal = SIGKILL;
      return Status::Ok();
  }
}

}  // namespace

Result<ProcessResult> PosixProcessRunner::Run(const ProcessRequest& request) {
  if (request.argv.empty()) return InvalidInput("process: empty argv");
  std::vector<std::string> env = ScrubEnvironment(CurrentEnvironment(), request.extra_env);
  AV_ASSIGN_OR_RETURN(std::string program,
                      ResolveProgram(request.argv[0], request.cwd, request.extra_env));
  AV_ASSIGN_OR_RETURN(ChildPipes pipes, OpenChildPipes());
  ShimArguments shim;
  BuildShimPlan(request, program, env, pipes, &shim);

  const int64_t start = NowMs();
  pid_t reaper;
  {
    std::lock_guard<std::mutex> lock(ReaperMutex());
    reaper = ::fork();
    if (reaper == 0) process_tree::RunShim(shim.plan);
    if (reaper > 0) LiveReapers().insert(reaper);
  }
  if (reaper < 0) return IoError(request.argv[0] + ": cannot start: fork: " + std::strerror(errno));
  pipes.out_w.Close();
  pipes.err_w.Close();
  pipes.status_w.Close();

  ProcessResult result;
  ReaperWatch watch(reaper, start + std::max(request.timeout_ms, 1), request, &result);
  watch.PumpOutput(pipes.out_r, pipes.err_r);
  const int reaper_status = watch.WaitForReaper();
  process_tree::ShimReport report = ReadReport(pipes.status_r.fd);
  {
    std::lock_guard<std::mutex> lock(ReaperMutex());
    LiveReapers().erase(reaper);
  }
  if (report.kind == 0 || !WIFEXITED(reaper_status)) SweepOrphans();
  result.wall_ms = NowMs() - start;
  result.leftover_processes = report.leftovers;
  AV_RETURN_IF_ERROR(ApplyReport(report, request, &result));
  // Under bwrap the reaper sees only bwrap (its pid namespace killed the rest): the count
  // comes from the sandbox's own report (core/sandbox.h).
  if (IsSandboxArgv(request.argv)) ApplySandboxReport(&result);
  return result;
}

}  // namespace av
