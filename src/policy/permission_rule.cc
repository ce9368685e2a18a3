#include "policy/permission_rule.h"

#include <cctype>

namespace av {
namespace {

std::string_view Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\n\r");
  if (a == std::string_view::npos) return {};
  size_t b = s.find_last_not_of(" \t\n\r");
  return s.substr(a, b - a + 1);
}

// Runs of blanks become one space: commands are matched as words joined by one space.
std::string CollapseBlanks(std::string_view s) {
  std::string out;
  bool blank = false;
  for (char c : Trim(s)) {
    if (c == ' ' || c == '\t' || c == '\n') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

bool IsToolChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '*' ||
         c == '.';
}

}  // namespace

Result<PermissionRule> ParsePermissionRule(std::string_view raw) {
  std::string_view text = Trim(raw);
  if (text.empty()) return InvalidInput("an empty rule");
  if (text.size() > 4096) return InvalidInput("a rule longer than 4096 characters");
  PermissionRule rule;
  rule.text = std::string(text);
  size_t open = text.find('(');
  std::string_view tool = text.substr(0, open);
  if (tool.empty()) return InvalidInput("\"" + rule.text + "\" names no tool before '('");
  for (char c : tool) {
    if (!IsToolChar(c)) {
      return InvalidInput("\"" + rule.text + "\": the tool name holds '" + std::string(1, c) +
                          "' (expected Tool or Tool(specifier))");
    }
  }
  rule.tool = std::string(tool);
  if (open == std::string_view::npos) return rule;
  if (text.back() != ')') {
    return InvalidInput("\"" + rule.text + "\" opens '(' but does not end with ')'");
  }
  rule.has_specifier = true;
  rule.specifier = std::string(text.substr(open + 1, text.size() - open - 2));
  if (Trim(rule.specifier).empty()) {
    return InvalidInput("\"" + rule.text + "\" has an empty specifier (write \"" + rule.tool +
                        "\" for every use)");
  }
  return rule;
}

bool IsBashRule(const PermissionRule& rule) { return rule.tool == "Bash" || rule.tool == "*"; }

BashPattern CompileBashRule(const PermissionRule& rule) {
  BashPattern p;
  std::string spec = CollapseBlanks(rule.specifier);
  if (!rule.has_specifier || rule.tool == "*" || spec == "*" || spec == ":*") {
    p.form = BashRuleForm::kAny;
    return p;
  }
  // The legacy prefix form: ":*" at the very end, no other '*'.
  if (spec.size() > 2 && spec.compare(spec.size() - 2, 2, ":*") == 0 &&
      spec.find('*') == spec.size() - 1) {
    std::string prefix = CollapseBlanks(spec.substr(0, spec.size() - 2));
    p.form = BashRuleForm::kPrefix;
    p.globs = {prefix, prefix + " *"};
    return p;
  }
  if (spec.find('*') != std::string::npos) {
    p.form = BashRuleForm::kWildcard;
    p.globs = {spec};
    // "ls *" also matches a bare "ls": the space before a final '*' is a word boundary.
    if (spec.size() > 2 && spec.compare(spec.size() - 2, 2, " *") == 0) {
      p.globs.push_back(spec.substr(0, spec.size() - 2));
    }
    return p;
  }
  p.form = BashRuleForm::kExact;
  p.globs = {spec};
  return p;
}

std::vector<std::string> RuleLeadingWords(const PermissionRule& rule) {
  BashPattern p = CompileBashRule(rule);
  std::vector<std::string> words;
  if (p.form == BashRuleForm::kAny || p.globs.empty()) return words;
  std::string_view g = p.globs[0];
  size_t star = g.find('*');
  std::string_view literal = g.substr(0, star);
  // Only whole words before the first '*' count ("git d*" leads with "git" alone).
  if (star != std::string_view::npos && !literal.empty() && literal.back() != ' ') {
    size_t cut = literal.rfind(' ');
    literal = cut == std::string_view::npos ? std::string_view() : literal.substr(0, cut);
  }
  size_t pos = 0;
  while (pos < literal.size()) {
    size_t sp = literal.find(' ', pos);
    std::string_view w = literal.substr(pos, sp == std::string_view::npos ? sp : sp - pos);
    if (!w.empty()) words.emplace_back(w);
    if (sp == std::string_view::npos) break;
    pos = sp + 1;
  }
  return words;
}

bool RuleGlobMatch(std::string_view pattern, std::string_view text) {
  // The two-cursor algorithm for '*'-only patterns: on a mismatch, let the last '*' take
  // one more byte. O(|pattern| * |text|) at worst, linear in practice.
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
    } else if (p < pattern.size() && pattern[p] == text[t] && text[t] != '\x01') {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool RuleGlobMatchesSomeExtension(std::string_view pattern, std::string_view prefix) {
  // Like RuleGlobMatch, but reaching the end of `prefix` at any pattern position succeeds:
  // the unknown rest of the text can be whatever the remaining pattern wants.
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, star_t = 0;
  while (t < prefix.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
    } else if (p < pattern.size() && pattern[p] == prefix[t] && prefix[t] != '\x01') {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  return true;
}

bool BashPatternMatches(const BashPattern& pattern, std::string_view text) {
  if (pattern.form == BashRuleForm::kAny) return true;
  for (const std::string& g : pattern.globs) {
    if (RuleGlobMatch(g, text)) return true;
  }
  return false;
}

bool BashPatternMayMatch(const BashPattern& pattern, std::string_view prefix) {
  if (pattern.form == BashRuleForm::kAny) return true;
  for (const std::string& g : pattern.globs) {
    if (RuleGlobMatchesSomeExtension(g, prefix)) return true;
  }
  return false;
}

}  // namespace av
