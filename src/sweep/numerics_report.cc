#include "sweep/numerics_report.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_dump.h"
#include "core/markup.h"
#include "core/sha256.h"
#include "numerics/compare_writer.h"
#include "reference/ref_ops.h"
#include "sweep/rng.h"

namespace av {
namespace {

NumericsOutput OutputRecord(const OutputVerdict& v) {
  NumericsOutput o;
  o.name = v.name;
  o.tolerance = v.rule_path;
  o.passed = v.report.passed;
  if (v.compared) {
    CompareInputs names;
    names.candidate = "candidate:" + v.name;
    names.reference = "reference:" + v.name;
    o.compare = CompareReportToRecord(v.report, names);
  }
  return o;
}

NumericsCase CaseRecord(const CaseResult& c, const std::string& package_dir) {
  NumericsCase r;
  r.id = c.spec.id;
  r.sweep = c.spec.sweep;
  r.op = c.spec.op;
  r.params = ParamMapToJson(c.spec.params);
  r.op_params = nlohmann::json(c.op_params);  // {} for a case never built
  r.knobs = ParamMapToJson(c.spec.knobs);
  r.dtype = std::string(DTypeName(c.spec.dtype));
  r.seed = c.spec.seed;
  r.index = c.spec.index;
  r.variant = c.spec.variant;
  r.group = c.spec.group_id();
  r.verdict = c.verdict.value_or(CaseVerdict::kError);  // unjudged: the sweep stopped first
  r.reason = c.reason;
  for (const OutputVerdict& v : c.outputs) r.outputs.push_back(OutputRecord(v));
  r.reference_impl = c.reference_impl;
  r.inputs_sha256 = c.inputs_sha256;
  r.outputs_sha256 = c.outputs_sha256;
  r.candidate = {c.candidate_status, c.candidate_metadata, c.stderr_tail};
  r.durations_ms = {c.generate_ms, c.candidate_ms, c.reference_ms,
                    c.compare_ms,  c.check_ms,     c.total_ms};
  r.case_dir = PackageRelative(package_dir, c.case_dir);
  r.compare_from = c.compare_from;
  r.drawn = c.spec.drawn;
  r.refereed_by = c.refereed_by;
  r.referee_reason = c.referee_reason;
  r.hints = c.hints;
  for (const LocatedElement& e : c.worst) {
    r.localised_worst.push_back({e.output, e.coords, e.candidate, e.reference, e.abs_err, e.ratio});
  }
  r.heatmaps = c.heatmaps;
  return r;
}

// What makes the shards of this sweep one run (schema/numerics_json.h RunIdentity).
RunIdentity RunIdentityOf(const NumericsRun& run, const NumericsConfig& config,
                          const NumericsRecord& r) {
  RunIdentity id;
  id["sweep_id"] = run.sweep_id;
  if (!config.path.empty()) {
    Result<std::string> toml = Sha256File(config.path);
    id["config_sha256"] = toml.ok() ? *toml : "unreadable";
  }
  id["shapes_sha256"] = run.shapes_sha256;
  id["tolerances_sha256"] = run.tolerances_sha256;
  id["cases_sha256"] = run.cases_sha256;
  id["shard_count"] = std::to_string(run.shard_count);
  id["shard_plan_sha256"] = run.shard_plan_sha256;
  id["filter"] = run.filter;
  // The argv itself is config.candidate_argv (an array); the identity compares its digest,
  // over the words' bytes each ended by NUL (a word may be a path that is not UTF-8).
  std::string argv_bytes;
  for (const std::string& word : config.candidate.command) argv_bytes.append(word).push_back('\0');
  id["candidate_argv_sha256"] = Sha256Hex(argv_bytes);
  id["input_generator"] = r.config.input_generator;
  id["salt"] = run.salt;
  id["tool_version"] = r.provenance.tool_version;
  return id;
}

}  // namespace

NumericsRecord NumericsRunToRecord(const NumericsRun& run, const NumericsConfig& config,
                                   Provenance provenance) {
  const std::string& pkg = config.base_dir;
  NumericsRecord r;
  for (const CaseResult& c : run.cases) r.cases.push_back(CaseRecord(c, pkg));
  for (const InvarianceCheckResult& v : run.invariance) {
    r.invariance.push_back(
        {v.check, v.group, v.cases, v.verdict, v.max_abs_diff, v.tolerance, v.detail});
    ++r.summary.invariance[v.check][InvarianceVerdictName(v.verdict)];
  }
  NumericsConfigRecord& cfg = r.config;
  cfg.attnverify_toml = PackageRelative(pkg, config.path);
  cfg.shapes = PackageRelative(pkg, config.shapes);
  cfg.shapes_sha256 = run.shapes_sha256;
  cfg.tolerances = PackageRelative(pkg, config.tolerances);
  cfg.tolerances_sha256 = run.tolerances_sha256;
  cfg.candidate_argv = config.candidate.command;
  cfg.input_generator = kNormalGenerator;
  cfg.salt = run.salt;
  cfg.fast_kernels = DescribeFastKernels(config.reference);
  r.shard.index = run.shard_index;
  r.shard.count = run.shard_count;
  r.filter = run.filter;
  r.summary.cases_total = run.total_cases;
  r.summary.cases_run = static_cast<int64_t>(run.cases.size());
  for (const SkippedCase& k : run.skipped) r.skipped.push_back({k.id, k.op, k.reason});
  r.summary.passed = run.passed();
  r.summary.failed = run.failed();
  r.summary.wall_ms = run.wall_ms;
  r.summary.time_ms = SumCaseTimes(r.cases);
  r.verdict = run.failed() == 0 ? CaseVerdict::kPass : CaseVerdict::kFail;
  if (!config.candidate.prepare.empty()) {
    r.prepare = PrepareRecord{config.candidate.prepare, "", run.prepare_status, run.prepare_ms};
  }
  r.containment =
      ContainmentRecord{run.sandbox, run.package_changes, run.leftover_processes, run.warnings};
  provenance.config = cfg.attnverify_toml;
  // The digests of the bytes the sweep read (the run holds them); attnverify.toml's is
  // read now, as no stage keeps its bytes.
  if (!config.path.empty()) (void)AddInputFile(&provenance, pkg, config.path);
  if (!cfg.shapes.empty()) provenance.inputs.push_back({cfg.shapes, cfg.shapes_sha256});
  if (!cfg.tolerances.empty()) provenance.inputs.push_back({cfg.tolerances, cfg.tolerances_sha256});
  if (provenance.finished.empty()) provenance.finished = UtcNowRfc3339();
  r.provenance = std::move(provenance);
  r.has_provenance = true;
  r.run_identity = RunIdentityOf(run, config, r);
  return r;
}

std::string FilteredEvidencePath(const std::string& path) {
  const size_t slash = path.rfind('/');
  const size_t name = slash == std::string::npos ? 0 : slash + 1;
  const size_t dot = path.find('.', name + 1);
  if (dot == std::string::npos) return path + ".filtered";
  return path.substr(0, dot) + ".filtered" + path.substr(dot);
}

std::string NumericsRunToJUnit(const NumericsRun& run) {
  NumericsConfig none;
  return NumericsToJUnit(NumericsRunToRecord(run, none, Provenance{}));
}

std::string NumericsToJUnit(const NumericsRecord& doc) {
  std::map<std::string, std::vector<const NumericsCase*>> by_sweep;
  int64_t failed_total = 0;
  for (const NumericsCase& c : doc.cases) {
    by_sweep[c.sweep].push_back(&c);
    failed_total += !c.passed();
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "<testsuites name=\"attnverify numerics\" tests=\"%zu\" failures=\"%lld\" skipped=\"%zu\" "
      "time=\"%.3f\">\n",
      doc.cases.size() + doc.skipped.size(), static_cast<long long>(failed_total),
      doc.skipped.size(), doc.summary.wall_ms / 1000);
  out += buf;
  for (const auto& [sweep, cases] : by_sweep) {
    int64_t failures = 0;
    double time = 0;
    for (const NumericsCase* c : cases) {
      failures += !c->passed();
      time += c->durations_ms.total / 1000;
    }
    std::snprintf(buf, sizeof buf,
                  "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%lld\" time=\"%.3f\">\n",
                  EscapeMarkup(sweep).c_str(), cases.size(), static_cast<long long>(failures),
                  time);
    out += buf;
    for (const NumericsCase* c : cases) {
      std::snprintf(buf, sizeof buf, "%.3f", c->durations_ms.total / 1000);
      out += "    <testcase classname=\"numerics." + EscapeMarkup(sweep) + "\" name=\"" +
             EscapeMarkup(c->id) + "\" time=\"" + buf + "\"";
      if (c->passed()) {
        out += "/>\n";
        continue;
      }
      std::string hints;
      for (const std::string& h : c->hints) hints += "\nhint: " + h;
      const std::string& tail = c->candidate.stderr_tail;
      out += ">\n      <failure message=\"" + EscapeMarkup(c->reason) + "\" type=\"" +
             EscapeMarkup(CaseVerdictName(c->verdict)) + "\">" +
             EscapeMarkup(c->reason + hints +
                          (tail.empty() ? "" : "\n--- candidate stderr (tail) ---\n" + tail) +
                          "\ncase: " + c->case_dir) +
             "</failure>\n    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  // The cases the tests skipped (judge --skipped): skipped here too, never passed or failed.
  if (!doc.skipped.empty()) {
    std::snprintf(buf, sizeof buf,
                  "  <testsuite name=\"skipped\" tests=\"%zu\" failures=\"0\" skipped=\"%zu\">\n",
                  doc.skipped.size(), doc.skipped.size());
    out += buf;
    for (const SkippedCaseRecord& k : doc.skipped) {
      out += "    <testcase classname=\"numerics.skipped." + EscapeMarkup(k.op) + "\" name=\"" +
             EscapeMarkup(k.id) + "\">\n      <skipped message=\"" + EscapeMarkup(k.reason) +
             "\"/>\n    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return ValidUtf8(out);
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
    r.passed += c.verdict == CaseVerdict::kPass;
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
  if (!run.skipped.empty()) {
    // Skipped by the tests (judge --skipped): not judged, listed by op with one reason.
    std::map<std::string, int64_t> by_op;
    for (const SkippedCase& k : run.skipped) ++by_op[k.op];
    std::string ops;
    for (const auto& [op, n] : by_op) ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n);
    out += "skipped " + std::to_string(run.skipped.size()) + " (by the tests, not judged: " + ops +
           "; first " + run.skipped.front().id + ": " + run.skipped.front().reason + ")\n";
  }
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
  std::map<std::string, std::map<InvarianceVerdict, int>> inv;
  for (const InvarianceCheckResult& r : run.invariance) ++inv[r.check][r.verdict];
  for (const auto& [check, verdicts] : inv) {
    const auto n = [&verdicts = verdicts](InvarianceVerdict v) {
      auto it = verdicts.find(v);
      return it == verdicts.end() ? 0 : it->second;
    };
    std::snprintf(buf, sizeof buf, "invariance %-22s pass %d  fail %d  flagged %d\n", check.c_str(),
                  n(InvarianceVerdict::kPass), n(InvarianceVerdict::kFail),
                  n(InvarianceVerdict::kFlagged));
    out += buf;
  }
  for (const InvarianceCheckResult& r : run.invariance) {
    if (r.verdict != InvarianceVerdict::kPass)
      out += (r.verdict == InvarianceVerdict::kFail ? "FAIL " : "FLAG ") + r.check + " " + r.group +
             ": " + r.detail + "\n";
  }
  size_t shown = 0;
  for (const CaseResult& c : run.cases) {
    if (c.verdict == CaseVerdict::kPass) continue;
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
