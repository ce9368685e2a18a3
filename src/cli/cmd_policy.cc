// attnverify policy check: allow, ask or deny for one shell command under the permission
// rules of Claude Code settings files (merged as Claude Code merges their layers). The
// decision is the first word printed, then why; --json prints it as JSON. Exit 0 allow,
// 1 ask or deny, 2 bad input. doc/policy.md is the reference.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agentconfig/claude_settings.h"
#include "cli/commands.h"
#include "cli/parse.h"
#include "policy/command_policy.h"

namespace av::cli {
namespace {

constexpr const char* kPolicyHelp =
    "Shell command policy under Claude Code's permission rules (doc/policy.md).\n"
    "  attnverify policy check --settings FILE [--settings FILE ...] [--json]\n"
    "                          [--package DIR] --command 'STRING'\n"
    "The command is parsed as bash would; every subcommand (after &&, ||, ;, |, inside\n"
    "$(...), backquotes, <(...), subshells, heredocs, sh -c scripts and exec wrappers) must\n"
    "match an allow rule for the whole to be allowed; any deny match is deny; anything not\n"
    "understood is ask. Output redirections may write inside the package folder only.\n"
    "Exit 0 allow, 1 ask or deny, 2 bad input.";

std::string Absolute(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

}  // namespace

int RunPolicy(std::vector<std::string> args) {
  CLI::App app(kPolicyHelp, "attnverify policy");
  app.require_subcommand(1);
  CLI::App* check = app.add_subcommand("check", "decide one command string");
  std::vector<std::string> settings_files;
  std::string command, package_dir;
  bool json = false;
  check
      ->add_option("--settings", settings_files,
                   "Claude Code settings.json (repeat for the user, project, local and "
                   "managed layers)")
      ->required();
  check->add_option("--command", command, "the shell command string to decide")->required();
  check->add_option("--package", package_dir,
                    "package folder the command may write in (default: ./attention-verify "
                    "when it exists)");
  check->add_flag("--json", json, "print {decision, subcommands, reason} as JSON");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  std::vector<SettingsDocument> docs;
  for (const std::string& path : settings_files) {
    Result<SettingsDocument> doc = LoadSettingsDocument(path, GuessSettingsLayer(Absolute(path)));
    if (!doc.ok()) return ReportError(doc.status());
    docs.push_back(std::move(*doc));
  }
  MergedSettings merged = MergeSettings(docs);
  if (!merged.problems.empty()) {
    const SettingsProblem& p = merged.problems.front();
    return ReportError(InvalidInput(p.where + ": " + p.message + " (JSON path " + p.pointer + ")"));
  }
  PermissionSettings settings = merged.permissions;
  std::error_code ec;
  settings.cwd = std::filesystem::current_path(ec).string();
  if (package_dir.empty() && std::filesystem::is_directory("attention-verify", ec)) {
    package_dir = "attention-verify";
  }
  if (!package_dir.empty()) {
    if (!std::filesystem::is_directory(package_dir, ec)) {
      return ReportError(InvalidInput("--package " + package_dir + ": no such folder"));
    }
    settings.package_dir = Absolute(package_dir);
  }

  Decision d = DecideCommand(settings, command);
  if (json) {
    nlohmann::ordered_json subs = nlohmann::ordered_json::array();
    for (const SubcommandDecision& s : d.subcommands) {
      subs.push_back({{"text", s.text},
                      {"decision", VerdictName(s.decision)},
                      {"rule", s.rule},
                      {"reason", s.reason}});
    }
    nlohmann::ordered_json out = {{"decision", VerdictName(d.decision)},
                                  {"subcommands", std::move(subs)},
                                  {"reason", d.reason}};
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s: %s\n", std::string(VerdictName(d.decision)).c_str(), d.reason.c_str());
    for (const SubcommandDecision& s : d.subcommands) {
      std::printf("  %-5s %s\n        %s%s%s\n", std::string(VerdictName(s.decision)).c_str(),
                  s.text.c_str(), s.reason.c_str(), s.rule.empty() ? "" : ": ", s.rule.c_str());
    }
  }
  return d.decision == Verdict::kAllow ? kExitOk : kExitRejected;
}

}  // namespace av::cli
