#include "agent/run_commands.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "agent/agent_package.h"
#include "agent/run_commands_binding.h"
#include "agent/run_commands_sandbox.h"
#include "core/file.h"
#include "core/package_config.h"
#include "core/sandbox.h"
#include "core/seal_key.h"
#include "llm/redact.h"
#include "shell/shell_parse.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// 1 GiB: a package without its work folder is evidence, logs, diffs and reports (a few
// MiB in the examples); past this a copy per command is not what the user expects.
constexpr uint64_t kMaxPackageCopyBytes = uint64_t{1} << 30;

// The argv of a command that is one simple command of literal words; else bash -c TEXT
// (an allowed compound command was allowed in every part; an asked one is run only as
// the text the user confirmed).
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

std::string LogText(const CommandPlanEntry& e, const std::string& sandbox, const ProcessResult& r) {
  // The report reads the first five lines (checklist_agent_questions.cc): keep their order.
  std::string text = "# attnverify agent run-commands\n# command: " + e.command +
                     "\n# from: " + e.source + "\n# decision: " + e.decision +
                     "\n# status: " + e.status + "\n# sandbox: " + sandbox + "\n";
  if (e.scratch_package) {
    text += "# package: a scratch copy, thrown away after: the package's evidence is unchanged\n";
  }
  text += r.stdout_text;
  if (!r.stdout_text.empty() && r.stdout_text.back() != '\n') text += "\n";
  if (!r.stderr_text.empty()) {
    text += "# stderr:\n" + r.stderr_text;
    if (r.stderr_text.back() != '\n') text += "\n";
  }
  return text;
}

// Top-level folders of the package a scratch copy leaves out: "work" and [numerics]
// work_dir (the sweep's builds; a stage rebuilds what it needs).
std::set<std::string> WorkFolders(const std::string& config_path) {
  std::set<std::string> out = {"work"};
  Result<PackageConfig> config = PackageConfig::Load(config_path);
  if (!config.ok()) return out;
  if (auto dir = config->doc()["numerics"]["work_dir"].value<std::string>()) {
    fs::path p(*dir);
    if (p.is_relative() && !p.empty()) out.insert(p.begin()->string());
  }
  return out;
}

// A folder removed with everything in it when this object dies.
class ScratchFolder {
 public:
  static Result<ScratchFolder> Create(const std::string& root) {
    std::string base = root;
    if (base.empty()) {
      const char* t = std::getenv("TMPDIR");
      base = t != nullptr && *t != '\0' ? t : "/tmp";
    }
    std::string templ = base + "/attnverify-run-commands-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
      return IoError(base + ": cannot create a scratch folder: " + std::strerror(errno));
    }
    ScratchFolder s;
    s.path_ = fs::canonical(templ).string();
    return s;
  }
  ScratchFolder(ScratchFolder&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ScratchFolder& operator=(ScratchFolder&&) = delete;
  ~ScratchFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  ScratchFolder() = default;
  std::string path_;
};

// How the commands will be contained: the bwrap path, or "" with the reason in `how`.
Result<std::string> ChooseSandbox(const RunCommandsOptions& o, std::string* how) {
  PosixProcessRunner probe;
  Result<std::string> bwrap = o.find_bwrap ? o.find_bwrap() : FindWorkingBwrap(probe);
  if (bwrap.ok()) {
    *how = "bwrap (" + *bwrap +
           "): no network, own pids, the machine, repository and package read-only, a "
           "private /tmp";
    return *bwrap;
  }
  if (o.require_sandbox) {
    return InvalidInput(
        "the agent's commands run only in a sandbox, and there is none: " +
        bwrap.status().message() +
        ". Install bubblewrap (Debian: bubblewrap), or pass --allow-no-sandbox to run them "
        "unconfined (they can then reach the network and write anywhere you can)");
  }
  *how = "none (--allow-no-sandbox; " + bwrap.status().message() +
         "): the commands can reach the network and write anywhere you can";
  return std::string();
}

std::string NotRunReason(const RunCommandsOptions& o, const CommandPlanEntry& e, bool sandboxed) {
  if (e.decision == "deny") return "not run: denied";
  if (o.mode == RunCommandsMode::kAllowed && e.decision != "allow") {
    return "not run: ask (run without --yes, on a terminal, to confirm it)";
  }
  if (e.scratch_package && !sandboxed) {
    return "not run: an attnverify command runs only in the sandbox, over a scratch copy of "
           "the package (it would replace the package's evidence)";
  }
  if (o.mode == RunCommandsMode::kConfirm && !(o.confirm && o.confirm(e))) {
    return "not run: not confirmed";
  }
  return "";
}

