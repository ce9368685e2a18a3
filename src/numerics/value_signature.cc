#include "numerics/value_signature.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace av {
namespace {

// A signature needs (nearly) all errors.
constexpr double kNearlyAll = 0.99;

}  // namespace

void ValueSignature::Add(double x, double y) {
  if (std::isnan(x) && !std::isnan(y)) ++nan_cand_;
  if (x == 0 && y != 0 && std::isfinite(y)) ++zero_cand_;
  // Ratios only where the reference is away from 0, so rounding cannot fake a factor.
  if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(y) < 1e-3) return;
  const double q = x / y;
  ++ratio_n_;
  ratio_min_ = std::min(ratio_min_, q);
  ratio_max_ = std::max(ratio_max_, q);
  if (std::fabs(q * std::log(2.0) - 1) < 1e-3) ++ratio_log2_;
  if (std::fabs(q / std::log(2.0) - 1) < 1e-3) ++ratio_ln2_;
}

std::string ValueSignature::Hint(int64_t errors, int64_t min_errors) const {
  auto all = [&](int64_t k) {
    return k >= min_errors && static_cast<double>(k) >= kNearlyAll * static_cast<double>(errors);
  };
  auto lead = [&](int64_t k) {
    return k == errors
               ? "all " + std::to_string(errors) + " errors"
               : "nearly all errors (" + std::to_string(k) + " of " + std::to_string(errors) + ")";
  };
  if (all(ratio_log2_)) {
    return lead(ratio_log2_) +
           ": candidate = reference x 1.4427 (1 / ln 2): log2 values reported where the natural "
           "log is expected (e.g. an LSE kept in log2 for exp2)";
  }
  if (all(ratio_ln2_)) {
    return lead(ratio_ln2_) +
           ": candidate = reference x 0.6931 (ln 2): natural-log values where log2 is expected";
  }
  if (all(nan_cand_)) {
    return lead(nan_cand_) +
           ": the candidate is NaN where the reference is finite: it reads memory it must not "
           "(past a sequence length, a masked page), divides 0 by 0 or overflows (exp without "
           "the running max)";
  }
  if (all(zero_cand_)) {
    return lead(zero_cand_) +
           ": the candidate is exactly 0 where the reference is not: that part of the output was "
           "never computed or written";
  }
  if (all(ratio_n_) && ratio_max_ - ratio_min_ <= 1e-3 * std::fabs(ratio_max_) &&
      std::fabs(ratio_max_ - 1) > 1e-2) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", ratio_max_);
    return lead(ratio_n_) + ": candidate = reference x " + buf +
           " throughout: a scale factor is wrong";
  }
  return "";
}

}  // namespace av
