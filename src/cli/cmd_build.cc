// attnverify build: compile the configured kernels with `nvcc -Xptxas -v` (or import a
// log), compare with a base revision, and give registers, shared memory against each
// arch's cap, spills and occupancy per kernel, with the gates' verdict.
// Exit 0 ok (or evidence missing: no nvcc), 1 a gate failed or had nothing to judge,
// 2 input or config error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/stage_recording.h"
#include "core/process.h"
#include "core/version.h"
#include "compile/build_config.h"
#include "compile/build_evidence.h"
#include "compile/resources_writer.h"
#include "schema/provenance.h"

namespace av::cli {
namespace {

constexpr const char* kBuildHelp =
    "Compile evidence for a kernel refactor: nvcc -Xptxas -v per source and target arch,\n"
    "registers, barriers, stack, spills, static + dynamic shared memory against the arch's\n"
    "cap, occupancy for the configured block size; with --base, the same for the base\n"
    "revision (built in a temporary git worktree, hooks and repo programs disabled) and\n"
    "the change per kernel. Reads [build] of attnverify.toml\n"
    "(doc/formats/attnverify-toml-build.md); writes logs/build.log, logs/build-base.log and\n"
    "evidence/resources.json in the folder of the config (or --out); imported logs are\n"
    "copied to logs/.\n"
    "Gates (defaults): no new spills, shared memory within the cap on every arch,\n"
    "occupancy not lower than base, registers <= 255. A gate with nothing to judge (no\n"
    "kernel in the log, a base that did not build, kernels on one side only) is missing,\n"
    "never a pass; any failed or missing gate exits 1.";

}  // namespace

int RunBuild(std::vector<std::string> args) {
  CLI::App app(kBuildHelp, "attnverify build");
  std::string config_path = "attention-verify/attnverify.toml", import_log, import_base, base_ref,
              out_dir;
  std::vector<std::string> archs;
  CLI::Option* config_option = app.add_option(
      "--config", config_path, "attnverify.toml (default: attention-verify/attnverify.toml)");
  app.add_option("--arch", archs,
                 "target arch(s), replacing [build] archs: sm_90a or arch=compute_90a,code=sm_90a")
      ->take_all();
  app.add_option("--import", import_log,
                 "parse this nvcc/ptxas log (a GPU box's or a CI build log) instead of compiling");
  app.add_option("--import-base", import_base, "with --import: the base revision's log");
  app.add_option("--base", base_ref,
                 "also build this git revision (HEAD~1, main, a commit) and compare");
  app.add_option("--out", out_dir,
                 "package folder for logs/ and evidence/ (default: the config's folder)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if (!import_base.empty() && import_log.empty()) {
    return ReportError(InvalidInput("--import-base needs --import (the head's log)"));
  }

  BuildRequest request;
  request.provenance = StartProvenance("build", RecordedArgv(args));
  std::error_code ec;
  const bool given_config = config_option->count() > 0;
  bool config_read = false;
  // Without a package, an import still works when --out names where the evidence goes;
  // nothing is ever written into the current folder by default.
  if (!given_config && !std::filesystem::exists(config_path, ec) && !import_log.empty() &&
      !out_dir.empty()) {
    request.config.root = std::filesystem::current_path().string();
  } else {
    Result<BuildConfig> config = LoadBuildConfig(config_path);
    if (!config.ok()) {
      if (!given_config && !std::filesystem::exists(config_path, ec)) {
        return ReportError(
            InvalidInput(config_path +
                         " not found: pass --config FILE (attnverify init creates a package), "
                         "or --import LOG --out DIR"));
      }
      return ReportError(config.status());
    }
    request.config = std::move(config).value();
    config_read = true;
  }
  if (out_dir.empty()) {
    out_dir = std::filesystem::path(config_path).parent_path().string();
    if (out_dir.empty()) out_dir = ".";
  }
  request.arch_override = archs;
  request.import_log = import_log;
  request.import_base_log = import_base;
  request.base_ref = base_ref;
  request.out_dir = out_dir;
  request.tool_version = ATTNVERIFY_VERSION;
  Result<PackageLock> lock = LockPackage(out_dir, args);
  if (!lock.ok()) return ReportError(lock.status());
  if (config_read) {
    request.provenance.config = PackageRelative(out_dir, config_path);
    Status st = AddInputFile(&request.provenance, out_dir, config_path);
    if (!st.ok()) return ReportError(st);
  }

  RecordedStage stage(out_dir, "build", args);  // evidence/run.json, unless under `run`
  stage.Bind(&request.provenance);
  PosixProcessRunner runner;
  Result<BuildOutcome> outcome = CollectBuildEvidence(runner, request);
  if (!outcome.ok()) return stage.Fail(outcome.status());
  const ResourcesReport& report = outcome->report;
  std::fputs(FormatResourcesTable(report).c_str(), stdout);
  for (const std::string& path : outcome->written) std::printf("wrote %s\n", path.c_str());
  if (report.status == ResourcesStatus::kMissing) {
    std::fprintf(stderr, "attnverify: %s\n", report.missing_reason.c_str());
    return stage.Finish(kExitOk);
  }
  // "incomplete" exits 1 too: a gate that judged nothing is not a pass.
  return stage.Finish(report.Passed() ? kExitOk : kExitRejected);
}

}  // namespace av::cli
