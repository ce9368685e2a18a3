// How the command policy reads a command's words before it matches rules: the text a rule
// pattern is matched against (Subject), git without its global options (GitView), which
// program paths and environment names are harmless, lexical path normalisation for write
// targets. Internal to policy/ (command_evaluator.cc, rule_match.cc, write_check.cc).
// Pure functions, any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "shell/shell_parse.h"

namespace av::policy_detail {

// A command's words as the text rules match: values joined by single spaces.
struct Subject {
  std::string allow_text;    // expanding words as '\x01'; blanks inside a word as '\x02'
  std::string deny_text;     // expanding words as '\x01'; blanks inside a word kept
  std::string known_prefix;  // the words before the first expanding one, each + ' '
  bool fully_known = true;
};

Subject MakeSubject(const std::vector<ShellWord>& words);

// git's options before its subcommand. `risky` ones pick another repository, config or
// program (a repository's config can name programs git runs: core.fsmonitor, diff.external).
struct GitView {
  std::vector<ShellWord> words;  // git <subcommand> ... without the global options
  bool risky = false;
  bool understood = true;
};

// `words[0]` is git (any path to it).
GitView NormalizeGit(const std::vector<ShellWord>& words);

// A bare name (found on PATH) or a program directly in /bin, /usr/bin, /usr/local/bin,
// /sbin or /usr/sbin.
bool IsTrustedProgramPath(const std::string& name);

// Environment names a command may set before it runs or a script may assign: values that
// only change formatting, locale, GPU choice or thread counts. Lower-case names are the
// shell's own variables (except the *_proxy family programs read). Any other name may
// change what a later program loads or runs (PATH, LD_PRELOAD, GIT_*, PYTHONPATH, BASH_ENV).
bool IsSafeVariable(const std::string& name);

// The variable an assignment word sets: "A[1]+=x" -> "A".
std::string AssignedName(const ShellWord& w);

// `path` (absolute) with ".", ".." and repeated slashes resolved without the file system.
std::string LexicalNormal(const std::string& path);

// The script is parsed as bash reads it, but dash (Debian's sh) reads $'\x2d' and $"x" as a
// '$' before a quoted string: the words it runs are not the ones the policy judged (the
// corpus test found `sh -c "nvcc -o $'attention-verify/x.o' ..."` writing `$attention-verify`).
inline constexpr const char* kBashOnlyQuoting =
    "$'...' and $\"...\" make other words in sh than in bash, which the policy reads";
bool HasBashOnlyQuoting(const std::string& script);

// The words as written, joined by single spaces (a wrapped command's text for messages).
std::string JoinValues(const std::vector<ShellWord>& words);

std::vector<ShellWord> Slice(const std::vector<ShellWord>& words, size_t begin, size_t end);

}  // namespace av::policy_detail
