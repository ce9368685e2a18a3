// The one table of credential shapes attnverify knows (Anthropic, OpenAI, AWS, GitHub,
// Slack, Google, Hugging Face keys, JWTs, bearer tokens, auth header values, private key
// blocks). Both the outgoing redaction (llm/redact.h) and the agent-config audit's
// scanner (agentconfig/secret_scan.h) read it, so a shape added here is redacted and audited
// alike. Each row is a hand-written linear scanner (no regex engine on hostile text;
// doc/provider.md says why). Pure functions; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace av {

struct SecretPatternMatch {
  size_t begin = 0;       // byte offsets into the scanned text
  size_t end = 0;         // one past the last byte
  std::string_view rule;  // the row's rule name; points into the static table
};

struct SecretPattern {
  std::string_view rule;   // "github_token", ...: the redaction marker and the audit's word
  std::string_view shape;  // for people: "ghp_/gho_/ghu_/ghs_/ghr_ + 36, github_pat_ + 22"
  // Appends every match in `text`; `lower` is `text` in ASCII lower case (same length).
  void (*scan)(std::string_view text, std::string_view lower, std::vector<SecretPatternMatch>& out);
};

// The table, in the order doc/provider.md lists it.
const std::vector<SecretPattern>& SecretPatterns();

// Every match of every row, unsorted (matches of different rows may overlap).
std::vector<SecretPatternMatch> FindSecretPatterns(std::string_view text);

}  // namespace av