// evidence/agent_review.json of the latest agent run, checked to be uncommitted and bound
// to that run (out->bound says which), parsed.
Result<nlohmann::json> LoadBoundReview(const AgentPackage& package, ProcessRunner& git,
                                       RunCommandsOutcome* out) {
  Result<std::string> summary = ReadPackageFile(package.package_dir, kAgentReviewPath);
  if (!summary.ok()) {
    return summary.status().code() == StatusCode::kNotFound
               ? NotFound(package.package_dir +
                          "/evidence/agent_review.json: no agent review yet (run attnverify "
                          "agent first)")
               : summary.status();
  }
  AV_RETURN_IF_ERROR(CheckAgentReviewNotCommitted(git, package.repo_dir, package.package_dir));
  AV_RETURN_IF_ERROR(CheckAgentReviewBound(package.package_dir, *summary, &out->bound));
  nlohmann::json j = nlohmann::json::parse(*summary, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("findings") || !j["findings"].is_array()) {
    return InvalidInput(package.package_dir +
                        "/evidence/agent_review.json: not an attnverify.agent_review/1 file");
  }
  return j;
}

// One finding's command, decided again now under the user's policy.
CommandPlanEntry PlanEntry(const nlohmann::json& finding, const std::string& command,
                           const RunCommandsPolicy& policy) {
  CommandPlanEntry e;
  e.command = command;
  e.source = finding.value("report_file", "") + " (" + finding.value("stage", "") +
             (finding.value("kernel", "").empty() ? "" : " " + finding.value("kernel", "")) + ")";
  Decision d = DecideCommand(policy.settings, command);
  e.decision = std::string(VerdictName(d.decision));
  e.reason = d.reason;
  if (d.decision == Verdict::kAllow) {
    std::string rules;
    for (const SubcommandDecision& s : d.subcommands) {
      if (!s.rule.empty() && rules.find(s.rule) == std::string::npos) {
        rules += (rules.empty() ? "" : ", ") + s.rule;
      }
    }
    e.reason = "allowed by " + (rules.empty() ? std::string("no rule needed") : rules);
  }
  if (d.decision != Verdict::kDeny) e.argv = ArgvFor(command);
  e.scratch_package = CommandNamesAttnverify(command);
  return e;
}

// Each distinct command of the findings once, in findings order (a command the policy
// removed from a finding counts too).
std::vector<CommandPlanEntry> PlanCommands(const nlohmann::json& findings,
                                           const RunCommandsPolicy& policy) {
  std::vector<CommandPlanEntry> plan;
  std::set<std::string> seen;
  for (const nlohmann::json& f : findings) {
    if (!f.is_object()) continue;
    std::string command = f.value("command", "");
    if (command.empty()) command = f.value("command_dropped", "");
    if (command.empty() || !seen.insert(command).second) continue;
    plan.push_back(PlanEntry(f, command, policy));
  }
  return plan;
}

// What every command of one run shares: the sandbox, the PATH that finds this attnverify,
// the folders a scratch package copy leaves out and the files hidden from the commands.
struct CommandSetting {
  std::string bwrap;  // "" when unconfined
  std::string bin_dir;
  std::map<std::string, std::string> env;
  std::set<std::string> work;
  std::vector<std::string> hidden;
};

CommandSetting PrepareCommandSetting(const RunCommandsOptions& o, const std::string& bwrap,
                                     const ScratchFolder& scratch) {
  CommandSetting s;
  s.bwrap = bwrap;
  // `attnverify` in a command is this attnverify (it need not be on PATH).
  s.bin_dir = scratch.path() + "/bin";
  std::error_code ec;
  fs::create_directories(s.bin_dir, ec);
  std::string self = o.attnverify_binary;
  if (self.empty()) self = fs::read_symlink("/proc/self/exe", ec).string();
  if (!self.empty()) fs::create_symlink(self, s.bin_dir + "/attnverify", ec);
  const char* path_env = std::getenv("PATH");
  s.env = {{"PATH", s.bin_dir + ":" + (path_env != nullptr ? path_env : "/usr/bin:/bin")}};
  if (!bwrap.empty()) s.env["TMPDIR"] = "/tmp";
  s.work = WorkFolders(o.config_path);
  // The key that seals evidence/run.json: a command that read it could forge the ledger.
  if (const std::string key = SealKeyPath(); !key.empty()) {
    const fs::path real = fs::canonical(key, ec);
    if (!ec) s.hidden.push_back(real.string());
  }
  return s;
}

