// The rule matching of rule_match.h.
#include "policy/rule_match.h"

#include "policy/command_words.h"
#include "shell/exec_wrappers.h"

namespace av::policy_detail {
namespace {

std::vector<CompiledRule> Compile(const std::vector<PermissionRule>& rules) {
  std::vector<CompiledRule> out;
  for (const PermissionRule& r : rules) {
    if (IsBashRule(r)) out.push_back({&r, CompileBashRule(r)});
  }
  return out;
}

}  // namespace

std::string RuleName(const PermissionRule& r) {
  return r.source.empty() ? r.text : r.text + " (" + r.source + ")";
}

RuleSet::RuleSet(const PermissionSettings& s)
    : allow_(Compile(s.allow)), ask_(Compile(s.ask)), deny_(Compile(s.deny)) {}

RuleCheck RuleSet::CheckDenyAndAsk(const std::vector<ShellWord>& words) const {
  std::vector<std::vector<ShellWord>> variants = {words};
  if (words[0].Literal() && words[0].value.find('/') != std::string::npos) {
    std::vector<ShellWord> v = words;
    v[0].value = Basename(v[0].value);  // /bin/rm is rm for a deny rule
    variants.push_back(v);
  }
  if (words[0].Literal() && Basename(words[0].value) == "git") {
    GitView g = NormalizeGit(variants.back());
    g.words[0].value = "git";
    variants.push_back(g.words);
  }
  RuleCheck result;
  for (const auto& v : variants) {
    Subject s = MakeSubject(v);
    for (const CompiledRule& r : deny_) {
      if (BashPatternMatches(r.pattern, s.deny_text)) {
        return {Verdict::kDeny, RuleName(*r.rule), "matches a deny rule"};
      }
      if (!s.fully_known && result.verdict == Verdict::kAllow &&
          BashPatternMayMatch(r.pattern, s.known_prefix)) {
        result = {Verdict::kAsk, RuleName(*r.rule),
                  "may match a deny rule once its expansions are known"};
      }
    }
  }
  if (result.verdict != Verdict::kAllow) return result;
  for (const auto& v : variants) {
    Subject s = MakeSubject(v);
    for (const CompiledRule& r : ask_) {
      if (BashPatternMatches(r.pattern, s.deny_text) ||
          (!s.fully_known && BashPatternMayMatch(r.pattern, s.known_prefix))) {
        return {Verdict::kAsk, RuleName(*r.rule), "matches an ask rule"};
      }
    }
  }
  return result;
}

RuleCheck RuleSet::DenyAnywhere(const std::vector<ShellWord>& words) const {
  for (size_t k = 1; k < words.size(); ++k) {
    if (!words[k].Literal() || words[k].value.empty() || words[k].value[0] == '-') continue;
    RuleCheck c = CheckDenyAndAsk(Slice(words, k, words.size()));
    if (c.verdict == Verdict::kDeny) return c;
  }
  return {};
}

const CompiledRule* RuleSet::MatchAllow(const std::vector<ShellWord>& words) const {
  Subject s = MakeSubject(words);
  for (const CompiledRule& r : allow_) {
    if (BashPatternMatches(r.pattern, s.allow_text)) return &r;
  }
  return nullptr;
}

}  // namespace av::policy_detail
