// What the wrong values of a failing output are, wherever they sit: a kernel that reports
// log2 as ln, scales every value by the same wrong factor, never writes a tile (zeros) or
// reads poisoned memory (NaN) leaves that signature in every error. Pure; any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace av {

class ValueSignature {
 public:
  // One error: candidate value x where the reference is y.
  void Add(double x, double y);
  // "all 96 errors: candidate = reference x 1.4427 (1 / ln 2): ..." or "" when the errors
  // share no signature. `min_errors`: fewer errors say nothing.
  std::string Hint(int64_t errors, int64_t min_errors) const;

 private:
  int64_t nan_cand_ = 0, zero_cand_ = 0, ratio_log2_ = 0, ratio_ln2_ = 0, ratio_n_ = 0;
  double ratio_min_ = std::numeric_limits<double>::infinity();
  double ratio_max_ = -std::numeric_limits<double>::infinity();
};

}  // namespace av
