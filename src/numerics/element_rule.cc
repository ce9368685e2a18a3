#include "numerics/element_rule.h"

#include <algorithm>
#include <limits>

#include "numerics/compare.h"

namespace av {

ElementTolerance ElementToleranceFor(const CompareReport& report) {
  ElementTolerance t;
  t.kind = report.rule.kind;
  t.atol = report.rule.atol;
  t.rtol = report.rule.rtol;
  t.threshold = report.threshold;
  t.cos_tol = report.rule.cos_tol;
  t.allow_nan = report.rule.allow_nan;
  t.equal_nan = report.rule.equal_nan;
  return t;
}

double ElementRule::Ratio(double a, double r, bool mismatch) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (!std::isfinite(a) || !std::isfinite(r)) return mismatch ? kInf : 0;
  const double e = std::fabs(a - r);
  double allowed = 0;
  switch (t_.kind) {
    case RuleKind::kAllclose:
      allowed = t_.atol + std::fabs(t_.rtol * r);
      break;
    case RuleKind::kFlashMla:
      allowed = std::max(t_.atol, t_.rtol * (std::fabs(r) + kRelEps));
      break;
    case RuleKind::kLowprecMultiple:
      allowed = t_.threshold;
      break;
    case RuleKind::kExact:
    case RuleKind::kCosDiff:
      break;
  }
  const double q = e == 0 ? 0 : allowed > 0 ? e / allowed : kInf;
  // The quotient rounds, and flashmla tests in float32: the verdict decides the side of 1.
  return mismatch ? std::max(q, std::nextafter(1.0, 2.0)) : std::min(q, 1.0);
}

}  // namespace av
