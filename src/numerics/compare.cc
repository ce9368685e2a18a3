#include "numerics/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/format.h"
#include "numerics/comparer.h"

namespace av {
namespace {

using internal::Comparer;
using internal::LowprecScan;
using internal::ScanLowprec;
using internal::Sums;

// FlashMLA returns cos_diff = 0 when sum(ref^2) < 1e-12.
constexpr double kFlashMlaTinyRef = 1e-12;

std::string IndexString(const std::vector<int64_t>& index) { return ShapeToString(index); }

// Shapes must match exactly, and only lowprec_multiple takes a low-precision reference.
Status CheckInputs(const Tensor& candidate, const Tensor& reference, const Tensor* lowprec,
                   const RuleRequest& request) {
  if (candidate.shape() != reference.shape()) {
    return InvalidInput("shape mismatch: candidate " + ShapeToString(candidate.shape()) +
                        " vs reference " + ShapeToString(reference.shape()));
  }
  if (lowprec != nullptr && lowprec->shape() != reference.shape()) {
    return InvalidInput("shape mismatch: low-precision reference " +
                        ShapeToString(lowprec->shape()) + " vs reference " +
                        ShapeToString(reference.shape()));
  }
  if (lowprec != nullptr && request.kind != RuleKind::kLowprecMultiple) {
    return InvalidInput("a low-precision reference is only used by rule lowprec_multiple");
  }
  return Status::Ok();
}

// The report's header: the rule, the shape and dtypes, and what the breakdown counts.
CompareReport StartReport(const Rule& rule, const Tensor& candidate, const Tensor& reference) {
  CompareReport report;
  report.rule = rule;
  report.shape = reference.shape();
  report.candidate_dtype = candidate.dtype();
  report.reference_dtype = reference.dtype();
  report.numel = reference.numel();
  report.mismatch_defined = rule.kind != RuleKind::kCosDiff;
  report.breakdown_of = report.mismatch_defined ? "mismatches" : "squared error";
  return report;
}

// lowprec_multiple: the bound k * max |lowprec - ref| + atol, taken before the main pass.
void ScanLowprecBound(const Tensor& lowprec, const Tensor& reference, CompareReport& report) {
  const Rule& rule = report.rule;
  LowprecScan scan = ScanLowprec(lowprec, reference);
  report.lowprec_max_abs = scan.max_abs;
  report.threshold = rule.k * scan.max_abs + rule.atol;
  if (scan.nonfinite_mismatches > 0 && !rule.allow_nan) {
    report.failures.push_back("the low-precision reference disagrees with the reference on " +
                              std::to_string(scan.nonfinite_mismatches) +
                              " non-finite positions");
  }
}

// The float64 whole-tensor metrics from the pass's sums.
void FillMetrics(const Sums& sums, Metrics& m) {
  if (m.compared > 0) {
    m.mean_abs = sums.abs.value() / static_cast<double>(m.compared);
    m.rmse = std::sqrt(sums.sq.value() / static_cast<double>(m.compared));
  }
  const double denom = sums.aa.value() + sums.rr.value();
  m.cos_diff = denom > 0 ? sums.sq.value() / denom : 0.0;
  m.nmse = sums.rr.value() > 0   ? sums.sq.value() / sums.rr.value()
           : sums.sq.value() > 0 ? std::numeric_limits<double>::infinity()
                                 : 0.0;
}

// NaN/inf positions that differ fail every rule (unless --allow-nan left them out).
void JudgeNonFinite(CompareReport& report) {
  const NonFiniteReport& nf = report.nonfinite;
  if (nf.position_mismatches == 0) return;
  const ElementDiff& e = nf.first_mismatches.front();
  report.failures.push_back("NaN/inf positions differ at " +
                            std::to_string(nf.position_mismatches) + " elements (first at " +
                            IndexString(e.index) + ": candidate " + FormatG(e.candidate, 6) +
                            ", reference " + FormatG(e.reference, 6) +
                            "); --allow-nan leaves such positions out");
}

void JudgeFlashMla(const Sums& sums, CompareReport& report) {
  const Rule& rule = report.rule;
  const double f_denom = sums.f_aa.value() + sums.f_rr.value();
  report.rule_cos_diff = (sums.f_rr.value() < kFlashMlaTinyRef || f_denom == 0)
                             ? 0.0
                             : sums.f_sq.value() / f_denom;
  if (report.mismatches - report.nonfinite_mismatches > 0) {
    report.failures.push_back(std::to_string(report.mismatches - report.nonfinite_mismatches) +
                              " of " + std::to_string(report.numel) +
                              " elements fail abs < atol or rel < rtol (atol " +
                              FormatG(rule.atol, 6) + ", rtol " + FormatG(rule.rtol, 6) + ")");
  }
  if (std::fabs(report.rule_cos_diff) > rule.cos_tol) {
    report.failures.push_back("cos_diff " + FormatG(report.rule_cos_diff, 6) + " > " +
                              FormatG(rule.cos_tol, 6));
  }
}

void JudgeCosDiff(const Sums& sums, CompareReport& report) {
  const Rule& rule = report.rule;
  const Metrics& m = report.metrics;
  std::vector<std::string>& fail = report.failures;
  report.rule_cos_diff = m.cos_diff;
  if (sums.aa.value() + sums.rr.value() == 0) {
    fail.push_back(
        "both tensors are all zero: cos_diff is 0/0 (DeepGEMM's calc_diff returns NaN and "
        "its assertion fails); such a reference checks nothing");
  } else if (!(m.cos_diff < rule.cos_tol)) {
    fail.push_back("cos_diff " + FormatG(m.cos_diff, 6) + " >= " + FormatG(rule.cos_tol, 6));
  }
  if (rule.row_rel_l2 && report.row_errors.over > 0) {
    const CompareReport::RowErrors& rows = report.row_errors;
    fail.push_back(std::to_string(rows.over) + " of " + std::to_string(rows.rows) +
                   " rows have a relative L2 error |cand_i - ref_i| / |ref_i| above " +
                   FormatG(*rule.row_rel_l2, 6) + " (worst " + FormatG(rows.worst, 6) +
                   " at row " + IndexString(rows.worst_row) +
                   "); an output off by a uniform factor s shows |s - 1| in every row");
  }
}

// The verdict: every failed condition of the rule gets its own line.
void JudgeRule(const Sums& sums, CompareReport& report) {
  const Rule& rule = report.rule;
  std::vector<std::string>& fail = report.failures;
  const std::string over = std::to_string(report.mismatches) + " of " +
                           std::to_string(report.numel) + " elements (" +
                           FormatG(100.0 * report.mismatch_fraction, 6) + "%)";
  switch (rule.kind) {
    case RuleKind::kAllclose:
      if (report.mismatches > 0) {
        fail.push_back(over + " exceed atol + rtol*|ref| (atol " + FormatG(rule.atol, 6) +
                       ", rtol " + FormatG(rule.rtol, 6) + ")");
      }
      break;
    case RuleKind::kFlashMla:
      JudgeFlashMla(sums, report);
      break;
    case RuleKind::kCosDiff:
      JudgeCosDiff(sums, report);
      break;
    case RuleKind::kLowprecMultiple:
      if (report.metrics.max_abs > report.threshold) {
        fail.push_back("max |cand - ref| " + FormatG(report.metrics.max_abs, 6) +
                       " > k * max |lowprec - ref| + atol = " + FormatG(rule.k, 6) + " * " +
                       FormatG(report.lowprec_max_abs, 6) + " + " + FormatG(rule.atol, 6) + " = " +
                       FormatG(report.threshold, 6) + "; " + over + " are over that bound");
      }
      break;
    case RuleKind::kExact:
      if (report.mismatches > 0) fail.push_back(over + " differ bitwise");
      break;
  }
}

}  // namespace

Result<CompareReport> CompareTensors(const Tensor& candidate, const Tensor& reference,
                                     const Tensor* lowprec, const RuleRequest& request) {
  AV_RETURN_IF_ERROR(CheckInputs(candidate, reference, lowprec, request));
  AV_ASSIGN_OR_RETURN(
      Rule rule, ResolveRule(request, candidate.dtype(), reference.dtype(), lowprec != nullptr));
  CompareReport report = StartReport(rule, candidate, reference);
  if (rule.kind == RuleKind::kLowprecMultiple) ScanLowprecBound(*lowprec, reference, report);

  Comparer comparer(candidate, reference, &report);
  comparer.Run();
  FillMetrics(comparer.sums(), report.metrics);
  comparer.Finish();
  if (report.numel > 0) {
    report.mismatch_fraction =
        static_cast<double>(report.mismatches) / static_cast<double>(report.numel);
  }

  JudgeNonFinite(report);
  JudgeRule(comparer.sums(), report);
  report.passed = report.failures.empty();
  return report;
}

}  // namespace av
