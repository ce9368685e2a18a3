// What an allowed tool's own arguments make it do beyond what its rule names: run another
// program, write a file, reach the network. The tools the workflow's rules allow (nvcc, git
// diff and git status, pytest and python -m pytest, attnverify) each have a table of their
// options here: whether an option takes a value, and whether it runs a program, writes a
// path or talks to the network. An option not in a tool's table is asked about, and so is a
// word that bash may turn into an option when it runs (an expansion, a glob or brace at its
// start, or an unquoted expansion that splits). ncu, nsys and compute-sanitizer are in
// exec_wrappers.cc's tables, which also find the command they wrap. doc/policy.md lists the
// tables' rules. Pure functions, any thread.
#pragma once

#include <string>
#include <vector>

#include "shell/shell_parse.h"

namespace av {

struct ToolEffects {
  bool known = false;             // the program has a table here
  std::vector<std::string> asks;  // why the command cannot be allowed as written
  std::vector<ShellWord> writes;  // paths the program writes: judged like redirections
};

// `words` is a whole command, words[0] its program (compared by its basename; git's global
// options already removed by the caller's view or not: both are read).
ToolEffects ToolOptionEffects(const std::vector<ShellWord>& words);

}  // namespace av
