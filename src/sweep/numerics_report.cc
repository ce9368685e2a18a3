#include "sweep/numerics_report.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "core/markup.h"
#include "core/version.h"
#include "numerics/compare_writer.h"
#include "sweep/rng.h"

namespace av {
namespace {

using nlohmann::json;

// JSON has no inf/NaN: they are written as strings.
json Finite(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json OutputJson(const OutputVerdict& v) {
  CompareInputs names;
  names.candidate = "candidate:" + v.name;
  names.reference = "reference:" + v.name;
  json j = CompareReportToJson(v.report, names);
  return json{
      {"name", v.name}, {"tolerance", v.rule_path}, {"passed", v.report.passed}, {"compare", j}};
}

}  // namespace

json NumericsRunToJson(const NumericsRun& run, const NumericsConfig& config,
                       const std::string& command) {
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
        {"index", c.spec.index},
        {"variant", c.spec.variant},
        {"group", c.spec.group_id()},
        {"knobs", c.spec.knobs},
        {"verdict", c.verdict},
        {"reason", c.reason},
        {"outputs", outputs},
        {"reference_impl", c.reference_impl},
        {"sha256", {{"inputs", c.inputs_sha256}, {"outputs", c.outputs_sha256}}},
        {"candidate",
         {{"status", c.candidate_status},
          {"metadata", json(c.candidate_metadata)},
          {"stderr_tail", c.stderr_tail}}},
        {"durations_ms",
         {{"generate", c.generate_ms},
          {"candidate", c.candidate_ms},
          {"reference", c.reference_ms},
          {"compare", c.compare_ms},
          {"check", c.check_ms},
          {"total", c.total_ms}}},
        {"case_dir", c.case_dir},
        {"compare_from", c.compare_from.empty() ? json(nullptr) : json(c.compare_from)},
    });
    if (!c.hints.empty() || !c.worst.empty() || !c.heatmaps.empty()) {
      json worst = json::array();
      for (const LocatedElement& e : c.worst) {
        json coords = json::object();
        for (const auto& [k, v] : e.coords) coords[k] = v;
        worst.push_back(json{{"output", e.output},
                             {"coords", coords},
                             {"candidate", Finite(e.candidate)},
                             {"reference", Finite(e.reference)},
                             {"abs_err", Finite(e.abs_err)},
                             {"error_over_tolerance", Finite(e.ratio)}});
      }
      cases.back()["localisation"] =
          json{{"hints", c.hints}, {"worst", worst}, {"heatmaps", c.heatmaps}};
    }
  }
  json invariance = json::array();
  std::map<std::string, std::map<std::string, int64_t>> counts;
  for (const InvarianceCheckResult& r : run.invariance) {
    invariance.push_back(json{{"check", r.check},
                              {"group", r.group},
                              {"cases", r.cases},
                              {"verdict", r.verdict},
                              {"max_abs_diff", r.max_abs_diff},
                              {"tolerance", r.tolerance},
                              {"detail", r.detail}});
    ++counts[r.check][r.verdict];
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
        {"candidate_command", run.candidate_command},
        {"input_generator", kNormalGenerator}}},
      {"shard", {{"index", run.shard_index}, {"count", run.shard_count}}},
      {"filter", run.filter},
      {"summary",
       {{"cases_total", run.total_cases},
        {"cases_run", run.cases.size()},
        {"passed", run.passed()},
        {"failed", run.failed()},
        {"wall_ms", run.wall_ms},
        {"time_ms", NumericsTimeSummary(cases)},
        {"invariance", json(counts)}}},
      {"verdict", run.failed() == 0 ? "pass" : "fail"},
      {"prepare", run.prepare_command.empty() ? json(nullptr)
                                              : json{{"command", run.prepare_command},
                                                     {"status", run.prepare_status},
                                                     {"wall_ms", run.prepare_ms}}},
      // How the candidate was contained (candidate-protocol.md "Containment").
      {"containment",
       {{"sandbox", run.sandbox},
        {"package_changes", run.package_changes},
        {"leftover_processes", run.leftover_processes},
        {"warnings", run.warnings}}},
      {"cases", cases},
      {"invariance", invariance},
  };
}

json NumericsTimeSummary(const json& cases) {
  static const char* const kParts[] = {"generate", "candidate", "reference", "compare", "check"};
  std::map<std::string, double> sum;
  double total = 0;
  for (const json& c : cases) {
    const json d = c.value("durations_ms", json::object());
    for (const char* k : kParts) sum[k] += d.value(k, 0.0);
    total += d.value("total", 0.0);
  }
  double named = 0;
  json out = json::object();
  for (const char* k : kParts) {
    out[k] = sum[k];
    named += sum[k];
  }
  const double other = std::max(0.0, total - named);
  out["other"] = other;
  out["total"] = total;
  const double own = sum["generate"] + sum["compare"] + sum["check"] + other;
  out["overhead_fraction"] = total > 0 ? own / total : 0.0;
  return out;
}

std::string NumericsRunToJUnit(const NumericsRun& run) {
  return NumericsJsonToJUnit(NumericsRunToJson(run, NumericsConfig{}, ""));
}

