#include "numerics/compare_writer.h"

#include <cmath>
#include <cstdio>

#include "core/format.h"
#include "core/version.h"

namespace av {
namespace {

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string RuleLine(const Rule& rule) {
  std::string s(RuleName(rule.kind));
  switch (rule.kind) {
    case RuleKind::kAllclose:
      s += ": atol " + FormatG(rule.atol, 6) + ", rtol " + FormatG(rule.rtol, 6);
      break;
    case RuleKind::kFlashMla:
      s += ": atol " + FormatG(rule.atol, 6) + ", rtol " + FormatG(rule.rtol, 6) + ", cos " +
           FormatG(rule.cos_tol, 6);
      break;
    case RuleKind::kCosDiff:
      s += ": cos_diff < " + FormatG(rule.cos_tol, 6);
      break;
    case RuleKind::kLowprecMultiple:
      s += ": k " + FormatG(rule.k, 6) + ", atol " + FormatG(rule.atol, 6);
      break;
    case RuleKind::kExact:
      s += ": bitwise";
      break;
  }
  if (rule.allow_nan) s += ", NaN/inf positions left out";
  if (rule.equal_nan) s += ", equal_nan";
  if (!rule.defaults_source.empty()) s += " [" + rule.defaults_source + "]";
  return s;
}

std::string DiffLine(const ElementDiff& e) {
  return "  " + Pad(ShapeToString(e.index), 22) + " cand " + Pad(FormatG(e.candidate, 6), 13) +
         " ref " + Pad(FormatG(e.reference, 6), 13) + " abs " + Pad(FormatG(e.abs_err, 6), 12) +
         " rel " + FormatG(e.rel_err, 6);
}

nlohmann::json DiffJson(const ElementDiff& e) {
  return {{"index", e.index},
          {"linear", e.linear},
          {"candidate", JsonNumber(e.candidate)},
          {"reference", JsonNumber(e.reference)},
          {"abs", JsonNumber(e.abs_err)},
          {"rel", JsonNumber(e.rel_err)}};
}

nlohmann::json CountsJson(const NonFiniteCounts& c) {
  return {{"nan", c.nan}, {"pos_inf", c.pos_inf}, {"neg_inf", c.neg_inf}};
}

nlohmann::json InputJson(const std::string& spec, const std::string& sha256, DType dtype,
                         const Shape& shape) {
  return {{"spec", spec},
          {"file_sha256", sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(sha256)},
          {"dtype", std::string(DTypeName(dtype))},
          {"shape", shape}};
}

}  // namespace

nlohmann::json JsonNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

std::string FormatCompareText(const CompareReport& r, const CompareInputs& in) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line(std::string(r.passed ? "PASS" : "FAIL") + "  rule " + RuleLine(r.rule));
  line("  candidate  " + in.candidate + "  " + std::string(DTypeName(r.candidate_dtype)) + " " +
       ShapeToString(r.shape));
  line("  reference  " + in.reference + "  " + std::string(DTypeName(r.reference_dtype)) + " " +
       ShapeToString(r.shape));
  if (!in.lowprec.empty()) {
    line("  lowprec    " + in.lowprec + "  max |lowprec - ref| " + FormatG(r.lowprec_max_abs, 6) +
         ", bound " + FormatG(r.threshold, 6));
  }
  const Metrics& m = r.metrics;
  line("  metrics    max_abs " + FormatG(m.max_abs, 6) + "  max_rel " + FormatG(m.max_rel, 6) +
       "  mean_abs " + FormatG(m.mean_abs, 6) + "  rmse " + FormatG(m.rmse, 6) + "  cos_diff " +
       FormatG(m.cos_diff, 6) + "  nmse " + FormatG(m.nmse, 6) + "  (" +
       std::to_string(m.compared) + " finite pairs)");
  if (r.rule.kind == RuleKind::kFlashMla) {
    line("  cos_diff   " + FormatG(r.rule_cos_diff, 6) + " over float32-cast values (FlashMLA)");
  }
  if (r.mismatch_defined) {
    std::string s = "  mismatch   " + std::to_string(r.mismatches) + " of " +
                    std::to_string(r.numel) + " (" + FormatG(100.0 * r.mismatch_fraction, 6) + "%)";
    if (r.mismatches > 0) {
      s += r.nonfinite_mismatches == r.mismatches
               ? ", all at NaN/inf positions"
               : ", " + std::to_string(r.nonfinite_mismatches) + " at NaN/inf positions";
    }
    line(s);
  }
  const NonFiniteReport& nf = r.nonfinite;
  if (nf.candidate.total() + nf.reference.total() > 0) {
    line("  non-finite candidate " + std::to_string(nf.candidate.nan) + " nan, " +
         std::to_string(nf.candidate.pos_inf) + " +inf, " + std::to_string(nf.candidate.neg_inf) +
         " -inf; reference " + std::to_string(nf.reference.nan) + " nan, " +
         std::to_string(nf.reference.pos_inf) + " +inf, " + std::to_string(nf.reference.neg_inf) +
         " -inf; " + std::to_string(nf.position_mismatches) + " positions differ" +
         (r.rule.allow_nan ? "; " + std::to_string(nf.excluded) + " left out" : ""));
  }
  if (!r.passed && !r.worst_abs.empty() && r.metrics.max_abs > 0) {
    line("  worst by abs:");
    for (const auto& e : r.worst_abs) line("  " + DiffLine(e));
    line("  worst by rel:");
    for (const auto& e : r.worst_rel) line("  " + DiffLine(e));
  }
  if (!r.passed && !r.breakdown.empty()) {
    line("  where the " + r.breakdown_of + " are (top indices per axis):");
    for (const auto& axis : r.breakdown) {
      auto where = [](const AxisShare& share) {
        return share.end - share.begin == 1
                   ? std::to_string(share.begin)
                   : std::to_string(share.begin) + ".." + std::to_string(share.end - 1);
      };
      std::string s =
          "    axis " + std::to_string(axis.axis) + " (size " + std::to_string(axis.size) + "): ";
      if (axis.indices_touched == 1) {
        s += "all in " + std::string(axis.bucket > 1 ? "range " : "index ") + where(axis.top[0]);
      } else {
        s += std::to_string(axis.indices_touched) +
             (axis.bucket > 1 ? " ranges of " + std::to_string(axis.bucket) : " indices") +
             " touched, most in";
        for (const auto& share : axis.top) {
          s += " " + where(share) + " (" + FormatG(100.0 * share.fraction, 6) + "%)";
        }
      }
      line(s);
    }
  }
  for (const auto& f : r.failures) line("  FAIL: " + f);
  return out;
}

