#include "sweep/numerics_report.h"

#include <cstdio>
#include <map>

#include "core/version.h"
#include "numerics/compare_writer.h"

namespace av {
namespace {

using nlohmann::json;

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even when escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += '?';
        else out += c;
    }
  }
  return out;
}

json OutputJson(const OutputVerdict& v) {
  CompareInputs names;
  names.candidate = "candidate:" + v.name;
  names.reference = "reference:" + v.name;
  json j = CompareReportToJson(v.report, names);
  return json{{"name", v.name}, {"tolerance", v.rule_path}, {"passed", v.report.passed}, {"compare", j}};
}

}  // namespace

json NumericsRunToJson(const NumericsRun& run, const NumericsConfig& config, const std::string& command) {
  json cases = json::array();
  for (const CaseResult& c : run.cases) {
    json outputs = json::array();
    for (const OutputVerdict& v : c.outputs) outputs.push_back(OutputJson(v));
    cases.push_back(json{
        {"id", c.spec.id},
        {"sweep", c.spec.sweep},
        {"op", c.spec.op},
        {"params", json(c.spec.params)},
        {"op_params", c.op_params},
        {"dtype", std::string(DTypeName(c.spec.dtype))},
        {"seed", c.spec.seed},
        {"variant", "base"},
        {"verdict", c.verdict},
        {"reason", c.reason},
        {"outputs", outputs},
        {"reference_impl", c.reference_impl},
        {"sha256", {{"inputs", c.inputs_sha256}, {"outputs", c.outputs_sha256}}},
        {"candidate", {{"status", c.candidate_status}, {"metadata", json(c.candidate_metadata)}, {"stderr_tail", c.stderr_tail}}},
        {"durations_ms",
         {{"generate", c.generate_ms}, {"candidate", c.candidate_ms}, {"reference", c.reference_ms},
          {"compare", c.compare_ms}, {"total", c.total_ms}}},
        {"case_dir", c.case_dir},
    });
  }
  return json{
      {"schema", kNumericsJsonSchema},
      {"tool", {{"name", "attnverify"}, {"version", ATTNVERIFY_VERSION}}},
      {"command", command},
      {"config",
       {{"attnverify_toml", config.path},
        {"shapes", config.shapes},
        {"shapes_sha256", run.shapes_sha256},
        {"tolerances", config.tolerances},
        {"tolerances_sha256", run.tolerances_sha256},
        {"candidate_command", run.candidate_command}}},
      {"shard", {{"index", run.shard_index}, {"count", run.shard_count}}},
      {"filter", run.filter},
      {"summary",
       {{"cases_total", run.total_cases}, {"cases_run", run.cases.size()}, {"passed", run.passed()},
        {"failed", run.failed()}, {"wall_ms", run.wall_ms}}},
      {"verdict", run.failed() == 0 ? "pass" : "fail"},
      {"cases", cases},
  };
}

std::string NumericsRunToJUnit(const NumericsRun& run) {
  std::map<std::string, std::vector<const CaseResult*>> by_sweep;
  for (const CaseResult& c : run.cases) by_sweep[c.spec.sweep].push_back(&c);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "<testsuites name=\"attnverify numerics\" tests=\"%zu\" failures=\"%lld\" time=\"%.3f\">\n",
                run.cases.size(), static_cast<long long>(run.failed()), run.wall_ms / 1000);
  out += buf;
  for (const auto& [sweep, cases] : by_sweep) {
    int64_t failures = 0;
    double time = 0;
    for (const CaseResult* c : cases) {
      failures += c->verdict != "pass";
      time += c->total_ms / 1000;
    }
    std::snprintf(buf, sizeof buf, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%lld\" time=\"%.3f\">\n",
                  XmlEscape(sweep).c_str(), cases.size(), static_cast<long long>(failures), time);
    out += buf;
    for (const CaseResult* c : cases) {
      std::snprintf(buf, sizeof buf, "%.3f", c->total_ms / 1000);
      out += "    <testcase classname=\"numerics." + XmlEscape(sweep) + "\" name=\"" + XmlEscape(c->spec.id) +
             "\" time=\"" + buf + "\"";
      if (c->verdict == "pass") {
        out += "/>\n";
        continue;
      }
      out += ">\n      <failure message=\"" + XmlEscape(c->reason) + "\" type=\"" + XmlEscape(c->verdict) + "\">" +
             XmlEscape(c->reason + (c->stderr_tail.empty() ? "" : "\n--- candidate stderr (tail) ---\n" + c->stderr_tail) +
                       "\ncase: " + c->case_dir) +
             "</failure>\n    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

std::string FormatNumericsSummary(const NumericsRun& run, size_t max_failures) {
  struct Row {
    int64_t cases = 0, passed = 0;
    double ms = 0;
  };
  std::map<std::string, Row> rows;
  for (const CaseResult& c : run.cases) {
    Row& r = rows[c.spec.sweep];
    ++r.cases;
    r.passed += c.verdict == "pass";
    r.ms += c.total_ms;
  }
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-28s %7s %7s %7s %10s\n", "sweep", "cases", "pass", "fail", "time_s");
  out += buf;
  for (const auto& [name, r] : rows) {
    std::snprintf(buf, sizeof buf, "%-28s %7lld %7lld %7lld %10.2f\n", name.c_str(), static_cast<long long>(r.cases),
                  static_cast<long long>(r.passed), static_cast<long long>(r.cases - r.passed), r.ms / 1000);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%-28s %7zu %7lld %7lld %10.2f (wall)\n", "total", run.cases.size(),
                static_cast<long long>(run.passed()), static_cast<long long>(run.failed()), run.wall_ms / 1000);
  out += buf;
  size_t shown = 0;
  for (const CaseResult& c : run.cases) {
    if (c.verdict == "pass") continue;
    if (shown++ == max_failures) {
      out += "  ... " + std::to_string(run.failed() - static_cast<int64_t>(max_failures)) + " more failing cases in the evidence\n";
      break;
    }
    out += "FAIL " + c.spec.id + ": " + c.reason + "\n";
    for (const OutputVerdict& v : c.outputs) {
      if (v.report.passed || v.report.worst_abs.empty()) continue;
      const ElementDiff& w = v.report.worst_abs.front();
      std::string idx;
      for (int64_t x : w.index) idx += (idx.empty() ? "" : ", ") + std::to_string(x);
      std::snprintf(buf, sizeof buf, "     %s worst |err| %.4g at [%s]: candidate %.6g, reference %.6g\n", v.name.c_str(),
                    w.abs_err, idx.c_str(), w.candidate, w.reference);
      out += buf;
    }
    if (!c.stderr_tail.empty()) {
      std::string tail = c.stderr_tail.size() > 400 ? "..." + c.stderr_tail.substr(c.stderr_tail.size() - 400) : c.stderr_tail;
      out += "     stderr: " + tail + (tail.back() == '\n' ? "" : "\n");
    }
  }
  return out;
}

}  // namespace av
