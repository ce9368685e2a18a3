// ReportConfig: the [policy] and [report] tables of attnverify.toml — which checklist
// items the verdict requires, which checks are waived (and why), and which report
// formats `attnverify report` writes. Other tables are ignored except two values read
// for commands and paths ([slice] base, [numerics] evidence); unknown keys inside
// [policy] and [report] are errors with file:line:col. Format: doc/report.md.
// Pure functions; any thread.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"
#include "profile/profile_config.h"

namespace av {

inline constexpr const char* kReportFormats[] = {"md", "json", "html", "sarif"};

struct ReportConfig {
  std::string path;         // attnverify.toml as the user named it (used in commands)
  std::string package_dir;  // its folder, absolute
  std::set<int> required = {1, 2, 3, 4, 5, 6, 7, 8};
  // check id ("2.window", "4.perf") -> the reason the policy accepts its absence.
  std::map<std::string, std::string> waivers;
  // [policy] gpu_evidence: a GPU host produces this package's timing and ncu evidence, so
  // the GPU-only checks (4.perf, 3.bank_conflicts) are required. Default false: offline,
  // they are shown as MISSING but do not hold the verdict back.
  bool gpu_evidence = false;
  // [policy] require_agent_review: 8.agent_review is required, and the verdict is not
  // accepted unless the agent review ran with no stage failed (whatever `required` says).
  bool require_agent_review = false;
  std::vector<std::string> formats = {"md", "json", "html", "sarif"};
  std::string title = "Kernel refactor acceptance";
  // [report] junit: pytest's JUnit XML (package-relative) for 1.junit_agrees; "" for none.
  // `attnverify report --junit FILE` overrides it.
  std::string junit;
  std::string base_ref = "HEAD~1";  // [slice] base
  std::string numerics_evidence =
      "evidence/numerics.json";    // [numerics] evidence, package-relative
  std::string work_dir = "work";   // [numerics] work_dir: left out of manifest.json
  profile::ProfileConfig profile;  // [profile]: the perf gates of items 3 and 4 (doc/profile.md)
};

// `display_path` is how commands in the report name the config
// ("attention-verify/attnverify.toml").
Result<ReportConfig> ParseReportConfig(const PackageConfig& package);
Result<ReportConfig> ParseReportConfig(std::string_view text, const std::string& display_path);
Result<ReportConfig> LoadReportConfig(const std::string& path);

// "md,json" -> {"md", "json"}; an unknown format is an error naming it and the known ones.
Result<std::vector<std::string>> ParseFormatList(const std::string& list);

// True when `id` names a check the engine can produce ("1.base_cases", "2.window", ...).
bool IsKnownCheckId(std::string_view id);

}  // namespace av
