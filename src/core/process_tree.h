// The reaper between attnverify and every program it starts (core/process.h). A forked
// copy of attnverify that is a child subreaper: every process the program starts —
// `setsid` and double-forked ones included — stays below it, and when the program exits,
// times out or attnverify dies (PR_SET_PDEATHSIG), the reaper kills all of them before it
// reports. It runs between fork() and _exit() of a multithreaded process, so everything
// here is async-signal-safe: raw system calls only, no allocation, no locks.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace av::process_tree {

// What the reaper writes to its status pipe, once, just before it exits.
struct ShimReport {
  enum Kind : int32_t {
    kExited = 1,       // `value` is the program's wait status
    kCannotStart = 2,  // `value` is errno; `step` says which call failed
    kStopped = 3,      // SIGTERM (our timeout) or attnverify's death: the tree was killed
  };
  int32_t kind = 0;
  int32_t value = 0;
  int32_t step = 0;       // kCannotStart: 1 chdir, 2 execve
  int32_t leftovers = 0;  // processes still running below the reaper when the program ended
};

// Everything the reaper needs, prepared before fork() (it may not allocate).
struct ShimPlan {
  const char* program = nullptr;  // absolute or cwd-relative path, already resolved
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* cwd = nullptr;  // null: stay
  int stdout_fd = -1;         // write ends of the output pipes
  int stderr_fd = -1;
  int status_fd = -1;  // write end of the status pipe (O_CLOEXEC)
  pid_t parent = 0;    // attnverify's pid, to notice a parent that died before PDEATHSIG
};

// The reaper's body, in the child of fork(). Never returns.
[[noreturn]] void RunShim(const ShimPlan& plan);

// The parent of `pid` as /proc says; -1 when it is gone.
pid_t ParentOf(pid_t pid);

// The pids whose parent is `parent` (zombies included), up to `cap`; the count found
// (may exceed cap). Scans /proc with raw system calls.
int ListChildren(pid_t parent, pid_t* out, int cap);

}  // namespace av::process_tree
