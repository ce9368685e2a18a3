#include "agentconfig/agent_emit.h"

#include <nlohmann/json.hpp>

#include "agentconfig/base_url.h"

namespace av {
namespace {

using ojson = nlohmann::ordered_json;

std::string Dump(const ojson& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// A TOML basic string.
std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static const char* kHex = "0123456789ABCDEF";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string KeyHelper(const ProviderTable& p) { return "printenv " + p.key_env; }

ojson ClaudeEnv(const ProviderTable& p) {
  // ANTHROPIC_MODEL is the session's model; the DEFAULT_*_MODEL names are what Claude
  // Code's sonnet / haiku (background tasks) / opus aliases resolve to.
  return {{"ANTHROPIC_BASE_URL", p.base_url},
          {"ANTHROPIC_MODEL", p.model_default},
          {"ANTHROPIC_DEFAULT_SONNET_MODEL", p.model_default},
          {"ANTHROPIC_DEFAULT_HAIKU_MODEL", p.model_fast},
          {"ANTHROPIC_DEFAULT_OPUS_MODEL", p.model_review},
          // No telemetry, error reports or update checks: every request goes to base_url.
          {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"}};
}

}  // namespace

const std::vector<std::string>& ReviewAllowRules() {
  static const std::vector<std::string> kAllow = {
      "Read",         "Bash(git diff:*)",         "Bash(git status:*)",
      "Bash(nvcc:*)", "Bash(python -m pytest:*)", "Bash(pytest:*)",
      "Bash(ncu:*)",  "Bash(attnverify:*)"};
  return kAllow;
}

const std::vector<std::string>& ReviewDenyRules() {
  static const std::vector<std::string> kDeny = {
      "Bash(git push:*)", "Bash(rm:*)", "Bash(curl:*)", "Bash(wget:*)",
      "Bash(ssh:*)",      "Edit",       "Write",        "WebFetch",
      "WebSearch"};
  return kDeny;
}

std::string EmitClaudeSettings(const ProviderTable& p) {
  ojson settings = {{"$schema", "https://json.schemastore.org/claude-code-settings.json"},
                    {"apiKeyHelper", KeyHelper(p)},
                    {"env", ClaudeEnv(p)},
                    {"permissions",
                     {{"allow", ReviewAllowRules()},
                      {"deny", ReviewDenyRules()},
                      {"defaultMode", "default"},
                      {"disableBypassPermissionsMode", "disable"}}}};
  return Dump(settings);
}

std::string EmitCodexConfig(const ProviderTable& p) {
  std::string id = p.name;
  std::string out;
  out += "# Codex configuration for the read-only review of a kernel refactor, written by\n";
  out +=
      "# `attnverify agent-config emit --tool codex` from [provider] in " + p.config_path + ".\n";
  out += "# No key is written here: Codex reads it from $" + p.key_env + " (env_key).\n";
  out += "model = " + TomlString(p.model_default) + "\n";
  out += "review_model = " + TomlString(p.model_review) + "\n";
  out += "model_provider = " + TomlString(id) + "\n";
  out += "approval_policy = \"untrusted\"\n";
  out += "sandbox_mode = \"read-only\"\n\n";
  out += "[model_providers." + id + "]\n";
  out += "name = " + TomlString(p.name) + "\n";
  out += "# Codex appends /responses; the gateway's OpenAI-style root is {base_url}/v1.\n";
  out += "base_url = " + TomlString(CodexBaseUrlFor(p.base_url)) + "\n";
  out += "env_key = " + TomlString(p.key_env) + "\n";
  out += "# The only wire API current Codex releases accept.\n";
  out += "wire_api = \"responses\"\n\n";
  out += "[profiles.fast]\n";
  out += "model = " + TomlString(p.model_fast) + "\n";
  out += "model_provider = " + TomlString(id) + "\n\n";
  out += "[shell_environment_policy]\n";
  out += "# Commands the agent runs never see the key.\n";
  out += "ignore_default_excludes = false\n";
  out += "exclude = [" + TomlString(p.key_env) + "]\n";
  return out;
}

std::string EmitCcSwitchProvider(const ProviderTable& p, const std::string& project) {
  const std::string note =
      "Only for local diff review and log explanation of this repository. Never add "
      "production, database or deployment credentials to this entry.";
  ojson settings_config = {{"env", ClaudeEnv(p)}, {"apiKeyHelper", KeyHelper(p)}};
  ojson entry = {
      {"provider",
       {{"name", p.name},
        {"baseUrl", p.base_url},
        {"apiKey", "${" + p.key_env + "}"},
        {"keyEnv", p.key_env}}},
      {"models",
       {{"default", p.model_default}, {"fast", p.model_fast}, {"review", p.model_review}}},
      {"scope", {{"project", project}, {"env", "local"}, {"note", note}}},
      {"ccSwitchProvider",
       {{"id", "attnverify-" + p.name},
        {"name", p.name},
        {"category", "custom"},
        {"settingsConfig", settings_config},
        {"notes", note},
        {"meta", {{"apiKeyField", "ANTHROPIC_AUTH_TOKEN"}}}}}};
  return Dump(entry);
}

std::string DefaultEmitPath(const std::string& tool) {
  if (tool == "claude-code") return ".claude/settings.json";
  if (tool == "codex") return ".codex/config.toml";
  if (tool == "cc-switch") return ".cc-switch/attnverify-provider.json";
  return "";
}

}  // namespace av
