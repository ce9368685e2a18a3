// Claude Code permission rules ("Read", "Bash(git diff:*)", "Bash(npm * --save)",
// "WebFetch(domain:example.com)") and how a Bash rule matches one command's words:
// `Bash` and `Bash(*)` match every command; `Bash(prefix:*)` (the legacy form) matches the
// prefix alone or followed by a space; a specifier with `*` is a wildcard pattern where `*`
// matches any text and a final " *" may also match nothing; anything else must match
// exactly. doc/policy.md shows examples. Pure functions, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

struct PermissionRule {
  std::string text;  // as written: "Bash(git diff:*)"
  std::string tool;  // "Bash", "Read", "mcp__github__create_issue", "*"
  bool has_specifier = false;
  std::string specifier;  // between the parentheses: "git diff:*"
  std::string source;     // where it was read, "settings.json:14"; empty when unknown
};

// "Tool" or "Tool(specifier)". Errors name what is wrong with the text.
Result<PermissionRule> ParsePermissionRule(std::string_view text);

enum class BashRuleForm {
  kAny,       // Bash, Bash(*), Bash(:*)
  kPrefix,    // Bash(git diff:*)
  kWildcard,  // Bash(npm * --save), Bash(curl:*production*)
  kExact,     // Bash(npm run build)
};

// A Bash rule as glob patterns over a command's words joined by single spaces.
struct BashPattern {
  BashRuleForm form = BashRuleForm::kExact;
  std::vector<std::string> globs;  // '*' matches any run of bytes; everything else itself
};

// True when `rule` applies to the Bash tool ("Bash", or "*" which names every tool).
bool IsBashRule(const PermissionRule& rule);
BashPattern CompileBashRule(const PermissionRule& rule);

// The words a command must start with for `rule` to match it ("git diff" for
// Bash(git diff:*) and Bash(git diff *)); empty for Bash and for patterns that start
// with '*'. Used by the audit to tell what a rule grants.
std::vector<std::string> RuleLeadingWords(const PermissionRule& rule);

// Glob matching over bytes. In `text`, a '\x01' byte stands for a word whose value is only
// known when the command runs: only a '*' of the pattern can match it.
bool RuleGlobMatch(std::string_view pattern, std::string_view text);
// True when some text that starts with `prefix` would match `pattern`.
bool RuleGlobMatchesSomeExtension(std::string_view pattern, std::string_view prefix);

bool BashPatternMatches(const BashPattern& pattern, std::string_view text);
bool BashPatternMayMatch(const BashPattern& pattern, std::string_view prefix);

}  // namespace av
