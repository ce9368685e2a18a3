// attnverify agent-config emit | audit: the Claude Code, Codex and CC Switch configurations
// made from [provider] (written atomically, mode 0600, never over a different file without
// --force), and the audit of any such files. emit exits 0 when written or unchanged, 2 when
// it refused; audit exits 1 when a finding is an error, 0 otherwise, 2 on bad input.
// doc/agent-configs.md is the reference.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agentconfig/agent_emit.h"
#include "agentconfig/audit_writers.h"
#include "agentconfig/ccswitch_link.h"
#include "agentconfig/config_audit.h"
#include "agentconfig/provider_table.h"
#include "cli/commands.h"
#include "cli/parse.h"
#include "core/file.h"
#include "core/private_file.h"
#include "core/shell_quote.h"
#include "core/version.h"
#include "llm/redact.h"

namespace av::cli {
namespace {

constexpr const char* kAgentConfigHelp =
    "Agent tool configurations from the pinned [provider] (doc/agent-configs.md).\n"
    "  attnverify agent-config emit --tool claude-code|codex|cc-switch|all [--config FILE]\n"
    "                               [--out PATH] [--project NAME] [--force]\n"
    "  attnverify agent-config audit FILE... [--config FILE] [--json FILE] [--sarif FILE]\n"
    "                               [--md FILE]\n"
    "  attnverify agent-config ccswitch-link [--config FILE]\n"
    "emit writes .claude/settings.json, .codex/config.toml or\n"
    ".cc-switch/attnverify-provider.json beside the package folder: no key in any of them,\n"
    "the same Base URL, models and key variable, least-privilege permissions; atomically,\n"
    "mode 0600, and an existing different file only with --force (the diff is shown).\n"
    "audit reads settings.json layers, Codex config.toml and CC Switch JSON and prints the\n"
    "findings (file:line and why); exit 1 when any is an error.\n"
    "ccswitch-link prints CC Switch's import link for [provider], its key taken from\n"
    "$key_env now (CC Switch then stores the key itself); it writes no file.";

constexpr const char* kDefaultConfig = "attention-verify/attnverify.toml";

std::string CommandLine(const std::vector<std::string>& args) {
  return ShellJoin(RecordedArgv(args));
}

int Emit(const std::string& tool_arg, const std::string& config, const std::string& out_arg,
         std::string project, bool force) {
  Result<ProviderTable> provider = ReadProviderTable(config);
  if (!provider.ok()) return ReportError(provider.status());
  std::filesystem::path root = std::filesystem::path(config).parent_path().parent_path();
  if (root.empty()) root = ".";
  if (project.empty()) {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(root, ec).lexically_normal();
    project = abs.filename().string();
    if (project.empty()) project = abs.parent_path().filename().string();
  }
  std::vector<std::string> tools;
  if (tool_arg == "all") {
    if (!out_arg.empty())
      return ReportError(InvalidInput("--out names one file; use it with one --tool"));
    tools = {"claude-code", "codex", "cc-switch"};
  } else if (tool_arg == "claude-code" || tool_arg == "codex" || tool_arg == "cc-switch") {
    tools = {tool_arg};
  } else {
    return ReportError(
        InvalidInput("--tool " + tool_arg + ": expected claude-code, codex, cc-switch or all"));
  }
  int exit_code = kExitOk;
  for (const std::string& tool : tools) {
    std::string contents = tool == "claude-code" ? EmitClaudeSettings(*provider)
                           : tool == "codex"     ? EmitCodexConfig(*provider)
                                                 : EmitCcSwitchProvider(*provider, project);
    std::string path =
        out_arg.empty() ? (root / DefaultEmitPath(tool)).lexically_normal().string() : out_arg;
    Result<PrivateWrite> w = WritePrivateFile(path, contents, force);
    if (!w.ok()) return ReportError(w.status());
    if (!w->diff.empty()) std::fputs(w->diff.c_str(), stdout);
    if (w->unchanged) {
      std::printf("unchanged %s\n", path.c_str());
      if (!w->mode_note.empty()) std::fprintf(stderr, "attnverify: %s\n", w->mode_note.c_str());
    } else if (w->written) {
      std::printf("wrote %s (%s, mode 0600)\n", path.c_str(), tool.c_str());
    } else {
      std::fprintf(stderr, "attnverify: %s exists and differs (diff above); --force replaces it\n",
                   path.c_str());
      exit_code = kExitUsage;
    }
  }
  return exit_code;
}

Status WriteOut(const std::string& path, const std::string& text) {
  if (path.empty()) return Status::Ok();
  AV_RETURN_IF_ERROR(WriteFileAtomically(path, text));
  std::fprintf(stderr, "wrote %s\n", path.c_str());
  return Status::Ok();
}

int Audit(const std::vector<std::string>& files, std::string config, bool config_given,
          const std::string& json_path, const std::string& sarif_path, const std::string& md_path,
          const std::string& command) {
  std::optional<ProviderTable> provider;
  std::error_code ec;
  if (!config_given && !std::filesystem::exists(config, ec)) config.clear();
  if (!config.empty()) {
    Result<ProviderTable> p = ReadProviderTable(config);
    bool absent = !p.ok() && !config_given &&
                  p.status().message().find("no [provider] table") != std::string::npos;
    if (!p.ok() && !absent) return ReportError(p.status());
    if (p.ok()) provider = std::move(*p);
  }
  Result<AuditReport> report = AuditAgentConfigs(files, provider ? &*provider : nullptr);
  if (!report.ok()) return ReportError(report.status());
  // The findings hold no secret of the environment already; every rendering is redacted
  // once more as a whole (the command line and file names are printed too).
  const RedactionContext secrets =
      RedactionContext::FromProcessEnvironment(provider ? provider->key_env : "");
  std::string md = RedactedText(AuditToMarkdown(*report, command), secrets);
  std::fputs(md.c_str(), stdout);
  Status st = WriteOut(md_path, md);
  if (st.ok()) {
    st = WriteOut(json_path,
                  RedactedText(AuditToJson(*report, ATTNVERIFY_VERSION, command).dump(2) + "\n",
                               secrets));
  }
  if (st.ok()) {
    st = WriteOut(sarif_path,
                  RedactedText(AuditToSarif(*report, ATTNVERIFY_VERSION).dump(2) + "\n", secrets));
  }
  if (!st.ok()) return ReportError(st);
  return report->Errors() > 0 ? kExitRejected : kExitOk;
}

// The key goes only to stdout, in the link CC Switch's import needs (it refuses one without
// a key); doc/agent-configs.md says where CC Switch keeps it afterwards.
int CcSwitchLink(const std::string& config) {
  Result<ProviderTable> provider = ReadProviderTable(config);
  if (!provider.ok()) return ReportError(provider.status());
  const char* key = std::getenv(provider->key_env.c_str());
  Result<std::string> link = CcSwitchDeepLink(*provider, key == nullptr ? "" : key);
  if (!link.ok()) return ReportError(link.status());
  std::printf("%s\n", link->c_str());
  return kExitOk;
}

}  // namespace

int RunAgentConfig(std::vector<std::string> args) {
  CLI::App app(kAgentConfigHelp, "attnverify agent-config");
  app.require_subcommand(1);
  CLI::App* emit = app.add_subcommand("emit", "write one tool's configuration from [provider]");
  CLI::App* audit = app.add_subcommand("audit", "audit agent configuration files");
  CLI::App* link = app.add_subcommand(
      "ccswitch-link", "print CC Switch's import link (key from $key_env; no file written)");
  std::string tool, config = kDefaultConfig, out, project, json_path, sarif_path, md_path;
  bool force = false;
  std::vector<std::string> files;
  emit->add_option("--tool", tool, "claude-code | codex | cc-switch | all")->required();
  emit->add_option(
      "--config", config,
      std::string("attnverify.toml with [provider] (default: ") + kDefaultConfig + ")");
  emit->add_option("--out", out, "write here instead of the tool's default path");
  emit->add_option("--project", project,
                   "CC Switch scope.project (default: the repository folder's name)");
  emit->add_flag("--force", force, "replace an existing file that differs");
  audit->add_option("FILE", files, "settings.json, config.toml or CC Switch JSON files")
      ->required();
  CLI::Option* audit_config =
      audit->add_option("--config", config,
                        std::string("compare with [provider] of this attnverify.toml (default: ") +
                            kDefaultConfig + " when it exists)");
  audit->add_option("--json", json_path, "also write the findings as JSON here");
  audit->add_option("--sarif", sarif_path, "also write the findings as SARIF here");
  audit->add_option("--md", md_path, "also write the Markdown report here");
  link->add_option(
      "--config", config,
      std::string("attnverify.toml with [provider] (default: ") + kDefaultConfig + ")");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if (emit->parsed()) return Emit(tool, config, out, project, force);
  if (link->parsed()) return CcSwitchLink(config);
  return Audit(files, config, audit_config->count() > 0, json_path, sarif_path, md_path,
               CommandLine(args));
}

}  // namespace av::cli
