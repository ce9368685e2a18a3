// Outgoing-secret redaction: finds secrets in text and replaces each with
// "[REDACTED:<rule>]". The provider layer applies it to every prompt before it is sent
// and to every byte it writes (ledger, cassettes, traces, error messages); any other
// writer may call RedactSecrets(text, ctx) too. Rules: literal values (the provider key,
// environment variables named like secrets, and their base64 forms) and hand-written
// linear scanners for well-known token shapes (the table of llm/secret_patterns.h, which
// the agent-config audit reads too; doc/provider.md lists them). A context is
// read-only once built and may be shared between threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace av {

class RedactionContext {
 public:
  RedactionContext() = default;
  RedactionContext(RedactionContext&&) = default;
  RedactionContext& operator=(RedactionContext&&) = default;
  RedactionContext(const RedactionContext&) = delete;
  RedactionContext& operator=(const RedactionContext&) = delete;
  ~RedactionContext();  // overwrites the literal values it held

  // The variables a secret is looked for in: names containing KEY, TOKEN, SECRET,
  // PASSWORD, PASSWD or CREDENTIAL (any case), values of at least 8 characters.
  static bool IsSecretName(std::string_view name);
  static constexpr size_t kMinEnvSecretLength = 8;

  // A context holding `key_env`'s value (rule "provider_key", whatever its length
  // beyond 4) and every secret-named variable of `env` (rule "env:NAME").
  static RedactionContext FromEnvironment(const std::map<std::string, std::string>& env,
                                          std::string_view key_env = "");
  // The same over this process's environment, read now.
  static RedactionContext FromProcessEnvironment(std::string_view key_env = "");

  // Removes `value` wherever it appears, and its base64 forms (standard and URL
  // alphabets, at any alignment) when it is at least 8 bytes long.
  void AddLiteral(std::string rule, std::string_view value);
  // Off: literals only (tests of the literal rules).
  void set_patterns(bool on) { patterns_ = on; }
  bool patterns() const { return patterns_; }

  struct Literal {
    std::string rule;
    std::string value;
  };
  const std::vector<Literal>& literals() const { return literals_; }

 private:
  std::vector<Literal> literals_;
  bool patterns_ = true;
};

struct RedactionResult {
  std::string text;
  int64_t count = 0;                       // replacements made
  std::map<std::string, int64_t> by_rule;  // rule -> replacements
};

// Every match of every rule replaced by "[REDACTED:<rule>]" (overlapping matches merge
// into one, named after the first). Linear in text size per rule.
RedactionResult RedactSecrets(std::string_view text, const RedactionContext& ctx);

// The redacted text alone.
std::string RedactedText(std::string_view text, const RedactionContext& ctx);

// The names of the pattern rules ("anthropic_key", "aws_access_key", ...).
const std::vector<std::string>& RedactionPatternRules();

// This process's environment as a map, read now.
std::map<std::string, std::string> ProcessEnvironment();

// RFC 4648 base64; `url` picks the URL-safe alphabet; `pad` the trailing '='.
std::string Base64Encode(std::string_view bytes, bool url = false, bool pad = true);

}  // namespace av
