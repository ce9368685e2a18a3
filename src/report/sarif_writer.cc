// acceptance.sarif: the review findings as SARIF 2.1.0 results (one rule per rule id,
// level from severity, file and line region), for GitHub code scanning and IDEs.
#include <map>
#include <nlohmann/json.hpp>

#include "report/report_writers.h"

namespace av {

nlohmann::json AcceptanceToSarif(const ChecklistReport& r) {
  using nlohmann::json;
  json rules = json::array();
  std::map<std::string, size_t> index;
  for (const Finding& f : r.findings) {
    if (index.count(f.rule)) continue;
    index[f.rule] = rules.size();
    rules.push_back({{"id", f.rule},
                     {"shortDescription", {{"text", f.title.empty() ? f.rule : f.title}}},
                     {"properties", {{"checklist_item", f.checklist_item}}}});
  }
  json results = json::array();
  for (const Finding& f : r.findings) {
    std::string text = (f.title.empty() ? "" : f.title + ": ") + f.message;
    if (f.has_verify()) text += " Verify: " + f.VerifyLine();
    json result = {{"ruleId", f.rule},
                   {"ruleIndex", index[f.rule]},
                   {"level", SeverityName(f.severity)},
                   {"message", {{"text", text.empty() ? f.rule : text}}},
                   {"properties",
                    {{"finding_id", f.id},
                     {"checklist_item", f.checklist_item},
                     {"component", f.component},
                     {"verify", f.VerifyLine()}}}};
    if (!f.file.empty()) {
      json physical = {{"artifactLocation", {{"uri", f.file}}}};
      if (f.line > 0) {
        physical["region"] = {{"startLine", f.line},
                              {"endLine", f.end_line >= f.line ? f.end_line : f.line}};
      }
      result["locations"] = json::array({{{"physicalLocation", physical}}});
    }
    results.push_back(std::move(result));
  }
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       json::array({{{"tool",
                      {{"driver",
                        {{"name", "attnverify"}, {"version", r.tool_version}, {"rules", rules}}}}},
                     {"results", results},
                     {"properties", {{"verdict", r.verdict}}}}})}};
}

}  // namespace av
