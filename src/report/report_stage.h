// The report stage as a library call: read the package's evidence, bind it to its run,
// judge the checklist, write reports/acceptance.<format> for each format through the
// writers' table (report_writers.h), then manifest.json last, so that it covers the
// reports. `attnverify report` (cli/cmd_report.cc) loads the config, takes the package
// lock, and prints; everything between is here. Runs `nvcc --version` through the given
// runner when resources.json names no nvcc. One call at a time per package (the caller
// holds the package lock).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "report/checklist.h"
#include "report/report_config.h"

namespace av {

struct ReportRequest {
  std::string config_path;  // attnverify.toml as the user named it (used in commands)
  // pytest's JUnit XML to cross-check: absolute, or package-relative ([report] junit);
  // "" for none.
  std::string junit;
  // Told each note for stderr as it happens ("removed X (left by ...)", "warning: X is
  // a symbolic link: ..."); may be empty.
  std::function<void(const std::string&)> on_warning;
};

struct ReportOutcome {
  ChecklistReport report;
  std::vector<std::string> written;  // the reports, absolute paths, in format order
  std::string manifest_path;         // absolute
  size_t manifest_files = 0;         // files manifest.json lists
};

// `config.formats` says which reports are written. Errors: evidence that does not parse,
// a linked folder in the package (refused before anything is written), a report or the
// manifest that cannot be written.
Result<ReportOutcome> RunReportStage(const ReportConfig& config, const ReportRequest& request,
                                     ProcessRunner& runner);

}  // namespace av
