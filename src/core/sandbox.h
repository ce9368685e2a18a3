// The candidate's sandbox: bubblewrap (`bwrap`, Debian bubblewrap) around its argv. The
// program sees the machine as it is (toolchain, python, $HOME, /tmp) except that the
// package folder is read-only but for the folders it must write (its cases' out/), it has
// no network, and it runs in its own pid namespace, so everything it starts — `setsid`
// children included — dies when it exits or when attnverify dies (--die-with-parent).
// GPU device nodes (/dev/nvidia*, /dev/dri) are bound through. Format and limits:
// doc/formats/candidate-protocol.md "Containment". Any thread.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

struct SandboxSpec {
  std::vector<std::string> read_only;  // folders mounted read-only (the package)
  std::vector<std::string> writable;   // folders below them left writable (out/ folders)
  std::string cwd;                     // where the program starts; empty: unchanged
};

// The path of a bwrap that works here: found in PATH, and a trial sandbox (the namespaces
// and mounts BwrapArgv uses) ran `true` and exited 0. In a container without user
// namespaces bwrap is installed but cannot run: then an error whose message says why
// ("bwrap cannot create its sandbox here: ..."), for the warning. Probed once per
// process; later calls return the first answer.
Result<std::string> FindWorkingBwrap(ProcessRunner& runner);

// bwrap's argv running `argv` (argv[0] already resolved to a path) inside the sandbox.
// Folders are passed as given; callers pass absolute, symlink-free paths.
std::vector<std::string> BwrapArgv(const std::string& bwrap, const SandboxSpec& spec,
                                   const std::vector<std::string>& argv);

// The GPU device nodes present on this machine that the sandbox binds through:
// /dev/nvidia* (nvidia0, nvidiactl, nvidia-uvm, nvidia-caps/, ...) and /dev/dri.
std::vector<std::string> GpuDeviceNodes();

}  // namespace av
