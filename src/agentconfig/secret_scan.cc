#include "agentconfig/secret_scan.h"

#include <algorithm>
#include <cctype>

#include "llm/secret_patterns.h"

namespace av {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "NAME": a shell or environment variable name.
bool IsVariableName(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), IsNameChar);
}

bool IsMaskChar(char c) { return c == 'x' || c == 'X' || c == '*' || c == '.'; }

// "sk-ant-xxxxxxxx", "***", "sk-...": at most 16 characters of prefix, then a mask.
bool IsMasked(std::string_view v) {
  size_t mask = v.size();
  while (mask > 0 && IsMaskChar(v[mask - 1])) --mask;
  return v.size() - mask >= 3 && mask <= 16;
}

}  // namespace

std::vector<SecretMatch> FindSecrets(std::string_view text) {
  std::vector<SecretPatternMatch> found = FindSecretPatterns(text);
  std::sort(found.begin(), found.end(), [](const SecretPatternMatch& a, const SecretPatternMatch& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::vector<SecretMatch> out;
  size_t covered = 0;  // one past the last byte of the previous match kept
  for (const SecretPatternMatch& m : found) {
    if (!out.empty() && m.begin < covered) {
      SecretMatch& last = out.back();
      if (m.end > covered) {
        last.length = m.end - last.offset;
        covered = m.end;
      }
      continue;
    }
    if (LooksLikePlaceholder(text.substr(m.begin, m.end - m.begin))) continue;
    out.push_back({std::string(m.rule), m.begin, m.end - m.begin});
    covered = m.end;
  }
  return out;
}

bool LooksLikePlaceholder(std::string_view v) {
  size_t a = v.find_first_not_of(" \t");
  if (a == std::string_view::npos) return true;
  v = v.substr(a, v.find_last_not_of(" \t") - a + 1);
  if (v.size() >= 4 && v.substr(0, 2) == "${" && v.back() == '}') {
    return IsVariableName(v.substr(2, v.size() - 3));
  }
  if (v[0] == '$') return IsVariableName(v.substr(1));
  if (Lower(v.substr(0, std::min<size_t>(4, v.size()))) == "env:") {
    return IsVariableName(v.substr(4));
  }
  if (v.size() >= 3 && v.front() == '<' && v.back() == '>') {
    std::string_view inner = v.substr(1, v.size() - 2);
    return inner.size() <= 40 && std::all_of(inner.begin(), inner.end(), [](char c) {
             return std::isalpha(static_cast<unsigned char>(c)) || c == ' ' || c == '_' ||
                    c == '-';
           });
  }
  // YOUR_API_KEY, REPLACE_ME, CHANGEME: upper-case letters and '_' only. Issued keys mix
  // cases and digits; a value without either carries no entropy worth hiding.
  if (v.size() <= 64 && std::all_of(v.begin(), v.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || c == '_';
      })) {
    return true;
  }
  return IsMasked(v);
}

bool IsSecretFieldName(std::string_view name) {
  std::string l = Lower(name);
  l.erase(std::remove(l.begin(), l.end(), '_'), l.end());
  l.erase(std::remove(l.begin(), l.end(), '-'), l.end());
  for (const char* exact : {"key", "apikey", "token", "secret", "password", "passwd", "authtoken",
                            "accesstoken", "bearertoken", "clientsecret", "privatekey"}) {
    if (l == exact) return true;
  }
  for (const char* suffix : {"apikey", "token", "secret", "password", "secretkey", "accesskey"}) {
    std::string s = suffix;
    if (l.size() > s.size() && l.compare(l.size() - s.size(), s.size(), s) == 0) return true;
  }
  return false;
}

std::string DescribeSecret(std::string_view value) {
  std::vector<SecretMatch> m = FindSecrets(value);
  std::string what = m.empty() ? "a literal value" : "a literal " + m[0].rule;
  return what + " (" + std::to_string(value.size()) + " characters)";
}

}  // namespace av
