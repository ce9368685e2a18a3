// DecideCommand: refuses control characters, parses the command as bash would
// (shell/shell_parse.h), decides every subcommand (command_evaluator.h) and takes the worst
// verdict. How one subcommand is decided, in reading order: command_evaluator.cc (the walk
// through builtins, wrappers and nested scripts), rule_match.cc (deny, ask and allow rules),
// command_words.cc (the words the rules see), write_check.cc (files a command writes),
// tool_options.cc (what an allowed tool's own options do).
#include "policy/command_policy.h"

#include <string>

#include "policy/command_evaluator.h"
#include "shell/shell_parse.h"

namespace av {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kAsk:
      return "ask";
    case Verdict::kDeny:
      return "deny";
  }
  return "ask";
}

Decision DecideCommand(const PermissionSettings& settings, std::string_view command) {
  Decision d;
  if (command.find_first_not_of(" \t\n") == std::string_view::npos) {
    d.reason = "an empty command";
    return d;
  }
  for (size_t i = 0; i < command.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(command[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
      // A carriage return or an escape sequence can make a terminal show one command and
      // the shell run another; a NUL ends the string early for some readers.
      d.reason = "the command holds control character 0x" +
                 std::string(1, "0123456789abcdef"[c >> 4]) +
                 std::string(1, "0123456789abcdef"[c & 15]) + " at byte " + std::to_string(i);
      return d;
    }
  }
  Result<ShellScript> script = ParseShell(command);
  if (!script.ok()) {
    d.reason = "not understood: " + script.status().message();
    return d;
  }
  policy_detail::Evaluator ev(settings);
  ev.RunScript(*script, 0);
  d.subcommands = std::move(ev.out);
  if (d.subcommands.empty()) {
    d.reason = "nothing to run";
    return d;
  }
  d.decision = Verdict::kAllow;
  for (const SubcommandDecision& s : d.subcommands) {
    if (s.decision > d.decision) d.decision = s.decision;
  }
  for (const SubcommandDecision& s : d.subcommands) {
    if (s.decision != d.decision) continue;
    d.reason = "`" + s.text + "`: " + s.reason + (s.rule.empty() ? "" : " " + s.rule);
    break;
  }
  if (d.decision == Verdict::kAllow) {
    d.reason = d.subcommands.size() == 1 ? d.subcommands[0].reason + " " + d.subcommands[0].rule
                                         : "every subcommand is allowed";
  }
  return d;
}

}  // namespace av
