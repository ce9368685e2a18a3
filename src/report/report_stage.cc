#include "report/report_stage.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/package_lock.h"
#include "core/version.h"
#include "report/evidence.h"
#include "report/manifest.h"
#include "report/report_writers.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// The manifest leaves out the sweep's work folder when it lies inside the package.
std::vector<std::string> ManifestExclusions(const ReportConfig& config) {
  // The package lock's file changes with every command (core/package_lock.h).
  std::vector<std::string> out = {"manifest.json", kPackageLockFile};
  fs::path work = (fs::path(config.package_dir) / config.work_dir).lexically_normal();
  fs::path rel = work.lexically_relative(config.package_dir);
  if (!rel.empty() && *rel.begin() != ".." && rel != ".") out.push_back(rel.generic_string() + "/");
  return out;
}

Result<Evidence> LoadAndBind(const ReportConfig& config, const ReportRequest& request) {
  EvidenceRequest er;
  er.package_dir = config.package_dir;
  er.config_path = request.config_path;
  er.numerics_evidence = config.numerics_evidence;
  er.junit = request.junit;
  AV_ASSIGN_OR_RETURN(Evidence evidence, LoadEvidence(er));
  // The ledger's seal, and the config each evidence file must have been written under.
  if (evidence.run) {
    evidence.run->trust =
        CheckRunTrust(evidence.run->ledger, config.package_dir, request.config_path);
  }
  return evidence;
}

// reports/acceptance.<format> for each of `config.formats`; the paths written.
Result<std::vector<std::string>> WriteReports(const ReportConfig& config,
                                              const ChecklistReport& report) {
  const fs::path reports = fs::path(config.package_dir) / "reports";
  std::error_code ec;
  fs::create_directories(reports, ec);
  if (ec) return IoError(reports.string() + ": cannot create: " + ec.message());
  std::vector<std::string> written;
  for (const std::string& format : config.formats) {
    const ReportWriter* writer = FindReportWriter(format);
    if (writer == nullptr) return InvalidInput("unknown report format \"" + format + "\"");
    const std::string path = (reports / ("acceptance." + format)).string();
    AV_RETURN_IF_ERROR(WriteFileAtomically(path, writer->write(report)));
    written.push_back(path);
  }
  return written;
}

Result<Manifest> BuildManifest(const ReportConfig& config, const Evidence& evidence,
                               const std::vector<std::string>& excluded,
                               const ReportRequest& request, ProcessRunner& runner) {
  Manifest manifest;
  manifest.tool_version = ATTNVERIFY_VERSION;
  manifest.nvcc_version = DetectNvccVersion(
      runner, evidence.resources ? evidence.resources->nvcc_version : "", &manifest.nvcc_source);
  manifest.host = HostName();
  manifest.created_utc = UtcNowIso8601();
  manifest.excluded = excluded;
  AV_ASSIGN_OR_RETURN(PackageListing files, ListPackageFiles(config.package_dir, manifest.excluded,
                                                             /*remove_stale_temporaries=*/true));
  auto warn = [&](const std::string& line) {
    if (request.on_warning) request.on_warning(line);
  };
  for (const std::string& t : files.removed_temporaries)
    warn("removed " + t + " (left by a process that no longer runs)");
  for (const std::string& l : files.links) {
    warn("warning: " + l +
         " is a symbolic link: manifest.json records the link, not what it points to");
  }
  manifest.files = std::move(files.files);
  return manifest;
}

}  // namespace

Result<ReportOutcome> RunReportStage(const ReportConfig& config, const ReportRequest& request,
                                     ProcessRunner& runner) {
  AV_ASSIGN_OR_RETURN(Evidence evidence, LoadAndBind(config, request));
  ReportOutcome out;
  out.report = ComputeChecklist(evidence, config, ATTNVERIFY_VERSION);
  // A linked reports/ (or evidence/) folder would be written through and left out of the
  // manifest: refused before anything is written.
  const std::vector<std::string> excluded = ManifestExclusions(config);
  AV_RETURN_IF_ERROR(CheckNoLinkedFolders(config.package_dir, excluded));
  AV_ASSIGN_OR_RETURN(out.written, WriteReports(config, out.report));
  AV_ASSIGN_OR_RETURN(Manifest manifest,
                      BuildManifest(config, evidence, excluded, request, runner));
  out.manifest_path = (fs::path(config.package_dir) / "manifest.json").string();
  AV_RETURN_IF_ERROR(
      WriteFileAtomically(out.manifest_path, JsonFileText(ManifestToJson(manifest))));
  out.manifest_files = manifest.files.size();
  return out;
}

}  // namespace av