nlohmann::json CompareReportToJson(const CompareReport& r, const CompareInputs& in) {
  nlohmann::json j;
  j["schema"] = kCompareJsonSchema;
  j["tool"] = {{"name", "attnverify"}, {"version", ATTNVERIFY_VERSION}};
  j["verdict"] = r.passed ? "pass" : "fail";
  j["failures"] = r.failures;
  j["command"] = in.command;
  j["inputs"] = {
      {"candidate", InputJson(in.candidate, in.candidate_sha256, r.candidate_dtype, r.shape)},
      {"reference", InputJson(in.reference, in.reference_sha256, r.reference_dtype, r.shape)}};
  j["inputs"]["lowprec_reference"] =
      in.lowprec.empty() ? nlohmann::json(nullptr)
                         : InputJson(in.lowprec, in.lowprec_sha256, r.reference_dtype, r.shape);
  const Rule& rule = r.rule;
  j["rule"] = {{"name", std::string(RuleName(rule.kind))},
               {"atol", rule.atol},
               {"rtol", rule.rtol},
               {"cos_tol", rule.cos_tol},
               {"k", rule.k},
               {"allow_nan", rule.allow_nan},
               {"equal_nan", rule.equal_nan},
               {"defaults_source", rule.defaults_source}};
  j["numel"] = r.numel;
  const Metrics& m = r.metrics;
  j["metrics"] = {{"compared", m.compared},           {"max_abs", JsonNumber(m.max_abs)},
                  {"max_rel", JsonNumber(m.max_rel)}, {"mean_abs", JsonNumber(m.mean_abs)},
                  {"rmse", JsonNumber(m.rmse)},       {"cos_diff", JsonNumber(m.cos_diff)},
                  {"nmse", JsonNumber(m.nmse)}};
  j["rule_cos_diff"] = JsonNumber(r.rule_cos_diff);
  j["mismatches"] = {{"defined", r.mismatch_defined},
                     {"count", r.mismatches},
                     {"fraction", r.mismatch_fraction},
                     {"nonfinite", r.nonfinite_mismatches}};
  j["lowprec"] = {{"max_abs", JsonNumber(r.lowprec_max_abs)},
                  {"threshold", JsonNumber(r.threshold)}};
  nlohmann::json first = nlohmann::json::array();
  for (const auto& e : r.nonfinite.first_mismatches) first.push_back(DiffJson(e));
  j["nonfinite"] = {{"candidate", CountsJson(r.nonfinite.candidate)},
                    {"reference", CountsJson(r.nonfinite.reference)},
                    {"position_mismatches", r.nonfinite.position_mismatches},
                    {"first_mismatches", first},
                    {"excluded", r.nonfinite.excluded}};
  j["worst_abs"] = nlohmann::json::array();
  for (const auto& e : r.worst_abs) j["worst_abs"].push_back(DiffJson(e));
  j["worst_rel"] = nlohmann::json::array();
  for (const auto& e : r.worst_rel) j["worst_rel"].push_back(DiffJson(e));
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& axis : r.breakdown) {
    nlohmann::json top = nlohmann::json::array();
    for (const auto& s : axis.top) {
      top.push_back(
          {{"begin", s.begin}, {"end", s.end}, {"amount", s.amount}, {"fraction", s.fraction}});
    }
    axes.push_back({{"axis", axis.axis},
                    {"size", axis.size},
                    {"bucket", axis.bucket},
                    {"indices_touched", axis.indices_touched},
                    {"top", top}});
  }
  j["breakdown"] = {{"of", r.breakdown_of}, {"axes", axes}};
  return j;
}

}  // namespace av
