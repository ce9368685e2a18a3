// attnverify numerics: run the candidate kernel over the shape sweep of shapes.json,
// compare each output with the reference under tolerances.json, and write
// evidence/numerics.json (doc/formats/numerics-json.md), a JUnit XML file, heatmaps of
// failing outputs and a summary table. Exit 0 every case passed, 1 any failed (an
// invariance check included), 2 configuration or usage error, 3 internal error.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/progress.h"
#include "cli/stage_recording.h"
#include "core/file.h"
#include "core/json_dump.h"
#include "schema/provenance.h"
#include "core/sandbox.h"
#include "sweep/numerics_report.h"
#include "sweep/numerics_run.h"
#include "sweep/run_salt.h"

namespace av::cli {
namespace {

constexpr const char* kNumericsHelp =
    "Run the candidate over the shape sweep and compare every output with the reference.\n"
    "Reads [numerics] and [candidate] of attnverify.toml (candidate prepare runs once first);\n"
    "shapes.json \"invariance\" adds num_splits / rerun / permutation / seed variants; failing\n"
    "outputs get hints and heatmaps (evidence/heatmaps/). Shards: --shard i/N, then attnverify "
    "merge.\n"
    "Formats in doc/formats/ (shapes-json.md, tolerances-json.md, candidate-protocol.md,\n"
    "numerics-json.md). The candidate runs in bubblewrap when it works here (the package\n"
    "read-only but its cases' out/, no network; --sandbox none turns it off), and its\n"
    "whole process tree is killed when it exits, times out or attnverify stops.";

// What NewRunId accepts for a run id (schema/provenance.h): it lands in file names and
// messages.
bool ValidSweepId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' ||
           c == '-';
  });
}

Status EnsureParent(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
  return Status::Ok();
}

// --shard i/N: each shard writes its own evidence file (unless a path was given), for
// `attnverify merge`.
Status ApplyShard(const std::string& shard, bool evidence_named, bool junit_named,
                  NumericsOptions* options) {
  AV_RETURN_IF_ERROR(ParseShard(shard, &options->shard_index, &options->shard_count));
  const std::string suffix =
      ".shard" + std::to_string(options->shard_index) + "of" + std::to_string(options->shard_count);
  if (!evidence_named) options->config.evidence += suffix;
  if (!junit_named) options->config.junit += suffix;
  return Status::Ok();
}

// Sets options->bwrap when the candidate is to run sandboxed (--sandbox, else [candidate]
// sandbox) and bwrap works here; otherwise returns the warning that it runs without one.
std::string ChooseSandbox(const NumericsConfig& config, const std::string& sandbox,
                          ProcessRunner& runner, NumericsOptions* options) {
  const bool want_bwrap =
      sandbox.empty() ? config.candidate.sandbox == SandboxMode::kBwrap : sandbox == "bwrap";
  if (!want_bwrap || !config.has_candidate) return "";
  Result<std::string> bwrap = FindWorkingBwrap(runner);
  if (bwrap.ok()) {
    options->bwrap = *bwrap;
    return "";
  }
  return "the candidate runs without a sandbox: " + bwrap.status().message() +
         " (the package is still checked for changes after it ran; [candidate] "
         "sandbox = \"none\" silences this)";
}

// numerics.json and the JUnit file, each written whole or not at all.
Status WriteNumericsFiles(const NumericsRecord& record, const NumericsConfig& config) {
  for (const auto& [path, text] :
       {std::pair<std::string, std::string>{config.evidence, JsonFileText(NumericsToJson(record))},
        {config.junit, NumericsToJUnit(record)}}) {
    AV_RETURN_IF_ERROR(EnsureParent(path));
    AV_RETURN_IF_ERROR(WriteFileAtomically(path, text));
  }
  return Status::Ok();
}

}  // namespace

