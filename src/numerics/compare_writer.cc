#include "numerics/compare_writer.h"

#include <cmath>
#include <cstdio>

#include "core/format.h"

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
      if (rule.row_rel_l2) s += ", row relative L2 error <= " + FormatG(*rule.row_rel_l2, 6);
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

CompareElement Element(const ElementDiff& e) {
  return {e.index, e.linear, e.candidate, e.reference, e.abs_err, e.rel_err};
}

std::vector<CompareElement> Elements(const std::vector<ElementDiff>& v) {
  std::vector<CompareElement> out;
  for (const ElementDiff& e : v) out.push_back(Element(e));
  return out;
}

CompareNonFiniteCounts Counts(const NonFiniteCounts& c) { return {c.nan, c.pos_inf, c.neg_inf}; }

CompareTensorInput Input(const std::string& spec, const std::string& sha256, DType dtype,
                         const Shape& shape) {
  return {spec, sha256, std::string(DTypeName(dtype)), shape};
}

}  // namespace

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
  if (r.row_errors.defined) {
    line("  rows       worst relative L2 error " + FormatG(r.row_errors.worst, 6) + " at row " +
         ShapeToString(r.row_errors.worst_row) + "; " + std::to_string(r.row_errors.over) +
         " of " + std::to_string(r.row_errors.rows) + " rows over the bound");
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
          s += ' ';
          s += where(share);
          s += " (";
          s += FormatG(100.0 * share.fraction, 6);
          s += "%)";
        }
      }
      line(s);
    }
  }
  for (const auto& f : r.failures) line("  FAIL: " + f);
  return out;
}

CompareRecord CompareReportToRecord(const CompareReport& r, const CompareInputs& in) {
  CompareRecord c;
  c.passed = r.passed;
  c.failures = r.failures;
  c.candidate = Input(in.candidate, in.candidate_sha256, r.candidate_dtype, r.shape);
  c.reference = Input(in.reference, in.reference_sha256, r.reference_dtype, r.shape);
  if (!in.lowprec.empty())
    c.lowprec_reference = Input(in.lowprec, in.lowprec_sha256, r.reference_dtype, r.shape);
  const Rule& rule = r.rule;
  c.rule = {std::string(RuleName(rule.kind)),
            rule.atol,
            rule.rtol,
            rule.cos_tol,
            rule.k,
            rule.allow_nan,
            rule.equal_nan,
            rule.defaults_source};
  c.rule.row_rel_l2 = rule.row_rel_l2;
  if (r.row_errors.defined) {
    c.row_errors = CompareRowErrors{r.row_errors.rows, r.row_errors.over, r.row_errors.worst,
                                    r.row_errors.worst_row};
  }
  c.numel = r.numel;
  const Metrics& m = r.metrics;
  c.metrics = {m.compared, m.max_abs, m.max_rel, m.mean_abs, m.rmse, m.cos_diff, m.nmse};
  c.rule_cos_diff = r.rule_cos_diff;
  c.mismatches = {r.mismatch_defined, r.mismatches, r.mismatch_fraction, r.nonfinite_mismatches};
  c.lowprec = {r.lowprec_max_abs, r.threshold};
  c.nonfinite.candidate = Counts(r.nonfinite.candidate);
  c.nonfinite.reference = Counts(r.nonfinite.reference);
  c.nonfinite.position_mismatches = r.nonfinite.position_mismatches;
  c.nonfinite.first_mismatches = Elements(r.nonfinite.first_mismatches);
  c.nonfinite.excluded = r.nonfinite.excluded;
  c.worst_abs = Elements(r.worst_abs);
  c.worst_rel = Elements(r.worst_rel);
  c.breakdown_of = r.breakdown_of;
  for (const AxisBreakdown& axis : r.breakdown) {
    CompareAxis a;
    a.axis = axis.axis;
    a.size = axis.size;
    a.bucket = axis.bucket;
    a.indices_touched = axis.indices_touched;
    for (const AxisShare& s : axis.top) a.top.push_back({s.begin, s.end, s.amount, s.fraction});
    c.breakdown.push_back(std::move(a));
  }
  return c;
}

}  // namespace av
