// ProcessRunner: the seam through which attnverify runs local programs (nvcc, git, the
// candidate, the stages of `run`). Programs run from an argv (never through a shell)
// below a reaper (core/process_tree.h) that kills the program's whole process tree —
// `setsid` children included — when it exits, at the wall-clock timeout, and when
// attnverify dies (Ctrl-C, SIGTERM, kill -9). stdout/stderr are captured up to a cap and
// the environment is scrubbed to an allowlist plus what the caller adds. Unit tests use
// FakeProcessRunner. A runner may be shared between threads; each Run() is independent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace av {

struct ProcessRequest {
  // argv[0] is a name looked up in PATH, or a path; a relative path ("build/tool") is
  // relative to `cwd` when one is given.
  std::vector<std::string> argv;
  std::string cwd;  // empty: the caller's working directory
  // Added to (or replacing names in) the scrubbed environment.
  std::map<std::string, std::string> extra_env;
  int timeout_ms = 600'000;
  // Each stream keeps its first max_output_bytes; the rest is counted and dropped.
  size_t max_output_bytes = 16 << 20;
};

struct ProcessResult {
  int exit_code = -1;      // valid when exited
  int term_signal = 0;     // non-zero when killed by a signal (including our timeout)
  bool exited = false;     // the program ran and exited on its own
  bool timed_out = false;  // we killed it after timeout_ms
  std::string stdout_text;
  std::string stderr_text;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  int64_t wall_ms = 0;
  // Processes the program left running below it when it ended (all were killed).
  int leftover_processes = 0;

  bool ok() const { return exited && exit_code == 0; }
  // "exit 2", "killed by signal 9", "timed out after 600 s" — for messages.
  std::string Describe() const;
};

// Makes this process safe to start programs from; cli's Main calls it first, the runner
// again (idempotent): descriptors 0-2 open (a pipe must never land on them), SIGXFSZ
// ignored (a write past `ulimit -f` then fails with EFBIG, an I/O error naming the file,
// instead of killing attnverify with its temporary files left behind), and this process
// a child subreaper (a program whose reaper was killed is handed to us, not to init, and
// the runner kills it).
void InitProcessGuards();

// The environment variables a child keeps (PATH and locale for tools, HOME/TMPDIR for
// their caches, CUDA_* so nvcc finds its toolkit). Everything else is dropped, so a
// token in the user's shell never reaches a compiler or a repository's program.
const std::vector<std::string>& EnvAllowlist();

// The scrubbed environment as NAME=VALUE strings: allowlisted variables of `current`
// (normally this process's environ) plus `extra`, sorted by name.
std::vector<std::string> ScrubEnvironment(const std::map<std::string, std::string>& current,
                                          const std::map<std::string, std::string>& extra);

// Finds `name` in PATH (as the scrubbed child would see it); empty when absent.
// A name containing '/' is returned as is when it is an executable file.
std::string FindExecutable(const std::string& name);

// The program a request's argv[0] names, as Run resolves it: looked up in the scrubbed
// PATH, or a path ("build/tool" relative to `cwd` when one is given). NotFound with the
// message Run would give when there is none.
Result<std::string> ResolveProgram(const std::string& argv0, const std::string& cwd,
                                   const std::map<std::string, std::string>& extra_env);

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // An error Status only when the program could not be started (not found, not
  // executable); a program that ran and failed is an ok Result with its exit code.
  virtual Result<ProcessResult> Run(const ProcessRequest& request) = 0;
};

// fork() of a reaper that starts the program in a new process group; pipes drained with
// poll(); at the timeout the reaper kills the whole tree (SIGKILL) and reports.
class PosixProcessRunner final : public ProcessRunner {
 public:
  PosixProcessRunner();
  Result<ProcessResult> Run(const ProcessRequest& request) override;
};

// Records every request and answers from a handler (tests).
class FakeProcessRunner final : public ProcessRunner {
 public:
  using Handler = std::function<Result<ProcessResult>(const ProcessRequest&)>;
  explicit FakeProcessRunner(Handler handler) : handler_(std::move(handler)) {}
  Result<ProcessResult> Run(const ProcessRequest& request) override {
    requests_.push_back(request);
    return handler_(request);
  }
  const std::vector<ProcessRequest>& requests() const { return requests_; }

 private:
  Handler handler_;
  std::vector<ProcessRequest> requests_;
};

// A ProcessResult for fakes: exited with `code`, the given output.
ProcessResult MakeExitedResult(int code, std::string stdout_text, std::string stderr_text);

}  // namespace av
