// Literal secrets in configuration text, for the agent-config audit: the matches of the
// one credential table (llm/secret_patterns.h, the same rows the outgoing redaction uses)
// that are not placeholders, and which values are placeholders rather than keys. A
// placeholder is told by its shape (`${VAR}`, `YOUR_API_KEY`, `sk-ant-xxxx`), never by a
// word it contains: "fake" or "example" inside a value does not make it safe to print
// (doc/agent-configs.md). Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

struct SecretMatch {
  std::string rule;  // a rule of llm/secret_patterns.h: "anthropic_key", "jwt", ...
  size_t offset = 0, length = 0;
};

// The table's matches in `text`, earliest first, overlaps merged into the first;
// matches shaped like placeholders (LooksLikePlaceholder) left out.
std::vector<SecretMatch> FindSecrets(std::string_view text);

// By shape only: the empty string; a reference to a variable ("${TAOTOKEN_API_KEY}",
// "$VAR", "env:VAR"); an upper-case name without digits ("YOUR_API_KEY", "REPLACE_ME");
// words in angle brackets ("<your key>"); a short prefix followed by a mask of 3 or more
// x, X, * or . ("sk-ant-xxxx", "***", "sk-..."). Anything else may be a key.
bool LooksLikePlaceholder(std::string_view value);

// Field names whose value is a credential: key, api_key, apiKey, token, secret, password,
// ANTHROPIC_AUTH_TOKEN, *_API_KEY, *_TOKEN, *_SECRET, ... (case-insensitive).
bool IsSecretFieldName(std::string_view name);

// What a message may say about a secret: its rule and length, never its characters.
std::string DescribeSecret(std::string_view value);

}  // namespace av
