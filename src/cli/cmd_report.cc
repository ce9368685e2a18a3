// attnverify report: the command of the report stage (report/report_stage.h, which reads
// the evidence, judges the eight-item checklist and writes reports/acceptance.* and then
// manifest.json). Here: the flags, the config and the package lock, and the printing of
// the verdict and the item table. Exit 0 accepted, 1 rejected or incomplete, 2 bad input
// (config, evidence that does not parse).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "core/process.h"
#include "report/report_config.h"
#include "report/report_stage.h"
#include "report/report_writers.h"

namespace av::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kReportHelp =
    "Judge the package's evidence against the eight-item checklist (doc/report.md): each item\n"
    "PASS, FAIL, MISSING or N/A (does not apply to the change), every conclusion citing a\n"
    "file, its sha256 and the command that wrote it; MISSING names the command that would\n"
    "produce the evidence. Reads\n"
    "evidence/{numerics,resources,review,slice,perf}.json and [policy]/[report] of\n"
    "attnverify.toml (doc/report.md); writes reports/acceptance.* and manifest.json.\n"
    "Exit 0 accepted, 1 rejected or incomplete, 2 bad input.";

}  // namespace

int RunReport(std::vector<std::string> args) {
  CLI::App app(kReportHelp, "attnverify report");
  std::string config_path = "attention-verify/attnverify.toml", formats, junit;
  app.add_option("--config", config_path, "attnverify.toml of the package")->capture_default_str();
  app.add_option("--formats", formats,
                 "comma-separated: md,json,html,sarif (default: [report] formats, else all)");
  app.add_option("--junit", junit,
                 "pytest's JUnit XML (--junitxml) to cross-check against numerics.json "
                 "(default: [report] junit)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  Result<ReportConfig> config = LoadReportConfig(config_path);
  if (!config.ok()) return ReportError(config.status());
  Result<PackageLock> lock = LockPackage(config->package_dir, args);
  if (!lock.ok()) return ReportError(lock.status());
  if (!formats.empty()) {
    Result<std::vector<std::string>> list = ParseFormatList(formats);
    if (!list.ok()) return ReportError(list.status());
    config->formats = *list;
  }
  ReportRequest request;
  request.config_path = config_path;
  // --junit is a path from here; [report] junit one from the package.
  request.junit = !junit.empty() ? fs::absolute(junit).lexically_normal().string() : config->junit;
  request.on_warning = [](const std::string& note) {
    std::fprintf(stderr, "attnverify: %s\n", note.c_str());
  };
  PosixProcessRunner runner;  // nvcc --version, when resources.json names no nvcc
  Result<ReportOutcome> outcome = RunReportStage(*config, request, runner);
  if (!outcome.ok()) return ReportError(outcome.status());
  const ChecklistReport& report = outcome->report;
  std::fputs(FormatVerdictTable(report).c_str(), stdout);
  for (const std::string& path : outcome->written) std::printf("wrote %s\n", path.c_str());
  std::printf("wrote %s (%zu files)\n", outcome->manifest_path.c_str(), outcome->manifest_files);
  return VerdictExitCode(report) == 0 ? kExitOk : kExitRejected;
}

}  // namespace av::cli
