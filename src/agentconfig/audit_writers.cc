#include "agentconfig/audit_writers.h"

#include <nlohmann/json.hpp>

#include "findings/finding_writers.h"

namespace av {

nlohmann::json AuditToJson(const AuditReport& r, const std::string& tool_version,
                           const std::string& command) {
  using nlohmann::json;
  json files = json::array();
  for (const AuditedFile& f : r.files) {
    files.push_back({{"path", f.path}, {"kind", f.kind}, {"sha256", f.sha256}});
  }
  json findings = json::array();
  for (const Finding& f : r.findings) findings.push_back(FindingToJson(f));
  return {{"schema", "attnverify.agent-config-audit/1"},
          {"tool", {{"name", "attnverify"}, {"version", tool_version}}},
          {"command", command},
          {"provider", {{"checked", r.provider_checked}, {"config", r.provider_path}}},
          {"files", std::move(files)},
          {"errors", r.Errors()},
          {"findings", std::move(findings)}};
}

std::string AuditToMarkdown(const AuditReport& r, const std::string& command) {
  std::string md = "# Agent config audit\n\n";
  md += "- command: `" + command + "`\n";
  md += "- provider: " +
        (r.provider_checked ? "`[provider]` in `" + r.provider_path + "`"
                            : std::string("none (files compared with each other only)")) +
        "\n";
  for (const AuditedFile& f : r.files) md += "- `" + f.path + "`: " + f.kind + "\n";
  md += FindingsToMarkdown(r.findings);
  return md;
}

nlohmann::json AuditToSarif(const AuditReport& r, const std::string& tool_version) {
  return FindingsToSarif(r.findings, tool_version);
}

}  // namespace av