int RunNumerics(std::vector<std::string> args) {
  CLI::App app(kNumericsHelp, "attnverify numerics");
  std::string config_path = "attention-verify/attnverify.toml", filter, shard, evidence, junit,
              sandbox, sweep_id, salt;
  int jobs = 0;
  app.add_option("--config", config_path, "attnverify.toml")->capture_default_str();
  app.add_option("--filter", filter, "only cases whose id matches this regular expression");
  app.add_option("--shard", shard,
                 "i/N: run every N-th group (a case and its variants) from i (0-based)");
  app.add_option("--sweep-id", sweep_id,
                 "the same id on every shard of one run (e.g. the job array's id): merge "
                 "refuses a shard of another run");
  app.add_option("--salt", salt,
                 "HEX: the salt of the inputs and drawn cases (default: a fresh random one); "
                 "numerics.json config.salt reproduces a run, and every shard of one run "
                 "needs the same");
  app.add_option("--jobs,-j", jobs, "cases in flight at once (default: [numerics] jobs, else 1)");
  app.add_option("--evidence", evidence, "numerics.json path (default from [numerics])");
  app.add_option("--junit", junit, "JUnit XML path (default from [numerics])");
  app.add_option("--sandbox", sandbox,
                 "bwrap | none: where the candidate runs (default: [candidate] sandbox, else "
                 "bwrap)")
      ->check(CLI::IsMember({"bwrap", "none"}));
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  Provenance provenance = StartProvenance("numerics", RecordedArgv(args));
  Result<NumericsConfig> config = LoadNumericsConfig(config_path);
  if (!config.ok()) return ReportError(config.status());
  Result<PackageLock> lock = LockPackageOfConfig(config_path, args);
  if (!lock.ok()) return ReportError(lock.status());
  NumericsOptions options;
  options.config = *config;
  if (!evidence.empty()) options.config.evidence = std::filesystem::absolute(evidence).string();
  if (!junit.empty()) options.config.junit = std::filesystem::absolute(junit).string();
  options.filter = filter;
  if (!sweep_id.empty() && !ValidSweepId(sweep_id)) {
    return ReportError(InvalidInput("--sweep-id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -, "
                                    "got \"" + sweep_id + "\""));
  }
  options.sweep_id = sweep_id;
  if (!salt.empty()) {
    Result<uint64_t> parsed = ParseSalt(salt);
    if (!parsed.ok()) return ReportError(parsed.status());
    options.salt = *parsed;
  }
  // A subset never replaces the full sweep's evidence unless a path is named: it goes
  // beside it, and the numerics stage of evidence/run.json (which binds the report to
  // the full sweep's file) is left as it was.
  const bool beside = !filter.empty() && evidence.empty();
  if (beside) {
    options.config.evidence = FilteredEvidencePath(options.config.evidence);
    if (junit.empty()) options.config.junit = FilteredEvidencePath(options.config.junit);
  }
  options.jobs = jobs > 0 ? jobs : config->jobs;
  if (!shard.empty()) {
    Status st = ApplyShard(shard, !evidence.empty(), !junit.empty(), &options);
    if (!st.ok()) return ReportError(st);
  }
  // The package folder is the config's (evidence/run.json), unless under `run`.
  std::optional<RecordedStage> stage;
  if (!beside) {
    stage.emplace(config->base_dir, "numerics", args);
    stage->Bind(&provenance);
  }
  auto finish = [&](int code, const std::string& reason = "") {
    return stage ? stage->Finish(code, reason) : code;
  };
  auto fail = [&](const Status& st) { return stage ? stage->Fail(st) : ReportError(st); };
  PosixProcessRunner runner;
  options.runner = &runner;
  const std::string sandbox_warning = ChooseSandbox(*config, sandbox, runner, &options);
  if (!sandbox_warning.empty())
    std::fprintf(stderr, "attnverify: warning: %s\n", sandbox_warning.c_str());
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  ProgressLine progress(tty);
  options.on_case = [tty, &progress](const CaseResult& c, int64_t done, int64_t total) {
    if (!tty && c.verdict != CaseVerdict::kPass) {
      std::fprintf(stderr, "FAIL %s: %s\n", c.spec.id.c_str(), c.reason.c_str());
    }
    const std::string line = progress.Update(done, total, c.spec.id);
    if (!line.empty()) std::fputs(line.c_str(), stderr);
  };
  Result<NumericsRun> run = RunNumericsSweep(options);
  if (!run.ok()) return fail(run.status());
  if (!sandbox_warning.empty()) run->warnings.insert(run->warnings.begin(), sandbox_warning);
  for (size_t i = sandbox_warning.empty() ? 0 : 1; i < run->warnings.size(); ++i)
    std::fprintf(stderr, "attnverify: warning: %s\n", run->warnings[i].c_str());
  for (const std::string& change : run->package_changes)
    std::fprintf(stderr, "attnverify: the candidate changed a package file: %s\n", change.c_str());

  const NumericsRecord record = NumericsRunToRecord(*run, options.config, std::move(provenance));
  if (Status st = WriteNumericsFiles(record, options.config); !st.ok()) return fail(st);
  std::fputs(FormatNumericsSummary(*run).c_str(), stdout);
  std::printf("evidence: %s\njunit:    %s\n", options.config.evidence.c_str(),
              options.config.junit.c_str());
  if (beside) {
    std::printf(
        "note: --filter ran %zu of the %lld cases of the sweep: its evidence is the file above, "
        "beside %s, which it does not replace (the report judges only the full sweep's file; "
        "--evidence PATH writes elsewhere)\n",
        run->cases.size(), static_cast<long long>(run->total_cases),
        config->evidence.c_str());
  }
  for (const CaseResult& c : run->cases) {
    if (c.verdict == CaseVerdict::kError) return finish(kExitInternal, c.spec.id + ": " + c.reason);
  }
  return finish(run->failed() == 0 ? kExitOk : kExitRejected);
}

}  // namespace av::cli
