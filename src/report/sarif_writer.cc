// acceptance.sarif as SARIF 2.1.0, for GitHub code scanning and IDEs: every FAIL check of
// the checklist (level error) and every MISSING check a required item needs (level
// warning), each as rule "checklist/<check id>", then the review findings (one rule per
// rule id, level from severity, file and line region). A rejected change must read as
// rejected there, not as its two review warnings.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "findings/finding_writers.h"
#include "report/report_writers.h"

namespace av {
namespace {

using nlohmann::json;

// Where a check's result points: the first file it cites, named from the folder the config
// was named from ("attention-verify/evidence/numerics.json"), else the config itself. Code
// scanning needs a location on every result.
std::string CheckLocation(const ChecklistReport& r, const Check& c) {
  const std::filesystem::path config(r.config);
  for (const Citation& cite : c.citations) {
    if (cite.file.empty()) continue;
    if (config.is_absolute() || r.config.empty()) return cite.file;
    return (config.parent_path() / cite.file).lexically_normal().string();
  }
  return r.config.empty() ? "attnverify.toml" : r.config;
}

struct SarifTable {
  json rules = json::array();
  json results = json::array();
  std::map<std::string, size_t> index;

  size_t Rule(const std::string& id, const std::string& title, int item) {
    auto [it, fresh] = index.emplace(id, rules.size());
    if (fresh) rules.push_back(SarifRule(id, title, item));
    return it->second;
  }
};

void AddCheckResults(const ChecklistReport& r, SarifTable& t) {
  for (const ItemResult& item : r.items) {
    for (const Check& c : item.checks) {
      const bool fail = c.status == CheckStatus::kFail;
      const bool missing = c.status == CheckStatus::kMissing && c.required && item.required;
      if (!fail && !missing) continue;
      const std::string rule = "checklist/" + c.id;
      std::string text = "Item " + std::to_string(item.number) + " (" + item.title + ") " +
                         CheckStatusName(c.status) + ": " + c.title;
      if (!c.summary.empty()) text += ": " + c.summary;
      for (const std::string& d : c.details) text += "\n" + d;
      if (missing && !c.missing_command.empty()) text += "\nProduce it: " + c.missing_command;
      json result = {
          {"ruleId", rule},
          {"ruleIndex", t.Rule(rule, c.title, item.number)},
          {"level", fail ? "error" : "warning"},
          {"message", {{"text", text}}},
          {"locations",
           json::array({{{"physicalLocation",
                          {{"artifactLocation", {{"uri", CheckLocation(r, c)}}}}}}})},
          {"properties",
           {{"checklist_item", item.number},
            {"check", c.id},
            {"status", CheckStatusName(c.status)},
            {"verdict", ReportVerdictName(r.verdict)}}}};
      t.results.push_back(std::move(result));
    }
  }
}

// The review findings in findings/'s one SARIF shape (the same as `review --sarif`).
void AddFindingResults(const ChecklistReport& r, SarifTable& t) {
  for (const Finding& f : r.findings) {
    t.results.push_back(FindingToSarifResult(f, t.Rule(f.rule, f.title, f.checklist_item)));
  }
}

}  // namespace

nlohmann::json AcceptanceToSarif(const ChecklistReport& r) {
  SarifTable t;
  AddCheckResults(r, t);
  AddFindingResults(r, t);
  return SarifLog(r.tool_version, std::move(t.rules), std::move(t.results),
                  {{"verdict", ReportVerdictName(r.verdict)}});
}

}  // namespace av
