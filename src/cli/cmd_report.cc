// attnverify report: the eight-item acceptance checklist from the package's evidence,
// written as reports/acceptance.{md,json,html,sarif}, then manifest.json (last, so it
// covers the reports). Prints the verdict and the item table. Exit 0 accepted, 1
// rejected or incomplete, 2 bad input (config, evidence that does not parse).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "core/file.h"
#include "core/json_dump.h"
#include "core/process.h"
#include "core/version.h"
#include "report/checklist.h"
#include "report/evidence.h"
#include "report/manifest.h"
#include "report/report_config.h"
#include "report/report_writers.h"

namespace av::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kReportHelp =
    "Judge the package's evidence against the eight-item checklist (FACTS.md §7): each item\n"
    "PASS, FAIL or MISSING, every conclusion citing a file, its sha256 and the command that\n"
    "wrote it; MISSING names the command that would produce the evidence. Reads\n"
    "evidence/{numerics,resources,review,slice,perf}.json and [policy]/[report] of\n"
    "attnverify.toml (doc/report.md); writes reports/acceptance.* and manifest.json.\n"
    "Exit 0 accepted, 1 rejected or incomplete, 2 bad input.";

// The manifest leaves out the sweep's work folder when it lies inside the package.
std::vector<std::string> ManifestExclusions(const ReportConfig& config) {
  // The package lock's file changes with every command (core/package_lock.h).
  std::vector<std::string> out = {"manifest.json", kPackageLockFile};
  fs::path work = (fs::path(config.package_dir) / config.work_dir).lexically_normal();
  fs::path rel = work.lexically_relative(config.package_dir);
  if (!rel.empty() && *rel.begin() != ".." && rel != ".") out.push_back(rel.generic_string() + "/");
  return out;
}

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
  EvidenceRequest request;
  request.package_dir = config->package_dir;
  request.config_path = config_path;
  request.numerics_evidence = config->numerics_evidence;
  // --junit is a path from here; [report] junit one from the package.
  request.junit = !junit.empty() ? fs::absolute(junit).lexically_normal().string() : config->junit;
  Result<Evidence> evidence = LoadEvidence(request);
  if (!evidence.ok()) return ReportError(evidence.status());
  // The ledger's seal, and the config each evidence file must have been written under.
  if (evidence->run) {
    evidence->run->trust = CheckRunTrust(evidence->run->ledger, config->package_dir, config_path);
  }
  ChecklistReport report = ComputeChecklist(*evidence, *config, ATTNVERIFY_VERSION);

  // A linked reports/ (or evidence/) folder would be written through and left out of the
  // manifest: refused before anything is written.
  const std::vector<std::string> excluded = ManifestExclusions(*config);
  if (Status st = CheckNoLinkedFolders(config->package_dir, excluded); !st.ok())
    return ReportError(st);
  const fs::path reports = fs::path(config->package_dir) / "reports";
  std::error_code ec;
  fs::create_directories(reports, ec);
  if (ec) return ReportError(IoError(reports.string() + ": cannot create: " + ec.message()));
  std::vector<std::string> written;
  for (const std::string& format : config->formats) {
    std::string text;
    if (format == "md")
      text = WriteAcceptanceMarkdown(report);
    else if (format == "json")
      text = JsonFileText(AcceptanceToJson(report));
    else if (format == "html")
      text = WriteAcceptanceHtml(report);
    else if (format == "sarif")
      text = JsonFileText(AcceptanceToSarif(report));
    const std::string path = (reports / ("acceptance." + format)).string();
    Status st = WriteFileAtomically(path, text);
    if (!st.ok()) return ReportError(st);
    written.push_back(path);
  }

  Manifest manifest;
  manifest.tool_version = ATTNVERIFY_VERSION;
  PosixProcessRunner runner;
  manifest.nvcc_version = DetectNvccVersion(
      runner, evidence->resources ? evidence->resources->nvcc_version : "", &manifest.nvcc_source);
  manifest.host = HostName();
  manifest.created_utc = UtcNowIso8601();
  manifest.excluded = excluded;
  Result<PackageListing> files = ListPackageFiles(config->package_dir, manifest.excluded,
                                                  /*remove_stale_temporaries=*/true);
  if (!files.ok()) return ReportError(files.status());
  for (const std::string& t : files->removed_temporaries)
    std::fprintf(stderr, "attnverify: removed %s (left by a process that no longer runs)\n",
                 t.c_str());
  for (const std::string& l : files->links) {
    std::fprintf(stderr,
                 "attnverify: warning: %s is a symbolic link: manifest.json records the link, "
                 "not what it points to\n",
                 l.c_str());
  }
  manifest.files = std::move(files->files);
  const std::string manifest_path = (fs::path(config->package_dir) / "manifest.json").string();
  Status st = WriteFileAtomically(manifest_path, JsonFileText(ManifestToJson(manifest)));
  if (!st.ok()) return ReportError(st);

  std::fputs(FormatVerdictTable(report).c_str(), stdout);
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  std::printf("wrote %s (%zu files)\n", manifest_path.c_str(), manifest.files.size());
  return VerdictExitCode(report) == 0 ? kExitOk : kExitRejected;
}

}  // namespace av::cli