std::string NumericsJsonToJUnit(const json& doc) {
  std::map<std::string, std::vector<const json*>> by_sweep;
  int64_t failed_total = 0;
  const json empty = json::array();
  const json& all = doc.contains("cases") ? doc["cases"] : empty;
  for (const json& c : all) {
    by_sweep[c.value("sweep", "")].push_back(&c);
    failed_total += c.value("verdict", "") != "pass";
  }
  double wall = doc.contains("summary") ? doc["summary"].value("wall_ms", 0.0) : 0.0;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "<testsuites name=\"attnverify numerics\" tests=\"%zu\" failures=\"%lld\" time=\"%.3f\">\n",
      all.size(), static_cast<long long>(failed_total), wall / 1000);
  out += buf;
  for (const auto& [sweep, cases] : by_sweep) {
    int64_t failures = 0;
    double time = 0;
    for (const json* c : cases) {
      failures += c->value("verdict", "") != "pass";
      time += (*c)["durations_ms"].value("total", 0.0) / 1000;
    }
    std::snprintf(buf, sizeof buf,
                  "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%lld\" time=\"%.3f\">\n",
                  EscapeMarkup(sweep).c_str(), cases.size(), static_cast<long long>(failures),
                  time);
    out += buf;
    for (const json* c : cases) {
      std::snprintf(buf, sizeof buf, "%.3f", (*c)["durations_ms"].value("total", 0.0) / 1000);
      out += "    <testcase classname=\"numerics." + EscapeMarkup(sweep) + "\" name=\"" +
             EscapeMarkup(c->value("id", "")) + "\" time=\"" + buf + "\"";
      std::string verdict = c->value("verdict", "");
      if (verdict == "pass") {
        out += "/>\n";
        continue;
      }
      std::string reason = c->value("reason", "");
      std::string tail = (*c)["candidate"].value("stderr_tail", "");
      std::string hints;
      if (c->contains("localisation")) {
        for (const json& h : (*c)["localisation"]["hints"])
          hints += "\nhint: " + h.get<std::string>();
      }
      out += ">\n      <failure message=\"" + EscapeMarkup(reason) + "\" type=\"" +
             EscapeMarkup(verdict) + "\">" +
             EscapeMarkup(reason + hints +
                          (tail.empty() ? "" : "\n--- candidate stderr (tail) ---\n" + tail) +
                          "\ncase: " + c->value("case_dir", "")) +
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
  std::snprintf(buf, sizeof buf, "%-28s %7s %7s %7s %10s\n", "sweep", "cases", "pass", "fail",
                "time_s");
  out += buf;
  for (const auto& [name, r] : rows) {
    std::snprintf(buf, sizeof buf, "%-28s %7lld %7lld %7lld %10.2f\n", name.c_str(),
                  static_cast<long long>(r.cases), static_cast<long long>(r.passed),
                  static_cast<long long>(r.cases - r.passed), r.ms / 1000);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%-28s %7zu %7lld %7lld %10.2f (wall)\n", "total",
                run.cases.size(), static_cast<long long>(run.passed()),
                static_cast<long long>(run.failed()), run.wall_ms / 1000);
  out += buf;
  double t[6] = {};  // generate, candidate, reference, compare, check, total
  for (const CaseResult& c : run.cases) {
    const double parts[6] = {c.generate_ms, c.candidate_ms, c.reference_ms,
                             c.compare_ms,  c.check_ms,     c.total_ms};
    for (int k = 0; k < 6; ++k) t[k] += parts[k];
  }
  if (t[5] > 0) {
    const double own = t[5] - t[1] - t[2];
    std::snprintf(buf, sizeof buf,
                  "time: candidate %.2f s, reference %.2f s, attnverify %.2f s = %.1f%% (inputs "
                  "%.2f, checks %.2f, "
                  "compare %.2f, other %.2f)\n",
                  t[1] / 1000, t[2] / 1000, own / 1000, 100 * own / t[5], t[0] / 1000, t[4] / 1000,
                  t[3] / 1000, std::max(0.0, own - t[0] - t[3] - t[4]) / 1000);
    out += buf;
  }
  std::map<std::string, std::map<std::string, int>> inv;
  for (const InvarianceCheckResult& r : run.invariance) ++inv[r.check][r.verdict];
  for (const auto& [check, verdicts] : inv) {
    std::snprintf(buf, sizeof buf, "invariance %-22s pass %d  fail %d  flagged %d\n", check.c_str(),
                  verdicts.count("pass") ? verdicts.at("pass") : 0,
                  verdicts.count("fail") ? verdicts.at("fail") : 0,
                  verdicts.count("flagged") ? verdicts.at("flagged") : 0);
    out += buf;
  }
  for (const InvarianceCheckResult& r : run.invariance) {
    if (r.verdict != "pass")
      out += (r.verdict == "fail" ? "FAIL " : "FLAG ") + r.check + " " + r.group + ": " + r.detail +
             "\n";
  }
  size_t shown = 0;
  for (const CaseResult& c : run.cases) {
    if (c.verdict == "pass") continue;
    if (shown++ == max_failures) {
      out += "  ... " + std::to_string(run.failed() - static_cast<int64_t>(max_failures)) +
             " more failing cases in the evidence\n";
      break;
    }
    out += "FAIL " + c.spec.id + ": " + c.reason + "\n";
    for (const OutputVerdict& v : c.outputs) {
      if (v.report.passed || v.report.worst_abs.empty()) continue;
      const ElementDiff& w = v.report.worst_abs.front();
      std::string idx;
      for (int64_t x : w.index) idx += (idx.empty() ? "" : ", ") + std::to_string(x);
      std::snprintf(buf, sizeof buf,
                    "     %s worst |err| %.4g at [%s]: candidate %.6g, reference %.6g\n",
                    v.name.c_str(), w.abs_err, idx.c_str(), w.candidate, w.reference);
      out += buf;
    }
    for (const std::string& h : c.hints) out += "     hint: " + h + "\n";
    if (!c.stderr_tail.empty()) {
      std::string tail = c.stderr_tail.size() > 400
                             ? "..." + c.stderr_tail.substr(c.stderr_tail.size() - 400)
                             : c.stderr_tail;
      out += "     stderr: " + tail + (tail.back() == '\n' ? "" : "\n");
    }
  }
  return out;
}

}  // namespace av
