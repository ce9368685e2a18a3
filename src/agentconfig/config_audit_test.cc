#include "agentconfig/config_audit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agentconfig/agent_emit.h"
#include "agentconfig/audit_writers.h"
#include "agentconfig/secret_scan.h"
#include "core/file.h"
#include "llm/redact.h"
#include "llm/secret_patterns.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string Data(const std::string& rel) {
  return testing::SourceDir() + "/testdata/policy/" + rel;
}

// "severity rule file-basename:line" for each finding, to compare with an expected list.
std::vector<std::string> Summary(const AuditReport& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) {
    std::string file = f.file.substr(f.file.find("testdata/policy/") == std::string::npos
                                         ? 0
                                         : f.file.find("testdata/policy/") + 16);
    out.push_back(std::string(SeverityName(f.severity)) + " " + f.rule + " " + file + ":" +
                  std::to_string(f.line));
  }
  return out;
}

bool HasFinding(const AuditReport& r, const std::string& rule, const std::string& file_suffix,
                int line, const std::string& severity) {
  for (const Finding& f : r.findings) {
    if (f.rule == rule && f.line == line && SeverityName(f.severity) == severity &&
        f.file.size() >= file_suffix.size() &&
        f.file.compare(f.file.size() - file_suffix.size(), file_suffix.size(), file_suffix) == 0) {
      return true;
    }
  }
  return false;
}

std::string Dump(const AuditReport& r) {
  std::string s;
  for (const std::string& line : Summary(r)) s += "\n  " + line;
  return s;
}

