#include "agent/run_commands.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "agent/agent_package.h"
#include "agent/evidence_check.h"
#include "core/file.h"
#include "llm/redact.h"
#include "policy/shell_parse.h"

namespace av {
namespace {

// The argv of a command that is one simple command of literal words; else bash -c TEXT
// (only ever reached for a command the policy allowed in every part).
std::vector<std::string> ArgvFor(const std::string& command) {
  Result<ShellScript> script = ParseShell(command);
  if (script.ok() && script->commands.size() == 1 && script->undecided.empty()) {
    const SimpleCommand& c = script->commands[0];
    bool literal = c.assignments.empty() && c.redirections.empty() && !c.words.empty();
    for (const ShellWord& w : c.words) literal = literal && w.Literal();
    if (literal) {
      std::vector<std::string> argv;
      for (const ShellWord& w : c.words) argv.push_back(w.value);
      return argv;
    }
  }
  return {"/bin/bash", "--noprofile", "--norc", "-c", command};
}

std::string LogText(const CommandPlanEntry& e, const ProcessResult& r) {
  std::string text = "# attnverify agent run-commands\n# command: " + e.command +
                     "\n# from: " + e.source + "\n# decision: " + e.decision +
                     "\n# status: " + e.status + "\n";
  text += r.stdout_text;
  if (!r.stdout_text.empty() && r.stdout_text.back() != '\n') text += "\n";
  if (!r.stderr_text.empty()) {
    text += "# stderr:\n" + r.stderr_text;
    if (r.stderr_text.back() != '\n') text += "\n";
  }
  return text;
}

}  // namespace

Result<RunCommandsOutcome> RunAgentCommands(const RunCommandsOptions& o) {
  AV_ASSIGN_OR_RETURN(AgentPackage package, LoadAgentPackage(o.config_path));
  Result<std::string> summary = ReadPackageFile(package.package_dir, "evidence/agent_review.json");
  if (!summary.ok()) {
    return summary.status().code() == StatusCode::kNotFound
               ? NotFound(package.package_dir +
                          "/evidence/agent_review.json: no agent review yet (run attnverify "
                          "agent first)")
               : summary.status();
  }
  nlohmann::json j = nlohmann::json::parse(*summary, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("findings") || !j["findings"].is_array()) {
    return InvalidInput(package.package_dir +
                        "/evidence/agent_review.json: not an attnverify.agent_review/1 file");
  }
  RunCommandsOutcome out;
  AV_ASSIGN_OR_RETURN(PermissionSettings policy, AgentCommandPolicy(package, &out.policy_source));
  std::set<std::string> seen;
  for (const nlohmann::json& f : j["findings"]) {
    if (!f.is_object()) continue;
    std::string command = f.value("command", "");
    if (command.empty()) command = f.value("command_dropped", "");
    if (command.empty() || !seen.insert(command).second) continue;
    CommandPlanEntry e;
    e.command = command;
    e.source = f.value("report_file", "") + " (" + f.value("stage", "") +
               (f.value("kernel", "").empty() ? "" : " " + f.value("kernel", "")) + ")";
    Decision d = DecideCommand(policy, command);
    e.decision = std::string(VerdictName(d.decision));
    e.reason = d.decision == Verdict::kAllow ? "allowed by " + out.policy_source : d.reason;
    if (d.decision == Verdict::kAllow) e.argv = ArgvFor(command);
    out.plan.push_back(std::move(e));
  }
  if (!o.execute) return out;

  PosixProcessRunner posix;
  ProcessRunner& runner = o.runner != nullptr ? *o.runner : posix;
  RedactionContext ctx = RedactionContext::FromProcessEnvironment();
  std::error_code ec;
  std::filesystem::create_directories(package.package_dir + "/logs", ec);
  // Logs of an earlier run-commands would read as this one's.
  for (const auto& entry : std::filesystem::directory_iterator(package.package_dir + "/logs", ec)) {
    std::string file = entry.path().filename().string();
    if (file.rfind("agent-cmd-", 0) == 0 && entry.path().extension() == ".log") {
      std::filesystem::remove(entry.path(), ec);
    }
  }
  int n = 0;
  for (CommandPlanEntry& e : out.plan) {
    if (e.decision != "allow") continue;
    char name[32];
    std::snprintf(name, sizeof(name), "logs/agent-cmd-%02d.log", ++n);
    e.log_file = name;
    ProcessRequest req;
    req.argv = e.argv;
    req.cwd = package.repo_dir;
    req.timeout_ms = o.timeout_s * 1000;
    req.max_output_bytes = 4 << 20;
    Result<ProcessResult> r = runner.Run(req);
    ProcessResult result;
    if (r.ok()) {
      result = *r;
      e.status = result.Describe();
    } else {
      e.status = "did not start: " + r.status().message();
      result.stderr_text = e.status;
    }
    AV_RETURN_IF_ERROR(WriteFileAtomically(package.package_dir + "/" + e.log_file,
                                           RedactedText(LogText(e, result), ctx)));
  }
  return out;
}

}  // namespace av
