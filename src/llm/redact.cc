#include "llm/redact.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

extern char** environ;

namespace av {
namespace {

struct Match {
  size_t begin;
  size_t end;
  std::string_view rule;
};

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsUpperOrDigit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool IsTokenChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }
bool IsBearerChar(char c) {
  return IsAlnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=' ||
         c == '-';
}
bool IsHeaderValueChar(char c) {
  return static_cast<unsigned char>(c) > 0x20 && c != '"' && c != '\'' && c != ',' && c != ';' &&
         c != '\\' && c != 0x7f;
}

template <typename Pred>
size_t RunEnd(std::string_view text, size_t from, Pred pred) {
  while (from < text.size() && pred(text[from])) ++from;
  return from;
}

// True when the match at `at` does not continue a longer word of token characters.
bool StartsWord(std::string_view text, size_t at) { return at == 0 || !IsTokenChar(text[at - 1]); }

// Calls fn(position) for every occurrence of `needle` in `text`.
template <typename Fn>
void ForEach(std::string_view text, std::string_view needle, Fn fn) {
  for (size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + 1)) {
    fn(at);
  }
}

// Prefix + token run: "ghp_" + [A-Za-z0-9]{36,}, "AIza" + ..., word-bounded on the left.
template <typename Pred>
void ScanPrefixed(std::string_view text, std::string_view prefix, size_t min_run, Pred pred,
                  std::string_view rule, std::vector<Match>& out) {
  ForEach(text, prefix, [&](size_t at) {
    if (!StartsWord(text, at)) return;
    size_t end = RunEnd(text, at + prefix.size(), pred);
    if (end - at - prefix.size() >= min_run) out.push_back({at, end, rule});
  });
}

