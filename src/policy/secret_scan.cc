#include "policy/secret_scan.h"

#include <algorithm>
#include <cctype>

namespace av {
namespace {

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

size_t Run(std::string_view s, size_t from, bool (*ok)(char)) {
  size_t i = from;
  while (i < s.size() && ok(s[i])) ++i;
  return i - from;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Examples in docs and how-tos: "sk-ant-api03-xxxxxxxx", "ghp_XXXX...".
bool IsExample(std::string_view token) {
  std::string l = Lower(token);
  for (const char* marker :
       {"xxxx", "****", "....", "your", "example", "placeholder", "redacted"}) {
    if (l.find(marker) != std::string::npos) return true;
  }
  return false;
}

void Add(std::vector<SecretMatch>* out, const char* rule, std::string_view text, size_t at,
         size_t len) {
  if (IsExample(text.substr(at, len))) return;
  out->push_back({rule, at, len});
}

bool StartsWordAt(std::string_view text, size_t i) { return i == 0 || !IsTokenChar(text[i - 1]); }

}  // namespace

std::vector<SecretMatch> FindSecrets(std::string_view text) {
  std::vector<SecretMatch> out;
  for (size_t i = 0; i < text.size(); ++i) {
    std::string_view rest = text.substr(i);
    if (!StartsWordAt(text, i)) continue;
    if (rest.rfind("sk-ant-", 0) == 0) {
      size_t n = 7 + Run(text, i + 7, IsTokenChar);
      if (n >= 7 + 20) Add(&out, "anthropic_api_key", text, i, n), i += n - 1;
    } else if (rest.rfind("sk-proj-", 0) == 0) {
      size_t n = 8 + Run(text, i + 8, IsTokenChar);
      if (n >= 8 + 20) Add(&out, "openai_project_key", text, i, n), i += n - 1;
    } else if (rest.rfind("sk-", 0) == 0) {
      size_t n = 3 + Run(text, i + 3, IsTokenChar);
      std::string_view tok = text.substr(i, n);
      if (tok.find("T3BlbkFJ") != std::string_view::npos && n >= 40) {
        Add(&out, "openai_api_key", text, i, n), i += n - 1;
      } else if (n >= 3 + 32) {
        Add(&out, "api_key", text, i, n), i += n - 1;
      }
    } else if ((rest.rfind("AKIA", 0) == 0 || rest.rfind("ASIA", 0) == 0) && rest.size() >= 20) {
      bool ok = true;
      for (size_t k = 4; k < 20; ++k)
        ok = ok && (std::isupper(static_cast<unsigned char>(rest[k])) ||
                    std::isdigit(static_cast<unsigned char>(rest[k])));
      if (ok && (rest.size() == 20 || !IsAlnum(rest[20])))
        Add(&out, "aws_access_key_id", text, i, 20);
    } else if (rest.size() > 4 && (rest.rfind("ghp_", 0) == 0 || rest.rfind("gho_", 0) == 0 ||
                                   rest.rfind("ghu_", 0) == 0 || rest.rfind("ghs_", 0) == 0 ||
                                   rest.rfind("ghr_", 0) == 0)) {
      size_t n = 4 + Run(text, i + 4, IsAlnum);
      if (n >= 4 + 30) Add(&out, "github_token", text, i, n), i += n - 1;
    } else if (rest.rfind("github_pat_", 0) == 0) {
      size_t n = 11 + Run(text, i + 11, IsTokenChar);
      if (n >= 11 + 22) Add(&out, "github_token", text, i, n), i += n - 1;
    } else if (rest.rfind("AIza", 0) == 0) {
      size_t n = 4 + Run(text, i + 4, IsTokenChar);
      if (n >= 4 + 35) Add(&out, "google_api_key", text, i, n), i += n - 1;
    } else if (rest.rfind("eyJ", 0) == 0) {
      // header.payload.signature, each base64url; the payload of a JWT starts "eyJ" too.
      size_t a = Run(text, i, IsTokenChar);
      if (i + a < text.size() && text[i + a] == '.' &&
          text.substr(i + a + 1).rfind("eyJ", 0) == 0) {
        size_t b = Run(text, i + a + 1, IsTokenChar);
        size_t at = i + a + 1 + b;
        if (at < text.size() && text[at] == '.') {
          size_t c = Run(text, at + 1, IsTokenChar);
          if (a >= 10 && b >= 10 && c >= 10) Add(&out, "jwt", text, i, a + b + c + 2), i = at + c;
        }
      }
    } else if (rest.size() > 7 && Lower(rest.substr(0, 7)) == "bearer ") {
      size_t n = 0;
      while (i + 7 + n < text.size() &&
             (IsTokenChar(text[i + 7 + n]) ||
              std::string_view("._~+/=").find(text[i + 7 + n]) != std::string_view::npos)) {
        ++n;
      }
      std::string_view tok = text.substr(i + 7, n);
      if (n >= 16 && !LooksLikePlaceholder(tok))
        Add(&out, "bearer_token", text, i, 7 + n), i += 6 + n;
    } else if (rest.rfind("-----BEGIN ", 0) == 0) {
      size_t end = rest.find("-----", 11);
      if (end != std::string_view::npos &&
          rest.substr(0, end).find("PRIVATE KEY") != std::string_view::npos) {
        Add(&out, "private_key", text, i, end + 5);
      }
    }
  }
  return out;
}

bool LooksLikePlaceholder(std::string_view v) {
  size_t a = v.find_first_not_of(" \t");
  if (a == std::string_view::npos) return true;
  v = v.substr(a, v.find_last_not_of(" \t") - a + 1);
  if (v.size() >= 3 && v[0] == '$' && v[1] == '{' && v.back() == '}') return true;
  if (v.size() >= 2 && v[0] == '$' &&
      Run(v, 1, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) ==
          v.size() - 1)
    return true;
  if (v.front() == '<' && v.back() == '>') return true;
  std::string l = Lower(v);
  if (l.rfind("env:", 0) == 0) return true;
  for (const char* m : {"your", "xxx", "***", "replace", "changeme", "placeholder", "redacted", "<",
                        "todo", "example", "dummy", "fake"}) {
    if (l.find(m) != std::string::npos) return true;
  }
  return false;
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
