// The candidate's sandbox: bubblewrap (`bwrap`, Debian bubblewrap) around its argv. The
// program sees the machine read-only (toolchain, python, the package, $HOME) with a
// private, empty /tmp that is its $TMPDIR and holds the caches tools would keep under
// $HOME (XDG_CACHE_HOME, TRITON_CACHE_DIR, CUDA_CACHE_PATH, DG_JIT_CACHE_DIR, unless
// set); it may write only the folders
// the caller names (its cases' out/) and, where the caller's working folder is not the
// package, that folder (where `prepare` builds; its .git stays read-only). It runs with no
// capabilities, no network, in its own pid namespace, so everything it starts —
// `setsid` children included — dies when it exits or when attnverify dies
// (--die-with-parent). The run-seal key (core/seal_key.h) is hidden. A small shell
// between bwrap and the program counts what the program left running, kills it, and
// reports the count on the last line of stderr, which PosixProcessRunner turns into
// ProcessResult::leftover_processes. GPU device nodes (/dev/nvidia*, /dev/dri) are bound
// through. Format and limits: doc/formats/candidate-protocol.md "Containment". Any thread.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

struct SandboxSpec {
  std::vector<std::string> read_only;  // folders mounted read-only (the package)
  std::vector<std::string> writable;   // folders below them left writable (out/ folders)
  // Where the program starts; empty: unchanged. Writable when it lies outside every
  // read_only folder and is neither / nor $HOME or a folder above it.
  std::string cwd;
};

// The path of a bwrap that works here: found in PATH, and a trial sandbox (the namespaces
// and mounts BwrapArgv uses) ran `true` and exited 0. In a container without user
// namespaces bwrap is installed but cannot run: then an error whose message says why
// ("bwrap cannot create its sandbox here: ..."), for the warning. Probed once per
// process; later calls return the first answer.
Result<std::string> FindWorkingBwrap(ProcessRunner& runner);

// bwrap's argv running `argv` (argv[0] already resolved to a path) inside the sandbox,
// below the counting shell. Folders are passed as given; callers pass absolute,
// symlink-free paths.
std::vector<std::string> BwrapArgv(const std::string& bwrap, const SandboxSpec& spec,
                                   const std::vector<std::string>& argv);

// The GPU device nodes present on this machine that the sandbox binds through:
// /dev/nvidia* (nvidia0, nvidiactl, nvidia-uvm, nvidia-caps/, ...) and /dev/dri.
std::vector<std::string> GpuDeviceNodes();

// Whether `argv` runs the counting shell of BwrapArgv.
bool IsSandboxArgv(const std::vector<std::string>& argv);

// Takes the counting shell's report off the end of `result`'s stderr and sets
// leftover_processes from it: the processes (zombies aside) the program left in the
// sandbox when it ended. The shell writes it after it killed everything else, so it is
// the last line; when stderr was cut at its cap, or the sandbox was killed (timeout)
// before the shell could write, the count is unknown and reads 0 (it is evidence against
// a candidate, never for it; what was left is killed either way).
void ApplySandboxReport(ProcessResult* result);

}  // namespace av
