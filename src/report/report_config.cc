#include "report/report_config.h"

#include <algorithm>
#include <filesystem>

#include "core/file.h"
#include "core/package_config.h"
#include "core/toml_config.h"
#include "report/checklist_table.h"

namespace av {
namespace {

namespace fs = std::filesystem;

}  // namespace

bool IsKnownCheckId(std::string_view id) { return checklist::FindCheckDef(id) != nullptr; }

Result<std::vector<std::string>> ParseFormatList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string f =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!f.empty()) {
      if (std::find(std::begin(kReportFormats), std::end(kReportFormats), f) ==
          std::end(kReportFormats)) {
        return InvalidInput("unknown report format \"" + f + "\" (known: md, json, html, sarif)");
      }
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) return InvalidInput("no report format given (known: md, json, html, sarif)");
  return out;
}

Result<ReportConfig> ParseReportConfig(const PackageConfig& package) {
  const std::string& display_path = package.path();
  const toml::table& doc = package.doc();
  TomlTableReader r(display_path);
  ReportConfig c;
  c.path = display_path;
  c.package_dir = fs::absolute(fs::path(display_path)).parent_path().lexically_normal().string();
  // [profile] from the same parse: the perf gates of items 3 and 4.
  AV_ASSIGN_OR_RETURN(c.profile, profile::ParseProfileConfig(package));

  AV_ASSIGN_OR_RETURN(const toml::table* policy, r.OptionalTable(doc, "policy"));
  if (policy != nullptr) {
    // agent_commands: the rules `agent run-commands` reads, from the base revision's copy
    // of this file (agent/run_commands_policy.h); nothing of the report's.
    AV_RETURN_IF_ERROR(r.CheckKeys(*policy, "[policy]",
                                   {"required", "waive", "gpu_evidence", "require_agent_review",
                                    "agent_commands"}));
    if (const toml::node* n = policy->get("gpu_evidence")) {
      AV_ASSIGN_OR_RETURN(c.gpu_evidence, r.Bool(*n, "gpu_evidence"));
    }
    if (const toml::node* n = policy->get("require_agent_review")) {
      AV_ASSIGN_OR_RETURN(c.require_agent_review, r.Bool(*n, "require_agent_review"));
    }
    if (const toml::node* n = policy->get("required")) {
      const toml::array* arr = n->as_array();
      if (arr == nullptr) return r.Error(*n, "\"required\" must be an array of item numbers 1..8");
      c.required.clear();
      for (const toml::node& item : *arr) {
        AV_ASSIGN_OR_RETURN(int64_t v, r.Integer(item, "required", 1, 8));
        c.required.insert(static_cast<int>(v));
      }
    }
    if (const toml::node* n = policy->get("waive")) {
      const toml::table* t = n->as_table();
      if (t == nullptr) return r.Error(*n, "\"waive\" must be a table: check id = \"reason\"");
      for (const auto& [key, value] : *t) {
        std::string id(key.str());
        if (!IsKnownCheckId(id)) {
          return InvalidInput(display_path + ":" + std::to_string(key.source().begin.line) + ":" +
                              std::to_string(key.source().begin.column) + ": unknown check id \"" +
                              id + "\" in [policy] waive (check ids: doc/report.md)");
        }
        AV_ASSIGN_OR_RETURN(std::string why, r.String(value, "waive." + id));
        c.waivers[id] = why;
      }
    }
  }
  AV_ASSIGN_OR_RETURN(const toml::table* report, r.OptionalTable(doc, "report"));
  if (report != nullptr) {
    AV_RETURN_IF_ERROR(r.CheckKeys(*report, "[report]", {"formats", "title", "junit"}));
    if (const toml::node* n = report->get("junit")) {
      AV_ASSIGN_OR_RETURN(c.junit, r.String(*n, "junit"));
    }
    if (const toml::node* n = report->get("formats")) {
      AV_ASSIGN_OR_RETURN(std::vector<std::string> formats, r.StringArray(*n, "formats"));
      std::string joined;
      for (const std::string& f : formats) joined += (joined.empty() ? "" : ",") + f;
      Result<std::vector<std::string>> parsed = ParseFormatList(joined);
      if (!parsed.ok()) return r.Error(*n, parsed.status().message());
      c.formats = *parsed;
    }
    if (const toml::node* n = report->get("title")) {
      AV_ASSIGN_OR_RETURN(c.title, r.String(*n, "title"));
    }
  }
  // Values owned by other tables: read, not validated (their modules do that).
  if (auto base = doc["slice"]["base"].value<std::string>(); base && !base->empty())
    c.base_ref = *base;
  if (auto ev = doc["numerics"]["evidence"].value<std::string>(); ev && !ev->empty())
    c.numerics_evidence = *ev;
  if (auto w = doc["numerics"]["work_dir"].value<std::string>(); w && !w->empty()) c.work_dir = *w;
  return c;
}

Result<ReportConfig> ParseReportConfig(std::string_view text, const std::string& display_path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, display_path));
  return ParseReportConfig(package);
}

Result<ReportConfig> LoadReportConfig(const std::string& path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseReportConfig(package);
}

}  // namespace av
