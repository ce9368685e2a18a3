// attnverify run: the main job. Runs the configured stages in order (slice, review,
// build, numerics, report), each as a child process whose output goes to
// logs/run-<stage>.log, keeps going when one fails, and ends with the report's verdict.
// Exit 0 only when the report accepts (every required checklist item PASS); 1 rejected
// or incomplete; 2 bad configuration; 3 the report itself could not be produced.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "pipeline/pipeline.h"
#include "pipeline/stage_ledger.h"

namespace av::cli {
namespace {

constexpr const char* kRunHelp =
    "The main job: slice the change into per-component diffs, review them with the\n"
    "built-in rules, compile base and head (nvcc -Xptxas -v), run the numerics sweep with\n"
    "the candidate, and write the acceptance report (reports/acceptance.{md,json,html,sarif})\n"
    "and manifest.json. A stage whose table is absent from attnverify.toml is skipped; a\n"
    "failing stage is recorded (evidence/run.json, logs/run-<stage>.log) and the run goes\n"
    "on, so the report shows that evidence as MISSING. Format: doc/run.md.";

std::string SelfExecutable() {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("attnverify") : p.string();
}

void PrintIndented(const std::string& text) {
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::printf("  %s\n", text.substr(at, nl - at).c_str());
    at = nl + 1;
  }
}

}  // namespace

int RunRun(std::vector<std::string> args) {
  CLI::App app(kRunHelp, "attnverify run");
  std::string config_path = "attention-verify/attnverify.toml", base;
  bool verbose = false;
  app.add_option("--config", config_path, "attnverify.toml")->capture_default_str();
  app.add_option("--base", base,
                 "base revision of the change (default: [run] base, else [slice] base)");
  app.add_flag("--verbose,-v", verbose, "print every stage's full output (it is always in logs/)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  Result<RunConfig> config = LoadRunConfig(config_path);
  if (!config.ok()) return ReportError(config.status());
  // Held for the whole run; its stages see ATTNVERIFY_PACKAGE_LOCK and use it as held.
  Result<PackageLock> lock = LockPackageOfConfig(config_path, args);
  if (!lock.ok()) return ReportError(lock.status());
  PosixProcessRunner runner;
  PipelineOptions options;
  options.config = *config;
  options.base_override = base;
  options.self_exe = SelfExecutable();
  options.runner = &runner;
  options.argv = RecordedArgv(args);  // args[0] is "run" already
  std::error_code ec;
  options.cwd = std::filesystem::current_path(ec).string();
  options.run_id = NewRunId();
  std::printf("run %s (evidence/run.json)\n", options.run_id.c_str());
  options.on_stage_start = [](const StagePlan& plan) {
    if (plan.skip_reason.empty()) std::printf("== %s\n", plan.name.c_str());
    std::fflush(stdout);
  };
  options.on_stage_done = [verbose](const StageRecord& s) {
    const StageEntry& e = s.entry;
    if (s.skipped()) {
      std::printf("== %s: skipped (%s)\n", e.name.c_str(), e.reason.c_str());
    } else if (e.name == "report" || verbose) {
      PrintIndented(s.stdout_text);
      if (!s.stderr_text.empty()) PrintIndented(s.stderr_text);
    } else {
      // One line per stage; its whole output is in the log.
      std::string last = LastLine(s.stdout_text);
      if (!last.empty()) std::printf("  %s\n", last.c_str());
      std::printf("  %s in %.1f s%s%s (log: %s)\n", StageStatusName(e.status), e.wall_ms / 1000.0,
                  e.reason.empty() ? "" : ": ", e.reason.c_str(), e.log.c_str());
    }
    std::fflush(stdout);
  };
  Result<PipelineRecord> record = RunPipeline(options);
  if (!record.ok()) return ReportError(record.status());
  if (!record->ledger_warning.empty())
    std::fprintf(stderr, "attnverify: warning: %s\n", record->ledger_warning.c_str());
  if (record->report_exit_code < 0) {
    std::fprintf(stderr, "attnverify: run: no report was produced (see the report stage above)\n");
    return kExitInternal;
  }
  return record->report_exit_code == kExitOk         ? kExitOk
         : record->report_exit_code == kExitRejected ? kExitRejected
                                                     : kExitInternal;
}

}  // namespace av::cli
