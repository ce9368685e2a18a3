// attnverify agent: the agent reviewer (doc/agent.md). `agent` runs the rounds over the
// package through the pinned [provider] and holds every finding to the evidence;
// `agent run-commands [--yes]` runs the surviving findings' commands the user's policy allows
// (or the user confirms), in the sandbox;
// `agent compare --models A,B` runs the same rounds with two models and compares what each
// found. Exit 0 when every round answered, 2 when one failed (a provider error, an answer
// malformed twice) or the input is bad.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "agent/agent_compare.h"
#include "agent/agent_run.h"
#include "agent/run_commands.h"
#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/stage_recording.h"
#include "core/package_config.h"
#include "llm/cassette.h"
#include "llm/curl_transport.h"
#include "llm/provider_config.h"
#include "llm/redact.h"

namespace av::cli {
namespace {

constexpr const char* kAgentHelp =
    "The agent reviewer (doc/agent.md): rounds diff_review (one request per component diff),\n"
    "test_log, perf, cross_module and final, each its own request to the pinned [provider]\n"
    "(a ledger row per attempt). Requests are saved redacted in reports/agent_requests/,\n"
    "answers in reports/agent_review_NN.md; every finding is held to the evidence (its line,\n"
    "its case or log line, its numbers, its command under the policy) and dropped ones are\n"
    "listed in reports/agent_review.md. The agent raises questions; the report decides.";

struct Common {
  std::string config_path = "attention-verify/attnverify.toml";
  std::string stage = "all";
  std::string model = "default";
  std::string record_dir, replay_dir;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int Fail(const Status& status) {
  RedactionContext ctx = RedactionContext::FromProcessEnvironment();
  return ReportError(Status(status.code(), RedactedText(status.message(), ctx)));
}

// The transport: curl, wrapped by a cassette recorder or replaced by a replayer.
struct Transport {
  CurlHttpTransport curl;
  std::unique_ptr<HttpTransport> wrapper;
  RedactionContext ctx;
  std::optional<PackageConfig> config;  // attnverify.toml, parsed once for the whole command
  HttpTransport* get() { return wrapper ? wrapper.get() : &curl; }
};

Result<std::unique_ptr<Transport>> MakeTransport(const Common& c) {
  if (!c.record_dir.empty() && !c.replay_dir.empty()) {
    return InvalidInput("agent: --record and --replay exclude each other");
  }
  AV_ASSIGN_OR_RETURN(PackageConfig config, PackageConfig::Load(c.config_path));
  AV_ASSIGN_OR_RETURN(ProviderConfig provider, ParseProviderConfig(config));
  for (const std::string& w : provider.warnings) {
    std::fprintf(stderr, "attnverify: warning: %s\n", w.c_str());
  }
  auto t = std::make_unique<Transport>();
  t->config.emplace(std::move(config));
  t->ctx = RedactionContext::FromProcessEnvironment(provider.key_env);
  if (!c.replay_dir.empty()) {
    t->wrapper = std::make_unique<ReplayTransport>(c.replay_dir);
  } else if (!c.record_dir.empty()) {
    t->wrapper = std::make_unique<RecordingTransport>(&t->curl, c.record_dir, &t->ctx);
  }
  return t;
}

Result<std::vector<std::string>> Stages(const std::string& stage) {
  if (stage == "all" || stage.empty()) return std::vector<std::string>{};
  return SplitList(stage);
}

void PrintOutcome(const AgentRunOutcome& out) {
  for (const AgentRoundRecord& s : out.stages) {
    std::string what = s.stage + (s.kernel.empty() ? "" : " " + s.kernel) +
                       (s.part > 0 ? "." + std::to_string(s.part) : "");
    if (s.n == 0) {
      std::printf("   %-28s %s: %s\n", what.c_str(), AgentRoundStatusName(s.status),
                  s.reason.c_str());
      continue;
    }
    std::printf("%02d %-28s %s", s.n, what.c_str(), AgentRoundStatusName(s.status));
    if (s.status == AgentRoundStatus::kOk) {
      std::printf(": %d kept, %d dropped; tokens in %lld, out %lld -> %s", s.kept, s.dropped,
                  static_cast<long long>(s.input_tokens), static_cast<long long>(s.output_tokens),
                  s.report_file.c_str());
    } else if (!s.reason.empty()) {
      std::printf(": %s", s.reason.c_str());
    }
    std::printf("\n");
  }
  int dropped = 0;
  for (const auto& [reason, n] : out.dropped_by_reason) dropped += n;
  int kept = 0;
  for (const AgentFindingRecord& r : out.findings) kept += r.checked.drop == DropReason::kKept;
  std::printf("findings: %d kept, %d dropped", kept, dropped);
  for (const auto& [reason, n] : out.dropped_by_reason) std::printf(", %s %d", reason.c_str(), n);
  std::printf("\n");
}

int RunReviewStage(const Common& c) {
  Result<std::unique_ptr<Transport>> t = MakeTransport(c);
  if (!t.ok()) return Fail(t.status());
  AgentRunOptions o;
  o.config_path = c.config_path;
  o.config = &*(*t)->config;
  Result<std::vector<std::string>> stages = Stages(c.stage);
  if (!stages.ok()) return Fail(stages.status());
  o.stages = *stages;
  o.model = c.model;
  o.transport = (*t)->get();
  o.replay = !c.replay_dir.empty();
  Result<AgentRunOutcome> out = RunAgentReview(o);
  if (!out.ok()) return Fail(out.status());
  PrintOutcome(*out);
  std::printf("wrote reports/agent_review.md, evidence/agent_review.json\n");
  if (out->failed) {
    std::fprintf(stderr, "attnverify: agent: a stage failed (see reports/agent_review.md)\n");
    return kExitUsage;
  }
  return kExitOk;
}

int RunReview(const Common& c, const std::vector<std::string>& args) {
  // Recorded in evidence/run.json (unless under `run`, which records it): the sha256 of the
  // agent_review.json it writes is what binds run-commands to this run's answers.
  RecordedStage stage(
      std::filesystem::absolute(c.config_path).parent_path().lexically_normal().string(), "agent",
      args);
  return stage.Finish(RunReviewStage(c));
}

// What run-commands was told on its command line.
struct RunCommandsFlags {
  bool yes = false;
  bool allow_no_sandbox = false;
  int timeout_s = 600;
  std::vector<std::string> settings;
  std::string base;
};

void PrintEntry(const CommandPlanEntry& e) {
  std::printf("%-5s %s\n      from %s; %s\n", e.decision.c_str(), e.command.c_str(),
              e.source.c_str(), e.reason.c_str());
}

// Without --yes on a terminal: each allow or ask command is shown and runs on "y".
bool ConfirmOnTerminal(const CommandPlanEntry& e) {
  PrintEntry(e);
  std::printf("      run it%s? [y/N] ",
              e.scratch_package ? " (over a scratch copy of the package)" : "");
  std::fflush(stdout);
  char line[64];
  if (std::fgets(line, sizeof(line), stdin) == nullptr) return false;
  std::string answer(line);
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) answer.pop_back();
  return answer == "y" || answer == "Y" || answer == "yes";
}

int RunCommandsCli(const Common& c, const RunCommandsFlags& f) {
  RunCommandsOptions o;
  o.config_path = c.config_path;
  o.timeout_s = f.timeout_s;
  o.require_sandbox = !f.allow_no_sandbox;
  o.policy.settings_files = f.settings;
  o.policy.base = f.base;
  if (const char* home = std::getenv("HOME")) o.policy.home = home;
  const bool terminal = isatty(STDIN_FILENO) == 1;
  if (f.yes) {
    o.mode = RunCommandsMode::kAllowed;
  } else if (terminal) {
    o.mode = RunCommandsMode::kConfirm;
    o.confirm = ConfirmOnTerminal;
  }
  Result<RunCommandsOutcome> out = RunAgentCommands(o);
  if (!out.ok()) return Fail(out.status());
  std::printf("commands of %s\n", out->bound.c_str());
  for (const std::string& s : out->policy.sources) std::printf("policy: %s\n", s.c_str());
  for (const std::string& s : out->policy.ignored) std::printf("not used: %s\n", s.c_str());
  if (!out->sandbox.empty()) std::printf("sandbox: %s\n", out->sandbox.c_str());
  for (const CommandPlanEntry& e : out->plan) {
    if (o.mode != RunCommandsMode::kConfirm) PrintEntry(e);
    if (!e.log_file.empty()) {
      std::printf("      ran: %s -> %s\n", e.status.c_str(), e.log_file.c_str());
    } else if (!e.status.empty() && e.decision != "deny") {
      std::printf("      %s\n", e.status.c_str());
    }
  }
  if (out->plan.empty()) std::printf("no command among the agent's surviving findings\n");
  if (o.mode == RunCommandsMode::kPlan && !out->plan.empty()) {
    std::printf(
        "plan only, nothing ran (no terminal to confirm on): run it on a terminal to confirm "
        "each command, or add --yes to run the allowed ones; then `attnverify agent --stage "
        "test_log,final` reads their logs\n");
  }
  return kExitOk;
}

int RunCompareCli(const Common& c, const std::string& models) {
  std::vector<std::string> list = SplitList(models);
  if (list.size() != 2) return Fail(InvalidInput("agent compare: --models takes two models: A,B"));
  Result<std::unique_ptr<Transport>> t = MakeTransport(c);
  if (!t.ok()) return Fail(t.status());
  AgentCompareOptions o;
  o.config_path = c.config_path;
  Result<std::vector<std::string>> stages = Stages(c.stage);
  if (!stages.ok()) return Fail(stages.status());
  o.stages = *stages;
  o.models = {list[0], list[1]};
  o.transport = (*t)->get();
  o.replay = !c.replay_dir.empty();
  Result<AgentCompareOutcome> out = RunAgentCompare(o);
  if (!out.ok()) return Fail(out.status());
  for (const AgentRunOutcome& run : out->runs) PrintOutcome(run);
  std::printf("wrote %s\n", out->report_file.c_str());
  for (const AgentRunOutcome& run : out->runs) {
    if (run.failed) {
      std::fprintf(stderr, "attnverify: agent compare: a stage failed for model %s\n",
                   run.model.c_str());
      return kExitUsage;
    }
  }
  return kExitOk;
}

void AddCommon(CLI::App* app, Common* c, bool model) {
  app->add_option("--config", c->config_path, "the package's attnverify.toml")
      ->capture_default_str();
  app->add_option("--stage", c->stage,
                  "all, or a comma list of diff_review, test_log, perf, cross_module, final")
      ->capture_default_str();
  if (model) {
    app->add_option("--model", c->model, "a [provider] models alias or model name")
        ->capture_default_str();
  }
  app->add_option("--record", c->record_dir, "store each exchange in this cassette folder");
  app->add_option("--replay", c->replay_dir,
                  "answer from this cassette folder: no network, no key, no ledger row");
}

}  // namespace

int RunAgent(std::vector<std::string> args) {
  CLI::App app(kAgentHelp, "attnverify agent");
  Common c;
  AddCommon(&app, &c, true);
  CLI::App* run = app.add_subcommand(
      "run-commands",
      "the latest agent run's commands under your policy (never the repository's), each in a "
      "sandbox: --yes runs the allowed ones, a terminal confirms each");
  RunCommandsFlags rf;
  std::string run_config = c.config_path;
  run->add_option("--config", run_config, "the package's attnverify.toml")->capture_default_str();
  run->add_flag("--yes", rf.yes,
                "run the commands your policy allows (without it: confirm each on a terminal)");
  run->add_option("--timeout", rf.timeout_s, "seconds each command may run")->capture_default_str();
  run->add_option("--settings", rf.settings,
                  "your Claude Code settings file (repeatable; default ~/.claude/settings.json "
                  "and the managed settings)");
  run->add_option("--base", rf.base,
                  "the revision whose attnverify.toml [policy] agent_commands counts "
                  "(default: [slice] base)");
  run->add_flag("--allow-no-sandbox", rf.allow_no_sandbox,
                "when bwrap is missing or cannot run here, run the commands unconfined "
                "instead of refusing (attnverify commands never run unconfined)");
  CLI::App* compare = app.add_subcommand(
      "compare",
      "the same rounds with two models: what each found, and what the evidence confirms");
  Common cc;
  std::string models;
  AddCommon(compare, &cc, false);
  compare->add_option("--models", models, "two [provider] models or aliases: A,B")->required();
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if (run->parsed()) {
    Common rc;
    rc.config_path = run_config;
    Result<PackageLock> lock = LockPackageOfConfig(rc.config_path, args);
    if (!lock.ok()) return ReportError(lock.status());
    return RunCommandsCli(rc, rf);
  }
  if (compare->parsed()) {
    Result<PackageLock> lock = LockPackageOfConfig(cc.config_path, args);
    if (!lock.ok()) return ReportError(lock.status());
    return RunCompareCli(cc, models);
  }
  Result<PackageLock> lock = LockPackageOfConfig(c.config_path, args);
  if (!lock.ok()) return ReportError(lock.status());
  return RunReview(c, args);
}

}  // namespace av::cli
