#include "report/report_config.h"

#include <algorithm>
#include <filesystem>

#include "core/file.h"
#include "core/toml_config.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// Every check id the engine produces (report/checklist_numerics.cc, checklist_kernel.cc); waivers
// must name one.
constexpr std::string_view kCheckIds[] = {
    "1.base_cases",
    "1.dtypes",
    "1.softmax_stability",
    "1.invariance",
    "2.causal",
    "2.causal_alignment",
    "2.window",
    "2.varlen",
    "2.padding",
    "2.paged",
    "2.partial_block",
    "2.block_edges",
    "2.invalid_indices",
    "2.coverage",
    "3.build",
    "3.head_builds",
    "3.registers_max",
    "3.no_new_spills",
    "3.smem_within_cap",
    "3.occupancy_not_lower",
    "3.bank_conflicts",
    "4.unaligned_gemm",
    "4.perf",
    "5.num_splits",
    "6.padded_strides",
    "6.output_contract",
    "7.path_recorded",
    "7.paths_exercised",
    "7.fallback_kept",
    "8.files",
    "8.review",
    "8.findings_verifiable",
    "8.conclusions_cited",
};

}  // namespace

bool IsKnownCheckId(std::string_view id) {
  return std::find(std::begin(kCheckIds), std::end(kCheckIds), id) != std::end(kCheckIds);
}

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

Result<ReportConfig> ParseReportConfig(std::string_view text, const std::string& display_path) {
  AV_ASSIGN_OR_RETURN(toml::table doc, ParseTomlConfig(text, display_path));
  TomlTableReader r(display_path);
  ReportConfig c;
  c.path = display_path;
  c.package_dir = fs::absolute(fs::path(display_path)).parent_path().lexically_normal().string();

  AV_ASSIGN_OR_RETURN(const toml::table* policy, r.OptionalTable(doc, "policy"));
  if (policy != nullptr) {
    AV_RETURN_IF_ERROR(r.CheckKeys(*policy, "[policy]", {"required", "waive"}));
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
    AV_RETURN_IF_ERROR(r.CheckKeys(*report, "[report]", {"formats", "title"}));
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

Result<ReportConfig> LoadReportConfig(const std::string& path) {
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return ParseReportConfig(*text, path);
}

}  // namespace av
