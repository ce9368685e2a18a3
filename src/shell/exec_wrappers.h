// Programs that run another program named in their arguments, and where that program
// starts: transparent wrappers (time, nice, nohup, timeout, stdbuf, env, command, builtin,
// exec, ionice, setsid, taskset, numactl) add nothing a rule needs to grant, so the policy
// decides on what they wrap; tool wrappers (xargs, watch, sudo, doas, ncu, nsys,
// compute-sanitizer, find -exec) need a rule of their own and their command is checked
// too; sh/bash/dash -c carry a script the policy parses. Option tables list what each
// accepts; an option we do not know means we cannot tell where the wrapped command starts
// (the policy asks). Pure functions, any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "shell/shell_parse.h"

namespace av {

enum class WrapperKind {
  kNone,         // not a wrapper
  kTransparent,  // decide on the wrapped command alone
  kTool,         // the wrapper needs a rule, and so does the wrapped command
  kShell,        // sh -c SCRIPT: decide on the script
};

struct WordRange {
  size_t begin = 0, end = 0;  // words[begin, end)
};

struct Unwrapped {
  WrapperKind kind = WrapperKind::kNone;
  bool understood = true;  // false: we cannot tell what runs; `reason` says why
  std::string reason;
  std::vector<WordRange> inners;       // the wrapped commands (find may hold several)
  std::vector<ShellWord> assignments;  // env NAME=value before the wrapped command
  bool implied_echo = false;           // xargs with no command runs echo
  std::string script;                  // kShell, and watch without -x
  bool has_script = false;
  bool changes_directory = false;  // env -C DIR
  std::string writes;              // non-empty: the wrapper itself writes or deletes files
  std::vector<ShellWord> written;  // paths the wrapper's own options write (ncu -o FILE)
  std::string runs;                // non-empty: an option of the wrapper itself runs code
};

// What `words[0]` (compared by its basename) wraps.
Unwrapped Unwrap(const std::vector<ShellWord>& words);

std::string Basename(const std::string& path);

// Why bash may hand `w` to a program as an option (or as several words) although it is not
// written as one; empty when it cannot. Used by the wrapper tables and the policy's tool
// option tables.
std::string MayBecomeOption(const ShellWord& w);

}  // namespace av