// sk-ant-..., sk-proj-..., sk-...T3BlbkFJ..., and long legacy sk- keys.
void ScanSkKeys(std::string_view text, std::vector<Match>& out) {
  ForEach(text, "sk-", [&](size_t at) {
    if (!StartsWord(text, at)) return;
    size_t end = RunEnd(text, at + 3, IsTokenChar);
    std::string_view run = text.substr(at + 3, end - at - 3);
    if (run.starts_with("ant-")) {
      if (run.size() >= 4 + 20) out.push_back({at, end, "anthropic_key"});
      return;
    }
    for (std::string_view p : {"proj-", "svcacct-", "admin-"}) {
      if (run.starts_with(p)) {
        if (run.size() >= p.size() + 20) out.push_back({at, end, "openai_key"});
        return;
      }
    }
    bool digit = std::any_of(run.begin(), run.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (run.find("T3BlbkFJ") != std::string_view::npos || (run.size() >= 32 && digit)) {
      out.push_back({at, end, "openai_key"});
    }
  });
}

void ScanAws(std::string_view text, std::vector<Match>& out) {
  for (std::string_view prefix : {"AKIA", "ASIA", "ABIA", "ACCA"}) {
    ForEach(text, prefix, [&](size_t at) {
      if (at > 0 && IsAlnum(text[at - 1])) return;
      size_t end = RunEnd(text, at + 4, IsUpperOrDigit);
      if (end - at == 20 && (end == text.size() || !IsAlnum(text[end]))) {
        out.push_back({at, end, "aws_access_key"});
      }
    });
  }
}

// eyJ<header>.eyJ<payload>[.<signature>]: a JSON Web Token.
void ScanJwt(std::string_view text, std::vector<Match>& out) {
  ForEach(text, "eyJ", [&](size_t at) {
    if (!StartsWord(text, at)) return;
    size_t dot = RunEnd(text, at, IsTokenChar);
    if (dot - at < 10 || dot >= text.size() || text[dot] != '.') return;
    if (text.substr(dot + 1, 3) != "eyJ") return;
    size_t end = RunEnd(text, dot + 1, IsTokenChar);
    if (end - dot - 1 < 10) return;
    if (end < text.size() && text[end] == '.') {
      size_t sig = RunEnd(text, end + 1, IsTokenChar);
      if (sig > end + 1) end = sig;
    }
    out.push_back({at, end, "jwt"});
  });
}

// "Bearer <token>" anywhere; "Authorization:", "x-api-key:", "api-key:" header lines.
// `lower` is the text in lower case (same length).
void ScanAuth(std::string_view text, std::string_view lower, std::vector<Match>& out) {
  ForEach(lower, "bearer", [&](size_t at) {
    if (at > 0 && IsAlnum(text[at - 1])) return;
    size_t start = RunEnd(text, at + 6, [](char c) { return c == ' ' || c == '\t'; });
    if (start == at + 6) return;
    size_t end = RunEnd(text, start, IsBearerChar);
    if (end - start >= 16) out.push_back({start, end, "bearer"});
  });
  for (std::string_view name : {"authorization:", "x-api-key:", "api-key:", "api_key:"}) {
    ForEach(lower, name, [&](size_t at) {
      if (!StartsWord(lower, at)) return;
      size_t start = RunEnd(text, at + name.size(), [](char c) { return c == ' ' || c == '\t'; });
      for (std::string_view scheme : {"bearer", "basic", "token"}) {
        if (lower.substr(start, scheme.size()) == scheme && start + scheme.size() < text.size() &&
            (text[start + scheme.size()] == ' ' || text[start + scheme.size()] == '\t')) {
          start = RunEnd(text, start + scheme.size(), [](char c) { return c == ' ' || c == '\t'; });
          break;
        }
      }
      if (text.substr(start).starts_with("[REDACTED:")) return;  // already done
      size_t end = RunEnd(text, start, IsHeaderValueChar);
      if (end - start >= 8) out.push_back({start, end, "auth_header"});
    });
  }
  ForEach(lower, "aws_secret_access_key", [&](size_t at) {
    size_t start = RunEnd(text, at + 21, [](char c) {
      return c == ' ' || c == '\t' || c == '=' || c == ':' || c == '"' || c == '\'';
    });
    size_t end = RunEnd(text, start, [](char c) { return IsAlnum(c) || c == '/' || c == '+'; });
    if (end - start == 40) out.push_back({start, end, "aws_secret_key"});
  });
}

// -----BEGIN ... PRIVATE KEY----- through its END line (or the end of the text).
void ScanPrivateKeys(std::string_view text, std::vector<Match>& out) {
  ForEach(text, "-----BEGIN ", [&](size_t at) {
    size_t label_end = text.find("-----", at + 11);
    if (label_end == std::string_view::npos || label_end - at > 80) return;
    if (!text.substr(at, label_end - at).ends_with("PRIVATE KEY")) return;
    size_t end = text.size();
    size_t end_line = text.find("-----END ", label_end + 5);
    if (end_line != std::string_view::npos) {
      size_t close = text.find("-----", end_line + 9);
      end = close == std::string_view::npos ? text.size() : close + 5;
    }
    out.push_back({at, end, "private_key"});
  });
}

void ScanPatterns(std::string_view text, std::vector<Match>& out) {
  ScanSkKeys(text, out);
  ScanAws(text, out);
  for (std::string_view p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    ScanPrefixed(text, p, 36, IsAlnum, "github_token", out);
  }
  ScanPrefixed(
      text, "github_pat_", 22, [](char c) { return IsAlnum(c) || c == '_'; }, "github_token", out);
  for (std::string_view p : {"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}) {
    ScanPrefixed(
        text, p, 10, [](char c) { return IsAlnum(c) || c == '-'; }, "slack_token", out);
  }
  ScanPrefixed(text, "AIza", 35, IsTokenChar, "google_api_key", out);
  ScanPrefixed(text, "hf_", 30, IsAlnum, "huggingface_token", out);
  ScanJwt(text, out);
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  ScanAuth(text, lower, out);
  ScanPrivateKeys(text, out);
}

// The base64 text of `value` as it appears inside a longer base64 string starting `k`
// bytes before it (k = 0, 1, 2): only whole 4-character groups that depend on `value`
// alone.
std::string Base64Core(std::string_view value, size_t k, bool url) {
  size_t skip = (3 - k) % 3;
  if (value.size() <= skip) return "";
  std::string_view rest = value.substr(skip);
  rest = rest.substr(0, rest.size() / 3 * 3);
  return Base64Encode(rest, url, false);
}

}  // namespace

RedactionContext::~RedactionContext() {
  for (Literal& l : literals_) OPENSSL_cleanse(l.value.data(), l.value.size());
}

bool RedactionContext::IsSecretName(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (std::string_view word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return false;
}

void RedactionContext::AddLiteral(std::string rule, std::string_view value) {
  if (value.size() < 4) return;  // a shorter literal would blank out ordinary words
  auto add = [&](std::string v) {
    if (v.size() < 4) return;
    for (const Literal& l : literals_) {
      if (l.value == v) return;
    }
    literals_.push_back({rule, std::move(v)});
  };
  add(std::string(value));
  if (value.size() >= 8) {
    for (bool url : {false, true}) {
      for (size_t k = 0; k < 3; ++k) {
        std::string core = Base64Core(value, k, url);
        if (core.size() >= 8) add(std::move(core));
      }
    }
  }
  // Longest first, so a literal that contains another is replaced whole.
  std::stable_sort(literals_.begin(), literals_.end(), [](const Literal& a, const Literal& b) {
    return a.value.size() > b.value.size();
  });
}

RedactionContext RedactionContext::FromEnvironment(const std::map<std::string, std::string>& env,
                                                   std::string_view key_env) {
  RedactionContext ctx;
  if (!key_env.empty()) {
    auto it = env.find(std::string(key_env));
    if (it != env.end()) ctx.AddLiteral("provider_key", it->second);
  }
  for (const auto& [name, value] : env) {
    if (name == key_env || value.size() < kMinEnvSecretLength || !IsSecretName(name)) continue;
    ctx.AddLiteral("env:" + name, value);
  }
  return ctx;
}

RedactionContext RedactionContext::FromProcessEnvironment(std::string_view key_env) {
  std::map<std::string, std::string> env = ProcessEnvironment();
  RedactionContext ctx = FromEnvironment(env, key_env);
  for (auto& [name, value] : env) OPENSSL_cleanse(value.data(), value.size());
  return ctx;
}

namespace {

// One pass: every match of the text as given replaced.
RedactionResult RedactOnce(std::string_view text, const RedactionContext& ctx) {
  std::vector<Match> matches;
  for (const RedactionContext::Literal& l : ctx.literals()) {
    for (size_t at = text.find(l.value); at != std::string_view::npos;
         at = text.find(l.value, at + l.value.size())) {
      matches.push_back({at, at + l.value.size(), l.rule});
    }
  }
  if (ctx.patterns()) ScanPatterns(text, matches);
  RedactionResult result;
  if (matches.empty()) {
    result.text = std::string(text);
    return result;
  }
  // Earliest first; at one start the longest first, so it absorbs the shorter ones.
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  result.text.reserve(text.size());
  size_t copied = 0;
  size_t i = 0;
  while (i < matches.size()) {
    size_t begin = matches[i].begin;
    size_t end = matches[i].end;
    std::string_view rule = matches[i].rule;
    for (++i; i < matches.size() && matches[i].begin < end; ++i) {
      end = std::max(end, matches[i].end);
    }
    result.text.append(text.substr(copied, begin - copied));
    result.text.append("[REDACTED:").append(rule).append("]");
    copied = end;
    ++result.count;
    ++result.by_rule[std::string(rule)];
  }
  result.text.append(text.substr(copied));
  return result;
}

}  // namespace

RedactionResult RedactSecrets(std::string_view text, const RedactionContext& ctx) {
  RedactionResult result = RedactOnce(text, ctx);
  // A replacement can expose a token that started mid-word before ("x<key>ghp_..." becomes
  // "x[REDACTED:...]ghp_..."): repeat until a pass finds nothing, so the output never
  // holds a match (8 passes are far more than any real input needs).
  for (int pass = 0; pass < 8 && result.count > 0; ++pass) {
    RedactionResult next = RedactOnce(result.text, ctx);
    if (next.count == 0) break;
    result.text = std::move(next.text);
    result.count += next.count;
    for (const auto& [rule, n] : next.by_rule) result.by_rule[rule] += n;
  }
  return result;
}

std::string RedactedText(std::string_view text, const RedactionContext& ctx) {
  return RedactSecrets(text, ctx).text;
}

const std::vector<std::string>& RedactionPatternRules() {
  static const std::vector<std::string> kRules = {
      "anthropic_key", "openai_key",  "aws_access_key", "aws_secret_key",
      "github_token",  "slack_token", "google_api_key", "huggingface_token",
      "jwt",           "bearer",      "auth_header",    "private_key"};
  return kRules;
}

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

std::string Base64Encode(std::string_view bytes, bool url, bool pad) {
  const char* alphabet = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                             : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                 (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(alphabet[(v >> s) & 63]);
  }
  size_t left = bytes.size() - i;
  if (left > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (left == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (left == 2) out.push_back(alphabet[(v >> 6) & 63]);
    if (pad) out.append(left == 1 ? "==" : "=");
  }
  return out;
}

}  // namespace av
