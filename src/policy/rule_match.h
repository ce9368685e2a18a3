// Matching one command's words against the Bash rules of PermissionSettings: a deny rule
// wins (also on /bin/rm as rm, and on git without its global options), a rule that may
// match once expansions are known is ask, then ask rules; allow rules are looked up
// separately. Internal to policy/ (command_evaluator.cc). Pure, any thread.
#pragma once

#include <string>
#include <vector>

#include "policy/command_policy.h"
#include "policy/permission_rule.h"
#include "shell/shell_parse.h"

namespace av::policy_detail {

struct CompiledRule {
  const PermissionRule* rule = nullptr;
  BashPattern pattern;
};

// The rule as written, with its file:line when known.
std::string RuleName(const PermissionRule& r);

struct RuleCheck {
  Verdict verdict = Verdict::kAllow;  // kAllow: no deny or ask rule applies
  std::string rule;
  std::string reason;
};

// The Bash rules of one PermissionSettings, compiled once. Holds pointers into `settings`,
// which must outlive it.
class RuleSet {
 public:
  explicit RuleSet(const PermissionSettings& settings);

  // The deny and ask rules against `words` (non-empty).
  RuleCheck CheckDenyAndAsk(const std::vector<ShellWord>& words) const;
  // A wrapper we cannot read: a deny rule may still match the words from any position.
  RuleCheck DenyAnywhere(const std::vector<ShellWord>& words) const;
  // The first allow rule that matches `words`, or null.
  const CompiledRule* MatchAllow(const std::vector<ShellWord>& words) const;

 private:
  std::vector<CompiledRule> allow_, ask_, deny_;
};

}  // namespace av::policy_detail
