// The per-element test of a comparison rule: whether one (candidate, reference) pair is
// out of tolerance. The comparer's streaming pass and the localiser both decide with it,
// so the mismatches a compare report counts are exactly the errors a localisation places.
// The finite-pair tests are inline so the comparer's branch-free loops vectorise them.
// Plain data; any thread.
#pragma once

#include <cmath>
#include <cstdint>

#include "numerics/rules.h"

namespace av {

struct CompareReport;

// FlashMLA's relative error denominator: |ref| + 1e-6.
inline constexpr double kRelEps = 1e-6;

// torch.isclose in float64: |a-e| <= atol + |rtol*e| (a == e is implied for finite
// values, since atol >= 0).
inline bool AllcloseMismatch(double a, double r, double atol, double rtol) {
  return !(std::fabs(a - r) <= atol + std::fabs(rtol * r));
}

// FlashMLA casts both tensors to float32 and tests there: abs < atol or rel < rtol.
inline bool FlashMlaMismatch(float fa, float fr, float atol, float rtol) {
  const float f_abs = std::fabs(fa - fr);
  const float f_rel = f_abs / (std::fabs(fr) + static_cast<float>(kRelEps));
  return !((f_abs < atol) | (f_rel < rtol));
}

// flash-attention's rule: |a-r| <= k * max|lowprec - r| + atol (the threshold).
inline bool LowprecMismatch(double a, double r, double threshold) {
  return std::fabs(a - r) > threshold;
}

// A rule with every number fixed, as one comparison applies it per element.
struct ElementTolerance {
  RuleKind kind = RuleKind::kAllclose;
  double atol = 0, rtol = 0;
  double threshold = 0;  // lowprec_multiple: k * max|lowprec - ref| + atol
  double cos_tol = 0;    // cos_diff (no per-element test; the localiser's RMS budget)
  bool allow_nan = false, equal_nan = false;
};

// The numbers a compare report's rule applied (its threshold included).
ElementTolerance ElementToleranceFor(const CompareReport& report);

class ElementRule {
 public:
  explicit ElementRule(const ElementTolerance& t)
      : t_(t), f_atol_(static_cast<float>(t.atol)), f_rtol_(static_cast<float>(t.rtol)) {}

  const ElementTolerance& tolerance() const { return t_; }
  // cos_diff judges the whole tensor: it has no per-element verdict.
  bool per_element() const { return t_.kind != RuleKind::kCosDiff; }

  // Both values finite. `bytes_differ` is read by rule exact only.
  bool FiniteMismatch(double a, double r, bool bytes_differ) const {
    switch (t_.kind) {
      case RuleKind::kAllclose:
        return AllcloseMismatch(a, r, t_.atol, t_.rtol);
      case RuleKind::kFlashMla:
        return FlashMlaMismatch(static_cast<float>(a), static_cast<float>(r), f_atol_, f_rtol_);
      case RuleKind::kLowprecMultiple:
        return LowprecMismatch(a, r, t_.threshold);
      case RuleKind::kExact:
        return bytes_differ;
      case RuleKind::kCosDiff:
        return false;
    }
    return false;
  }

  // Either value NaN or +-inf (and allow_nan off): a NaN/inf position that differs is a
  // mismatch under every per-element rule; the same non-finite value is one only for
  // allclose without equal_nan (NaN) and for exact (other bytes).
  bool NonFiniteMismatch(double a, double r, bool bytes_differ) const {
    if (!per_element()) return false;
    if (!SameClass(a, r)) return true;
    if (t_.kind == RuleKind::kAllclose) return std::isnan(a) && !t_.equal_nan;
    if (t_.kind == RuleKind::kExact) return bytes_differ;
    return false;
  }

  // The comparer's verdict for one element: with allow_nan a non-finite position is left
  // out (never a mismatch).
  bool Mismatch(double a, double r, bool bytes_differ) const {
    if (std::isfinite(a) && std::isfinite(r)) return FiniteMismatch(a, r, bytes_differ);
    if (t_.allow_nan) return false;
    return NonFiniteMismatch(a, r, bytes_differ);
  }

  // Error / allowed error, for ranking elements and the heatmap; the caller passes the
  // verdict, so the ratio is > 1 exactly for mismatches. Non-finite mismatches are +inf.
  double Ratio(double a, double r, bool mismatch) const;

 private:
  static bool SameClass(double a, double r) {
    if (std::isnan(a) || std::isnan(r)) return std::isnan(a) && std::isnan(r);
    return a == r || (std::isfinite(a) && std::isfinite(r));
  }

  ElementTolerance t_;
  float f_atol_, f_rtol_;
};

}  // namespace av