// Logs of an earlier run-commands would read as this one's.
void RemoveOldCommandLogs(const std::string& package_dir) {
  std::error_code ec;
  fs::create_directories(package_dir + "/logs", ec);
  for (const auto& entry : fs::directory_iterator(package_dir + "/logs", ec)) {
    std::string file = entry.path().filename().string();
    if (file.rfind("agent-cmd-", 0) == 0 && entry.path().extension() == ".log") {
      fs::remove(entry.path(), ec);
    }
  }
}

// Runs command number n (in the sandbox, over a scratch package copy when it names
// attnverify); a command that could not start gets the reason as its status.
ProcessResult RunOneCommand(const RunCommandsOptions& o, const AgentPackage& package,
                            const CommandSetting& s, const ScratchFolder& scratch, int n,
                            ProcessRunner& runner, CommandPlanEntry& e) {
  ProcessRequest req;
  req.cwd = package.repo_dir;
  req.extra_env = s.env;
  req.timeout_ms = o.timeout_s * 1000;
  req.max_output_bytes = 4 << 20;
  Result<std::string> program = ResolveProgram(e.argv[0], package.repo_dir, s.env);
  std::string copy;
  Result<ProcessResult> r = program.ok() ? Internal("not run") : program.status();
  if (program.ok()) {
    std::vector<std::string> argv = e.argv;
    argv[0] = *program;
    req.argv = argv;
    Status ready = Status::Ok();
    if (!s.bwrap.empty()) {
      CommandSandboxSpec spec{package.repo_dir, package.package_dir, "", s.bin_dir, s.hidden};
      if (e.scratch_package) {
        copy = scratch.path() + "/package-" + std::to_string(n);
        ready = CopyPackageForCommand(package.package_dir, copy, s.work, kMaxPackageCopyBytes);
        spec.package_copy = copy;
      }
      req.argv = CommandSandboxArgv(s.bwrap, spec, argv);
    }
    r = ready.ok() ? runner.Run(req) : Result<ProcessResult>(ready);
  }
  std::error_code ec;
  if (!copy.empty()) fs::remove_all(copy, ec);
  ProcessResult result;
  if (r.ok()) {
    result = *r;
    e.status = result.Describe();
  } else {
    e.status = "did not start: " + r.status().message();
    result.stderr_text = e.status;
  }
  return result;
}

}  // namespace

Result<RunCommandsOutcome> RunAgentCommands(const RunCommandsOptions& o) {
  AV_ASSIGN_OR_RETURN(AgentPackage package, LoadAgentPackage(o.config_path));
  RunCommandsOutcome out;
  PosixProcessRunner posix;
  ProcessRunner& git = o.policy.git != nullptr ? *o.policy.git : posix;
  AV_ASSIGN_OR_RETURN(nlohmann::json review, LoadBoundReview(package, git, &out));
  AV_ASSIGN_OR_RETURN(out.policy, LoadRunCommandsPolicy(package, o.policy));
  out.plan = PlanCommands(review["findings"], out.policy);
  if (o.mode == RunCommandsMode::kPlan) return out;

  AV_ASSIGN_OR_RETURN(std::string bwrap, ChooseSandbox(o, &out.sandbox));
  AV_ASSIGN_OR_RETURN(ScratchFolder scratch, ScratchFolder::Create(o.scratch_root));
  const CommandSetting setting = PrepareCommandSetting(o, bwrap, scratch);
  ProcessRunner& runner = o.runner != nullptr ? *o.runner : posix;
  RedactionContext ctx = RedactionContext::FromProcessEnvironment();
  RemoveOldCommandLogs(package.package_dir);
  int n = 0;
  for (CommandPlanEntry& e : out.plan) {
    e.status = NotRunReason(o, e, !setting.bwrap.empty());
    if (!e.status.empty()) continue;
    char name[32];
    std::snprintf(name, sizeof(name), "logs/agent-cmd-%02d.log", ++n);
    e.log_file = name;
    const ProcessResult result = RunOneCommand(o, package, setting, scratch, n, runner, e);
    AV_RETURN_IF_ERROR(WriteFileAtomically(package.package_dir + "/" + e.log_file,
                                           RedactedText(LogText(e, out.sandbox, result), ctx)));
  }
  return out;
}

}  // namespace av
