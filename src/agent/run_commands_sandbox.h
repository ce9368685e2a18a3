// Where an agent's command runs: contained like the candidate, tighter where it can be.
// bubblewrap (core/sandbox.h finds a working one) with every namespace unshared (no
// network, own pids: the whole tree dies with it), the machine read-only, a private
// tmpfs /tmp (the one place it may write), the repository and the package read-only, GPU
// device nodes bound through. A command that names attnverify gets a scratch copy of the
// package mounted over the package's path: the stage runs and writes its evidence there,
// and the copy is thrown away, so it can never replace the package's evidence.
// doc/agent.md "Closing the loop". Any thread.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

namespace av {

struct CommandSandboxSpec {
  std::string repo_dir;      // absolute; read-only; where the command starts
  std::string package_dir;   // absolute; read-only
  std::string package_copy;  // non-empty: mounted writable over package_dir
  std::string bin_dir;       // non-empty: read-only (holds `attnverify`, first in PATH)
  // Existing files the command must not read (attnverify's own secrets): /dev/null there.
  std::vector<std::string> hidden_files;
};

// bwrap's argv running `argv` (argv[0] a path) in that sandbox.
std::vector<std::string> CommandSandboxArgv(const std::string& bwrap,
                                            const CommandSandboxSpec& spec,
                                            const std::vector<std::string>& argv);

// Whether a command may start attnverify itself: it names `attnverify` as a word or as a
// path's last part anywhere (an argv, `cd x && attnverify ...`, `timeout 60 attnverify`, a
// `bash -c` script). Over-inclusive on purpose: a copy too many costs a copy; a miss (a
// script that runs attnverify) still meets a read-only package.
bool CommandNamesAttnverify(const std::string& command);

// Copies package_dir into `dest` (which must not exist): regular files and folders,
// symbolic links as links, nothing else; top-level entries named in `skip` (the sweep's
// work folder) left out. InvalidInput when the files add up to more than max_bytes.
Status CopyPackageForCommand(const std::string& package_dir, const std::string& dest,
                             const std::set<std::string>& skip, uint64_t max_bytes);

}  // namespace av
