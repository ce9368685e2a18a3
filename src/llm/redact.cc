#include "llm/redact.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

#include "llm/secret_patterns.h"

extern char** environ;

namespace av {
namespace {

struct Match {
  size_t begin;
  size_t end;
  std::string_view rule;
};

void ScanPatterns(std::string_view text, std::vector<Match>& out) {
  for (const SecretPatternMatch& m : FindSecretPatterns(text)) {
    out.push_back({m.begin, m.end, m.rule});
  }
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
  static const std::vector<std::string> kRules = [] {
    std::vector<std::string> rules;
    for (const SecretPattern& p : SecretPatterns()) rules.emplace_back(p.rule);
    return rules;
  }();
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
