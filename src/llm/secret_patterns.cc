#include "llm/secret_patterns.h"

#include <algorithm>
#include <cctype>

namespace av {
namespace {

using Out = std::vector<SecretPatternMatch>;

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
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

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
                  std::string_view rule, Out& out) {
  ForEach(text, prefix, [&](size_t at) {
    if (!StartsWord(text, at)) return;
    size_t end = RunEnd(text, at + prefix.size(), pred);
    if (end - at - prefix.size() >= min_run) out.push_back({at, end, rule});
  });
}

void ScanAnthropic(std::string_view text, std::string_view, Out& out) {
  ScanPrefixed(text, "sk-ant-", 20, IsTokenChar, "anthropic_key", out);
}

// sk-proj-, sk-svcacct-, sk-admin- (20+), sk-...T3BlbkFJ..., and long legacy sk- keys.
void ScanOpenAi(std::string_view text, std::string_view, Out& out) {
  ForEach(text, "sk-", [&](size_t at) {
    if (!StartsWord(text, at)) return;
    size_t end = RunEnd(text, at + 3, IsTokenChar);
    std::string_view run = text.substr(at + 3, end - at - 3);
    if (run.starts_with("ant-")) return;  // the anthropic_key row's
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

void ScanAwsAccessKey(std::string_view text, std::string_view, Out& out) {
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

// The 40 characters after "aws_secret_access_key" (=, :, quotes and blanks between).
void ScanAwsSecretKey(std::string_view text, std::string_view lower, Out& out) {
  ForEach(lower, "aws_secret_access_key", [&](size_t at) {
    size_t start = RunEnd(text, at + 21, [](char c) {
      return c == ' ' || c == '\t' || c == '=' || c == ':' || c == '"' || c == '\'';
    });
    size_t end = RunEnd(text, start, [](char c) { return IsAlnum(c) || c == '/' || c == '+'; });
    if (end - start == 40) out.push_back({start, end, "aws_secret_key"});
  });
}

void ScanGitHub(std::string_view text, std::string_view, Out& out) {
  for (std::string_view p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    ScanPrefixed(text, p, 36, IsAlnum, "github_token", out);
  }
  ScanPrefixed(
      text, "github_pat_", 22, [](char c) { return IsAlnum(c) || c == '_'; }, "github_token", out);
}

void ScanSlack(std::string_view text, std::string_view, Out& out) {
  for (std::string_view p : {"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}) {
    ScanPrefixed(
        text, p, 10, [](char c) { return IsAlnum(c) || c == '-'; }, "slack_token", out);
  }
}

void ScanGoogle(std::string_view text, std::string_view, Out& out) {
  ScanPrefixed(text, "AIza", 35, IsTokenChar, "google_api_key", out);
}

void ScanHuggingFace(std::string_view text, std::string_view, Out& out) {
  ScanPrefixed(text, "hf_", 30, IsAlnum, "huggingface_token", out);
}

// eyJ<header>.eyJ<payload>[.<signature>]: a JSON Web Token.
void ScanJwt(std::string_view text, std::string_view, Out& out) {
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

// "Bearer <token of 16+ characters>" anywhere in text; the match is the token.
void ScanBearer(std::string_view text, std::string_view lower, Out& out) {
  ForEach(lower, "bearer", [&](size_t at) {
    if (at > 0 && IsAlnum(text[at - 1])) return;
    size_t start = RunEnd(text, at + 6, IsBlank);
    if (start == at + 6) return;
    size_t end = RunEnd(text, start, IsBearerChar);
    if (end - start >= 16) out.push_back({start, end, "bearer"});
  });
}

// The value of "Authorization:", "x-api-key:", "api-key:", "api_key:" lines (8+ chars).
void ScanAuthHeader(std::string_view text, std::string_view lower, Out& out) {
  for (std::string_view name : {"authorization:", "x-api-key:", "api-key:", "api_key:"}) {
    ForEach(lower, name, [&](size_t at) {
      if (!StartsWord(lower, at)) return;
      size_t start = RunEnd(text, at + name.size(), IsBlank);
      for (std::string_view scheme : {"bearer", "basic", "token"}) {
        if (lower.substr(start, scheme.size()) == scheme && start + scheme.size() < text.size() &&
            IsBlank(text[start + scheme.size()])) {
          start = RunEnd(text, start + scheme.size(), IsBlank);
          break;
        }
      }
      if (text.substr(start).starts_with("[REDACTED:")) return;  // already done
      size_t end = RunEnd(text, start, IsHeaderValueChar);
      if (end - start >= 8) out.push_back({start, end, "auth_header"});
    });
  }
}

// -----BEGIN ... PRIVATE KEY----- through its END line (or the end of the text).
void ScanPrivateKey(std::string_view text, std::string_view, Out& out) {
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

}  // namespace

const std::vector<SecretPattern>& SecretPatterns() {
  static const std::vector<SecretPattern> kTable = {
      {"anthropic_key", "sk-ant- + 20 or more", &ScanAnthropic},
      {"openai_key",
       "sk-proj-, sk-svcacct-, sk-admin- + 20; sk-...T3BlbkFJ...; sk- + 32 with a digit",
       &ScanOpenAi},
      {"aws_access_key", "AKIA/ASIA/ABIA/ACCA + 16 upper-case letters or digits",
       &ScanAwsAccessKey},
      {"aws_secret_key", "40 characters after aws_secret_access_key", &ScanAwsSecretKey},
      {"github_token", "ghp_/gho_/ghu_/ghs_/ghr_ + 36, github_pat_ + 22", &ScanGitHub},
      {"slack_token", "xoxa-/xoxb-/xoxp-/xoxr-/xoxs- + 10", &ScanSlack},
      {"google_api_key", "AIza + 35", &ScanGoogle},
      {"huggingface_token", "hf_ + 30", &ScanHuggingFace},
      {"jwt", "eyJ....eyJ...[....]", &ScanJwt},
      {"bearer", "Bearer + 16 or more", &ScanBearer},
      {"auth_header", "the value of Authorization:, x-api-key:, api-key:, api_key:",
       &ScanAuthHeader},
      {"private_key", "-----BEGIN ... PRIVATE KEY----- through its END line", &ScanPrivateKey},
  };
  return kTable;
}

std::vector<SecretPatternMatch> FindSecretPatterns(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<SecretPatternMatch> out;
  for (const SecretPattern& p : SecretPatterns()) p.scan(text, lower, out);
  return out;
}

}  // namespace av
