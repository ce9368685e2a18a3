// Literal secrets in configuration text: the provider issue's gitleaks-style patterns
// (Anthropic sk-ant-..., OpenAI sk-proj-... and sk-...T3BlbkFJ..., AWS AKIA..., GitHub
// ghp_..., Google AIza..., JWTs, "Bearer ..." and private key blocks), and which values are
// placeholders rather than keys. Matched by hand-written scanners (no regex engine on
// hostile text). When src/llm/redact.h lands, both should share one pattern table; this
// file says the same thing in the meantime (doc/agent-configs.md). Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace av {

struct SecretMatch {
  std::string rule;  // "anthropic_api_key", "jwt", ...
  size_t offset = 0, length = 0;
};

std::vector<SecretMatch> FindSecrets(std::string_view text);

// "${TAOTOKEN_API_KEY}", "$VAR", "env:VAR", "<your key>", "YOUR_API_KEY", "sk-xxxx...",
// "REPLACE_ME", "changeme", "placeholder", "***", the empty string.
bool LooksLikePlaceholder(std::string_view value);

// Field names whose value is a credential: key, api_key, apiKey, token, secret, password,
// ANTHROPIC_AUTH_TOKEN, *_API_KEY, *_TOKEN, *_SECRET, ... (case-insensitive).
bool IsSecretFieldName(std::string_view name);

// What a message may say about a secret: its rule and length, never its characters.
std::string DescribeSecret(std::string_view value);

}  // namespace av
