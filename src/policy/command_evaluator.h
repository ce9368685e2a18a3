// The walk behind DecideCommand: every simple command of a parsed script is decided on its
// own (SubcommandDecision), looking through exec wrappers into what they run and parsing
// sh -c and eval scripts as nested scripts. The order of checks in DecideWords is the
// order of precedence: a deny match anywhere wins, then anything that cannot be known
// before the command runs (ask), then ask rules, then allow rules, and no allow rule is
// ask. Internal to policy/ (command_policy.cc). One Evaluator per command; it lstats
// write targets.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "policy/command_policy.h"
#include "policy/rule_match.h"
#include "shell/exec_wrappers.h"
#include "shell/shell_parse.h"

namespace av::policy_detail {

class Evaluator {
 public:
  explicit Evaluator(const PermissionSettings& settings);

  // Appends one decision per subcommand of `script` (and of the scripts it runs) to out.
  // `reparse` counts the sh -c / eval scripts around it.
  void RunScript(const ShellScript& script, int reparse);

  std::vector<SubcommandDecision> out;

 private:
  // One simple command: its redirections, assignments and words.
  void Command(const SimpleCommand& cmd, int reparse);
  // An allow becomes ask with the first of `asks`, if any.
  static void Downgrade(SubcommandDecision* d, const std::vector<std::string>& asks);

  // A command's words (`wrappers`: how many wrappers were looked through to reach them).
  SubcommandDecision DecideWords(const std::vector<ShellWord>& words, const std::string& text,
                                 int reparse, int wrappers);
  // Shell builtins that decide on their own; nullopt for the rest.
  std::optional<SubcommandDecision> DecideBuiltin(const std::vector<ShellWord>& words,
                                                  const std::string& text, const RuleCheck& rc,
                                                  int reparse);
  // The commands a tool wrapper (xargs, sudo, find -exec, watch, ncu ...) runs: each is
  // decided as a subcommand of its own; what the wrapper itself does is added to `asks`.
  void DecideToolWrapper(const std::vector<ShellWord>& words, const Unwrapped& u, int reparse,
                         int wrappers, std::vector<std::string>* asks);
  // A program (not a builtin, not a wrapper we look through) against the allow rules and
  // its own options' effects.
  SubcommandDecision MatchRegular(const std::vector<ShellWord>& words, const std::string& text,
                                  const RuleCheck& rc);
  // Empty when writing `target` is fine (write_check.h), with this command's cd state.
  std::string CheckWrite(const ShellWord& target, bool package_itself = false) const;

  // Nested scripts: sh -c, eval, and the builtins that set variables.
  SubcommandDecision DecideShell(const std::vector<ShellWord>& words, const std::string& text,
                                 const Unwrapped& u, bool trusted, const RuleCheck& rc,
                                 int reparse);
  void DecideScript(const std::string& script, const std::string& what, int reparse);
  SubcommandDecision DecideEval(const std::vector<ShellWord>& words, const std::string& text,
                                int reparse);
  SubcommandDecision DecideDeclare(const std::vector<ShellWord>& words, const std::string& text,
                                   const RuleCheck& rc);

  const PermissionSettings& s_;
  RuleSet rules_;
  bool seen_cd_ = false;  // an earlier subcommand ran cd, pushd or popd (or env -C)
};

}  // namespace av::policy_detail
