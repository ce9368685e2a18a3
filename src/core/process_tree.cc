#include "core/process_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <initializer_list>

namespace av::process_tree {
namespace {

// One record of getdents64 (linux/dirent.h's struct linux_dirent64).
struct Dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

bool ParsePid(const char* s, pid_t* out) {
  if (*s == '\0') return false;
  long v = 0;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
    v = v * 10 + (*s - '0');
    if (v > 1L << 30) return false;
  }
  *out = static_cast<pid_t>(v);
  return true;
}

// The parent pid in /proc/<name>/stat: "pid (comm) S ppid ..."; comm may hold spaces and
// ')' itself, so the last ')' ends it. -1 when the process is gone.
pid_t ReadParent(const char* name) {
  char path[64] = "/proc/";
  size_t at = 6;
  for (const char* s = name; *s != '\0' && at < sizeof(path) - 6; ++s) path[at++] = *s;
  for (const char* s = "/stat"; *s != '\0'; ++s) path[at++] = *s;
  path[at] = '\0';
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof(buf) - 1);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return -1;
  ssize_t close_paren = -1;
  for (ssize_t i = 0; i < n; ++i) {
    if (buf[i] == ')') close_paren = i;
  }
  // ") S 123 ..."
  ssize_t i = close_paren + 4;
  if (close_paren < 0 || i >= n) return -1;
  long v = 0;
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) v = v * 10 + (buf[i] - '0');
  return static_cast<pid_t>(v);
}

void WriteReport(int fd, const ShimReport& report) {
  const char* p = reinterpret_cast<const char*>(&report);
  size_t left = sizeof(report);
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void SleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  ::nanosleep(&ts, nullptr);
}

// Reaps every child that has ended; records the program's status when it is one of them.
// False once no child is left.
bool ReapEnded(pid_t main_pid, int* main_status, bool* main_done) {
  for (;;) {
    int st = 0;
    pid_t p = ::waitpid(-1, &st, WNOHANG | __WALL);
    if (p > 0) {
      if (p == main_pid && !*main_done) {
        *main_status = st;
        *main_done = true;
      }
      continue;
    }
    if (p < 0 && errno == EINTR) continue;
    return !(p < 0 && errno == ECHILD);
  }
}

// SIGKILL to every process below the reaper, round after round (a killed process's
// children are handed to us, and one may fork while we kill), until none is left or
// ~10 s have passed (a process stuck in the kernel cannot be reaped; attnverify's own
// sweep gets what is left when we exit).
void KillTree(pid_t self, pid_t main_pid, int* main_status, bool* main_done) {
  for (int round = 0; round < 10000; ++round) {
    if (!ReapEnded(main_pid, main_status, main_done)) return;
    pid_t kids[256];
    const int n = ListChildren(self, kids, 256);
    for (int i = 0; i < n && i < 256; ++i) ::kill(kids[i], SIGKILL);
    SleepMs(1);
  }
}

// The program itself, in the reaper's child. Never returns.
[[noreturn]] void Exec(const ShimPlan& plan, int err_fd, pid_t shim) {
  // Dies with the reaper whatever happens to it; the reaper kills the rest.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != shim) ::_exit(127);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0 && null_fd != 0) {
    ::dup2(null_fd, 0);
    ::close(null_fd);
  }
  ::dup2(plan.stdout_fd, 1);
  ::dup2(plan.stderr_fd, 2);
#ifdef SYS_close_range
  // Only stdin, stdout and stderr reach the program, whatever a library left open.
  ::syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
#endif
  int32_t failure[2] = {0, 0};
  if (plan.cwd != nullptr && ::chdir(plan.cwd) != 0) {
    failure[0] = 1;
  } else {
    ::execve(plan.program, plan.argv, plan.envp);
    failure[0] = 2;
  }
  failure[1] = errno;
  ssize_t ignored = ::write(err_fd, failure, sizeof(failure));
  (void)ignored;
  ::_exit(127);
}

}  // namespace

pid_t ParentOf(pid_t pid) {
  char name[16];
  int at = 15;
  name[at] = '\0';
  unsigned v = static_cast<unsigned>(pid);
  do {
    name[--at] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && at > 0);
  return ReadParent(name + at);
}

int ListChildren(pid_t parent, pid_t* out, int cap) {
  int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  alignas(8) char buf[8192];
  int count = 0;
  for (;;) {
    long n = ::syscall(SYS_getdents64, dir, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const Dirent64* d = reinterpret_cast<const Dirent64*>(buf + at);
      at += d->d_reclen;
      pid_t pid;
      if (!ParsePid(d->d_name, &pid) || ReadParent(d->d_name) != parent) continue;
      if (count < cap) out[count] = pid;
      ++count;
    }
  }
  ::close(dir);
  return count;
}

void RunShim(const ShimPlan& plan) {
  // Signals that stop the run (SIGTERM: our timeout or, as PDEATHSIG, attnverify's death)
  // and SIGCHLD are blocked and taken with sigtimedwait, so none can slip in between a
  // check and a wait.
  sigset_t waited;
  sigemptyset(&waited);
  for (int s : {SIGTERM, SIGHUP, SIGINT, SIGCHLD}) sigaddset(&waited, s);
  ::sigprocmask(SIG_SETMASK, &waited, nullptr);
  struct sigaction ign = {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, nullptr);
  ::setpgid(0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  bool stop = ::getppid() != plan.parent;  // attnverify died before PDEATHSIG was set

  ShimReport report;
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    report.kind = ShimReport::kCannotStart;
    report.value = errno;
    WriteReport(plan.status_fd, report);
    ::_exit(0);
  }
  const pid_t self = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) Exec(plan, err_pipe[1], self);
  const int fork_errno = errno;
  ::close(err_pipe[1]);
  ::close(plan.stdout_fd);
  ::close(plan.stderr_fd);
  if (child < 0) {
    report.kind = ShimReport::kCannotStart;
    report.value = fork_errno;
    WriteReport(plan.status_fd, report);
    ::_exit(0);
  }
  int32_t failure[2] = {0, 0};
  ssize_t got;
  do {
    got = ::read(err_pipe[0], failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  int status = 0;
  bool done = false;
  if (got == static_cast<ssize_t>(sizeof(failure))) {
    ::waitpid(child, &status, __WALL);
    report.kind = ShimReport::kCannotStart;
    report.step = failure[0];
    report.value = failure[1];
    WriteReport(plan.status_fd, report);
    ::_exit(0);
  }

  while (!stop) {
    if (!ReapEnded(child, &status, &done) || done) break;
    struct timespec second = {1, 0};
    siginfo_t info;
    int sig = ::sigtimedwait(&waited, &info, &second);
    if (sig == SIGTERM || sig == SIGHUP || sig == SIGINT) stop = true;
    if (::getppid() != plan.parent) stop = true;
  }
  if (done) {
    ReapEnded(child, &status, &done);
    pid_t kids[1];
    report.leftovers = ListChildren(self, kids, 0);
  }
  KillTree(self, child, &status, &done);
  report.kind = done && !stop ? ShimReport::kExited : ShimReport::kStopped;
  report.value = done ? status : 0;
  WriteReport(plan.status_fd, report);
  ::_exit(0);
}

}  // namespace av::process_tree
