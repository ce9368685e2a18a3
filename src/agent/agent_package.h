// What the agent reviewer reads from an acceptance package: the component diffs (from
// evidence/slice.json, else every diff/*.diff), the failing cases and case ids of
// evidence/numerics.json, evidence/resources.json, the logs, the checklist and the current
// report. Every file is package-relative, read without following a link at its last
// component and with a size cap; a file that is absent is simply absent (the round that
// needs it is then skipped with the reason). One thread.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"
#include "diff/diff.h"

namespace av {

struct PackageDiff {
  std::string name;  // "flashmla"
  std::string path;  // package-relative: "diff/flashmla.diff"
  std::string text;
  Diff diff;  // the files sent to the model (agent/sent_files.h)
  // The files of the diff that are not sent, each with why ("docs/fig.svg: drawing (.svg)").
  std::vector<std::string> not_sent;
};

struct FailingCase {
  std::string id, verdict, reason;
  std::vector<std::string> hints;  // localisation hints
};

struct AgentPackage {
  std::string config_path;  // attnverify.toml
  // attnverify.toml as parsed once (LoadAgentPackage): the rounds read their tables from it
  // (the perf round its [profile]), never from the file again.
  std::optional<PackageConfig> config;
  std::string package_dir;  // absolute
  std::string repo_dir;     // [slice] repo, absolute
  std::string base;         // [slice] base as written ("HEAD~1")
  std::string reviewer = "builtin";
  std::vector<PackageDiff> components;  // non-empty diffs, slice order
  std::optional<std::string> numerics_text;
  std::set<std::string> case_ids;
  std::vector<FailingCase> failing_cases;
  std::optional<std::string> resources_text;
  std::optional<std::string> perf_text;  // evidence/perf.json
  std::map<std::string, std::string> logs;    // "logs/build.log" -> text (agent-cmd logs too)
  std::optional<std::string> checklist_text;  // acceptance_checklist.md
  std::optional<std::string> report_text;     // reports/acceptance.md

  // Whether `rel` names a regular file inside the package (no "..", not absolute, no
  // link at its last component).
  bool HasFile(const std::string& rel) const;
  // Its number of lines (0 when absent or over the cap).
  int64_t LineCount(const std::string& rel) const;
};

inline constexpr size_t kMaxPackageFileBytes = size_t{32} << 20;

// Reads the package of `config_path`. Errors: the toml does not parse, a sliced diff whose
// sha256 is not slice.json's, a diff that does not parse, numerics.json that is not JSON.
Result<AgentPackage> LoadAgentPackage(const std::string& config_path);
// The same from attnverify.toml already parsed (the agent command parses it once).
Result<AgentPackage> LoadAgentPackage(const PackageConfig& package);

// Reads one package file (kRefuse links, capped); NotFound when absent.
Result<std::string> ReadPackageFile(const std::string& package_dir, const std::string& rel);

}  // namespace av