TEST(ConfigAudit, HowToConfigsAsTheWorkflowWritesThem) {
  Result<ProviderTable> p = ReadProviderTable(Data("howto/attention-verify/attnverify.toml"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  Result<AuditReport> r =
      AuditAgentConfigs({Data("howto/.claude/settings.json"), Data("howto/.codex/config.toml"),
                         Data("howto/cc-switch-provider.json")},
                        &*p);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string s = "howto/.claude/settings.json", c = "howto/.codex/config.toml";
  // The workflow's own notes: Bash(python:*) is arbitrary code, the curl deny is walked around.
  EXPECT_TRUE(HasFinding(*r, "claude.allow_too_broad", s, 12, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "claude.deny_cannot_hold", s, 19, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "claude.token_placeholder", s, 4, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "claude.allow_too_broad", s, 11, "warning")) << Dump(*r);  // nvcc
  EXPECT_TRUE(HasFinding(*r, "claude.allow_too_broad", s, 14, "warning")) << Dump(*r);  // ncu
  EXPECT_TRUE(HasFinding(*r, "claude.deny_missing", s, 16, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "claude.bypass_not_disabled", s, 6, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.base_url_mismatch", c, 6, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "codex.wire_api", c, 4, "warning")) << Dump(*r);
  EXPECT_EQ(r->Errors(), 2u) << Dump(*r);
  for (const Finding& f : r->findings) {
    EXPECT_FALSE(f.message.empty());
    EXPECT_GE(f.line, 1);
  }
  // The finding about the curl deny names both ways around it.
  for (const Finding& f : r->findings) {
    if (f.rule != "claude.deny_cannot_hold") continue;
    EXPECT_NE(f.message.find("https://prod"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("$URL"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("Bash(curl:*)"), std::string::npos) << f.message;
  }
}

// The mistakes fixtures with their @FAKE_ANTHROPIC_KEY@ replaced by a fake key of the real
// shape, assembled here so that no file in the repository looks like a leaked key.
std::vector<std::string> MistakesWithFakeKey(const testing::TempDir& dir, const std::string& key) {
  std::filesystem::create_directories(dir.File("mistakes"));
  std::vector<std::string> paths;
  for (const char* name : {"settings.json", "config.toml", "cc-switch.json"}) {
    Result<std::string> text = ReadFileToString(Data(std::string("mistakes/") + name));
    EXPECT_TRUE(text.ok());
    std::string t = text.ok() ? *text : "";
    for (size_t at; (at = t.find("@FAKE_ANTHROPIC_KEY@")) != std::string::npos;)
      t.replace(at, 20, key);
    paths.push_back(dir.File(std::string("mistakes/") + name));
    std::ofstream(paths.back()) << t;
  }
  return paths;
}

TEST(ConfigAudit, CommonMistakesAreErrorsWithTheirLines) {
  Result<ProviderTable> p = ReadProviderTable(Data("howto/attention-verify/attnverify.toml"));
  ASSERT_TRUE(p.ok());
  testing::TempDir dir;
  const std::string key_part = "TESTONLYq7W2x9Z4k1M8n3B6v5C0d2F4g6H8j0K2l4";
  Result<AuditReport> r = AuditAgentConfigs(
      MistakesWithFakeKey(dir, "sk-" + std::string("ant-api03-") + key_part + "N6p8R0s2"), &*p);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string s = "mistakes/settings.json", c = "mistakes/config.toml",
                    w = "mistakes/cc-switch.json";
  EXPECT_TRUE(HasFinding(*r, "agent_config.base_url", s, 3, "error")) << Dump(*r);  // UTM
  EXPECT_TRUE(HasFinding(*r, "agent_config.base_url_mismatch", s, 3, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", s, 4, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "claude.allow_too_broad", s, 7, "error"))
      << Dump(*r);  // Bash, cd, make
  EXPECT_TRUE(HasFinding(*r, "claude.deny_cannot_hold", s, 8, "warning")) << Dump(*r);  // rm -rf
  EXPECT_TRUE(HasFinding(*r, "claude.bypass_permissions", s, 9, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "codex.anthropic_variable", c, 7, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.key_env_mismatch", c, 7, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "codex.deprecated_key", c, 8, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.base_url", c, 6, "error")) << Dump(*r);  // plain http
  EXPECT_TRUE(HasFinding(*r, "codex.key_reaches_commands", c, 11, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.model_mismatch", c, 1, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", w, 7, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "ccswitch.foreign_credentials", w, 8, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.base_url_mismatch", w, 6, "warning"))
      << Dump(*r);  // slash
  // No finding, no writer, repeats the key.
  std::string all = AuditToMarkdown(*r, "audit") + AuditToJson(*r, "0", "audit").dump() +
                    AuditToSarif(*r, "0").dump();
  EXPECT_EQ(all.find(key_part), std::string::npos);
}

TEST(ConfigAudit, WithoutProviderFilesAreComparedWithEachOther) {
  testing::TempDir dir;
  std::ofstream(dir.File("a.json"))
      << R"({"env": {"ANTHROPIC_BASE_URL": "https://one.example/api"}, "apiKeyHelper": "printenv ONE_KEY"})";
  std::ofstream(dir.File("b.toml")) << "model_provider = \"x\"\n[model_providers.x]\nname = \"x\"\n"
                                       "base_url = \"https://two.example/api/v1\"\nenv_key = "
                                       "\"TWO_KEY\"\nwire_api = \"responses\"\n";
  Result<AuditReport> r = AuditAgentConfigs({dir.File("a.json"), dir.File("b.toml")}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(HasFinding(*r, "agent_config.no_provider", "a.json", 1, "note")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.base_url_mismatch", "b.toml", 4, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.key_env_mismatch", "b.toml", 5, "error")) << Dump(*r);
}

TEST(ConfigAudit, LayersMergeAsClaudeCodeMergesThem) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("p/.claude"));
  // The project grants python; the local layer adds the denies; the merged view decides.
  std::ofstream(dir.File("p/.claude/settings.json"))
      << R"json({"env": {"ANTHROPIC_BASE_URL": "https://taotoken.net/api"},
 "permissions": {"allow": ["Bash(git status:*)"], "defaultMode": "bypassPermissions"}})json";
  std::ofstream(dir.File("p/.claude/settings.local.json"))
      << R"json({"permissions": {"deny": ["Bash(git push:*)", "Bash(rm:*)", "Bash(curl:*)", "Bash(wget:*)",
 "Bash(ssh:*)", "Edit", "Write"], "defaultMode": "default", "disableBypassPermissionsMode": "disable"}})json";
  Result<AuditReport> r = AuditAgentConfigs(
      {dir.File("p/.claude/settings.local.json"), dir.File("p/.claude/settings.json")}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const Finding& f : r->findings) {
    EXPECT_NE(f.rule, "claude.bypass_permissions") << "the local layer's default mode wins";
    EXPECT_NE(f.rule, "claude.deny_missing");
    EXPECT_NE(f.rule, "claude.bypass_not_disabled");
  }
  EXPECT_EQ(r->files[0].kind, "claude-code settings (local layer)");
}

TEST(ConfigAudit, UnparsableFilesAreErrorsNamingTheFile) {
  testing::TempDir dir;
  std::ofstream(dir.File("bad.json")) << "{\n  \"permissions\": [\n";
  Result<AuditReport> r = AuditAgentConfigs({dir.File("bad.json")}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.json"), std::string::npos) << r.status().message();
  std::ofstream(dir.File("bad.toml")) << "model = \n";
  r = AuditAgentConfigs({dir.File("bad.toml")}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.toml:1"), std::string::npos) << r.status().message();
  r = AuditAgentConfigs({dir.File("missing.json")}, nullptr);
  EXPECT_FALSE(r.ok());
}

TEST(ConfigAudit, InvalidRulesAndDuplicateKeysAreFound) {
  testing::TempDir dir;
  std::ofstream(dir.File("s.json"))
      << "{\n  \"permissions\": {\n    \"allow\": [\"Bash(git diff\", 3],\n"
         "    \"defaultMode\": \"default\",\n    \"defaultMode\": \"bypassPermissions\"\n  }\n}\n";
  Result<AuditReport> r = AuditAgentConfigs({dir.File("s.json")}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(HasFinding(*r, "claude.invalid_rule", "s.json", 3, "error")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.duplicate_key", "s.json", 5, "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "claude.bypass_permissions", "s.json", 5, "error")) << Dump(*r);
}

}  // namespace
}  // namespace av

namespace av {
namespace {

// Every text a finding holds, in all three writers.
std::string Rendered(const AuditReport& r) {
  return AuditToMarkdown(r, "audit") + AuditToJson(r, "0", "audit").dump() +
         AuditToSarif(r, "0").dump();
}

bool HasRule(const AuditReport& r, const std::string& rule, const std::string& severity) {
  for (const Finding& f : r.findings) {
    if (f.rule == rule && SeverityName(f.severity) == severity) return true;
  }
  return false;
}

// A newcomer's ANTHROPIC_AUTH_TOKEN "tt-fake-canary-123456789" was taken for a placeholder
// (it contains "fake") and printed verbatim on stdout, in --md and in --json, although it
// was the value of $TAOTOKEN_API_KEY. Words never make a placeholder, and no value of a
// secret in the environment is ever repeated.
TEST(ConfigAudit, AKeyThatSaysFakeOrExampleIsStillAKeyAndIsNeverRepeated) {
  Result<ProviderTable> p = ReadProviderTable(Data("howto/attention-verify/attnverify.toml"));
  ASSERT_TRUE(p.ok());
  const std::string key = std::string("tt-") + "fake-canary-" + "123456789";
  const std::string example = std::string("example-") + "key-0123456789abcdef";
  const std::string deploy = std::string("dep-") + "fake-example-token-42";
  testing::TempDir dir;
  const std::string path = dir.File(".claude/settings.json");
  std::filesystem::create_directories(dir.File(".claude"));
  std::ofstream(path) << "{\n  \"env\": {\n    \"ANTHROPIC_BASE_URL\": \"https://taotoken.net/api\",\n"
                      << "    \"ANTHROPIC_AUTH_TOKEN\": \"" << key << "\",\n"
                      << "    \"ANTHROPIC_API_KEY\": \"" << example << "\",\n"
                      << "    \"NOTE\": \"deploy with " << deploy << "\"\n  }\n}\n";
  const std::map<std::string, std::string> env = {{"TAOTOKEN_API_KEY", key},
                                                  {"DEPLOY_TOKEN", deploy}};
  Result<AuditReport> r = AuditAgentConfigs({path}, &*p, &env);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(HasRule(*r, "claude.token_placeholder", "warning")) << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", "settings.json", 4, "error"))
      << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", "settings.json", 5, "error"))
      << Dump(*r);
  bool named = false;
  for (const Finding& f : r->findings) {
    named = named || f.message.find("the value of $TAOTOKEN_API_KEY (24 characters)") !=
                         std::string::npos;
  }
  EXPECT_TRUE(named) << "the finding should say whose value the key is";
  const std::string all = Rendered(*r);
  for (const std::string& secret : {key, example, deploy}) {
    EXPECT_EQ(all.find(secret), std::string::npos) << secret << " in\n" << all;
  }
}

// Placeholders by shape only: references, upper-case names, words in angle brackets, masks.
TEST(ConfigAudit, PlaceholdersAreKnownByTheirShapeNotByTheirWords) {
  for (const char* v : {"", "${TAOTOKEN_API_KEY}", "$TAOTOKEN_API_KEY", "env:TAOTOKEN_API_KEY",
                        "YOUR_API_KEY", "REPLACE_ME", "<your key>", "sk-ant-xxxxxxxx", "***",
                        "sk-..."}) {
    EXPECT_TRUE(LooksLikePlaceholder(v)) << v;
  }
  // Key-shaped values are assembled here, so no secret scanner flags the repository.
  const std::string key_shaped = std::string("sk-ant-") + "api03-" + "EXAMPLEkey" + "0123456789abcdef";
  for (const std::string& v : {std::string("tt-fake-canary-123456789"), std::string("example-key-0123"),
                               std::string("fake"), std::string("dummy-key-1"),
                               std::string("changeme123"), key_shaped, std::string("${A:-sk-x}"),
                               std::string("<sk-ant-api03-aaaa1111>"),
                               std::string("your-real-key-9f8e7d")}) {
    EXPECT_FALSE(LooksLikePlaceholder(v)) << v;
  }
  // A value shaped like a placeholder that is a secret's value is a key all the same.
  Result<ProviderTable> p = ReadProviderTable(Data("howto/attention-verify/attnverify.toml"));
  ASSERT_TRUE(p.ok());
  const std::map<std::string, std::string> env = {{"TAOTOKEN_API_KEY", "YOUR_TAOTOKEN_API_KEY"}};
  Result<AuditReport> r = AuditAgentConfigs({Data("howto/.claude/settings.json")}, &*p, &env);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", "settings.json", 4, "error"))
      << Dump(*r);
  EXPECT_EQ(Rendered(*r).find("YOUR_TAOTOKEN_API_KEY"), std::string::npos);
}

// The audit's scanner missed Slack xoxb- and Hugging Face hf_ tokens that the redaction
// caught: two hand-written tables. Now one (llm/secret_patterns.h): every row of it is
// found by both, under the same rule name.
TEST(ConfigAudit, TheAuditFindsEveryShapeTheRedactionKnows) {
  const std::map<std::string, std::string> samples = {
      {"anthropic_key", "sk-ant-api03-" + std::string(40, 'A') + "0a"},
      {"openai_key", "sk-proj-" + std::string(30, 'b') + "1"},
      {"aws_access_key", "AKIA" + std::string(12, 'Q') + "7Z3K"},
      {"aws_secret_key", "aws_secret_access_key = " + std::string(36, 'w') + "9/+a"},
      {"github_token", "ghp_" + std::string(34, 'e') + "12"},
      {"slack_token", "xoxb-" + std::string(12, '1') + "-abcDEF"},
      {"google_api_key", "AIza" + std::string(34, 'g') + "5"},
      {"huggingface_token", "hf_" + std::string(32, 'h') + "7q"},
      {"jwt", std::string("eyJhbGciOiJI") + "UzI1NiJ9.eyJzdWIiOiIx" + "MjM0NTY3ODkwIn0.c2lnbmF0dXJl"},
      {"bearer", "Authorization header Bearer " + std::string(20, 'z') + "9"},
      {"auth_header", "x-api-key: " + std::string(12, 'k') + "42"},
      {"private_key", std::string("-----BEGIN ") + "RSA PRIVATE KEY-----\nMIIB\n-----END RSA " +
                          "PRIVATE KEY-----"},
  };
  ASSERT_EQ(samples.size(), SecretPatterns().size());
  for (const SecretPattern& row : SecretPatterns()) {
    auto it = samples.find(std::string(row.rule));
    ASSERT_NE(it, samples.end()) << "no sample for " << row.rule;
    std::vector<SecretMatch> found = FindSecrets("x " + it->second + " y");
    bool audit = false;
    for (const SecretMatch& m : found) audit = audit || m.rule == row.rule;
    EXPECT_TRUE(audit) << row.rule << " not found by the audit in " << it->second;
    RedactionResult redacted = RedactSecrets(it->second, RedactionContext());
    EXPECT_EQ(redacted.by_rule.count(std::string(row.rule)), 1u) << row.rule;
  }
  // And in a settings file, as findings that do not repeat the token.
  testing::TempDir dir;
  const std::string path = dir.File("settings.json");
  std::ofstream(path) << "{\n  \"env\": {\n    \"NOTE\": \"" << samples.at("slack_token")
                      << "\",\n    \"HF\": \"" << samples.at("huggingface_token")
                      << "\"\n  }\n}\n";
  const std::map<std::string, std::string> env;
  Result<AuditReport> r = AuditAgentConfigs({path}, nullptr, &env);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", "settings.json", 3, "error"))
      << Dump(*r);
  EXPECT_TRUE(HasFinding(*r, "agent_config.secret_literal", "settings.json", 4, "error"))
      << Dump(*r);
  const std::string all = Rendered(*r);
  EXPECT_EQ(all.find(samples.at("slack_token")), std::string::npos) << all;
  EXPECT_EQ(all.find(samples.at("huggingface_token")), std::string::npos) << all;
}

}  // namespace
}  // namespace av
