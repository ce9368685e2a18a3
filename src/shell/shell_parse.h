// A shell command string as bash would run it: every simple command it contains (nested
// ones from $(...), backticks, <(...), >(...), subshells, groups, if/while/until/for bodies
// and unquoted heredocs included), each with its words after quote removal, its
// assignments and its redirections. The command policy (command_policy.h) decides on this
// model; doc/policy.md says what is parsed and what is refused. ParseShell fails closed:
// input it does not understand is an error, never a guess. Pure functions, any thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

// One word after quote removal. `value` is exact when Literal(); otherwise the parts that
// expand at run time are kept as written ("$HOME", "$(date)").
struct ShellWord {
  std::string value;
  std::string source;    // as written, quotes included
  bool expands = false;  // $name, ${...}, $(...), `...`, $((...)), <(...), >(...)
  bool globs = false;    // an unquoted * ? or [ (pathname expansion)
  bool braces = false;   // an unquoted {a,b} or {a..b} (brace expansion)
  bool tilde = false;    // an unquoted leading ~ (home directory)
  bool control = false;  // the value holds a control byte (from $'\x01' and the like)
  bool quoted = false;   // some part was quoted or escaped (never a reserved word)
  // An unquoted $-expansion or backquote (or "$@"): bash splits its value into words, so
  // one word as written may reach the program as several, each of them an option.
  bool splits = false;
  // How many leading bytes of `value` reach the program as written: the text before the
  // first expansion, glob, brace or tilde (all of it when Literal()). Glob and brace
  // expansion keep this prefix in every word they make; other expansions may not.
  size_t fixed = std::string::npos;

  // The value is what the program receives as one argument.
  bool Literal() const { return !expands && !globs && !braces && !tilde && !control; }
  // The leading text every word this one becomes starts with ("" when none is certain).
  std::string_view FixedPrefix() const {
    if (splits) return {};
    return std::string_view(value).substr(0,
                                          Literal() ? value.size() : std::min(fixed, value.size()));
  }
};

struct ShellRedirection {
  // ">", ">>", ">|", "<", "<>", "<<", "<<-", "<<<", "<&", ">&", "&>", "&>>"
  std::string op;
  int fd = -1;          // the explicit descriptor number before the operator; -1 when none
  ShellWord target;     // file, descriptor number or "-", heredoc delimiter, here-string
  bool writes = false;  // opens `target` as a file for writing
};

struct SimpleCommand {
  std::vector<ShellWord> assignments;  // NAME=value words before the command name
  std::vector<ShellWord> words;        // command name and arguments; empty for "> file"
  std::vector<ShellRedirection> redirections;
  std::string text;  // the source text it came from, for messages
  int depth = 0;     // 0 at top level; +1 inside each substitution or re-parsed script
};

// A construct the parser read but the policy never allows on its own (a function
// definition, an arithmetic expression that names variables, ...): the policy asks.
struct ShellConstruct {
  std::string what;  // "function definition"
  std::string text;
};

struct ShellScript {
  std::vector<SimpleCommand> commands;  // in the order bash starts them
  std::vector<ShellConstruct> undecided;
};

struct ShellLimits {
  size_t max_bytes = 64 << 10;  // a command string longer than this is refused
  int max_depth = 12;           // nested substitutions and re-parsed scripts
  int max_compound_depth = 64;  // nested groups, subshells, ifs and loops in one script
  size_t max_commands = 4096;
};

// Parses `text` as one bash script (what `bash -c TEXT` would read). `depth` is the
// nesting of the script itself (a `sh -c` script inside a command is parsed at depth + 1).
// Errors say what was not understood and the byte offset where.
Result<ShellScript> ParseShell(std::string_view text, int depth = 0,
                               const ShellLimits& limits = ShellLimits());

}  // namespace av
