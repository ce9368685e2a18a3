#include "reference/softmax_row.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace av {

RowSoftmax SoftmaxOfRow(std::span<const double> scores) {
  RowSoftmax r;
  if (scores.empty()) {
    r.lse = -std::numeric_limits<double>::infinity();
    return r;
  }
  // Subtracting the maximum keeps exp() in range; it cancels exactly in p and lse.
  double m = *std::max_element(scores.begin(), scores.end());
  if (std::isinf(m) && m < 0) m = 0;  // every score -inf (e.g. a huge negative ALiBi bias)
  double sum = 0;
  for (double s : scores) sum += std::exp(s - m);
  r.lse = m + std::log(sum);
  for (double s : scores) r.p.push_back(std::exp(s - r.lse));
  return r;
}

void ApplySink(double sink, double lse, std::span<double> o) {
  if (std::isinf(lse) && lse < 0) return;
  const double factor = 1.0 / (1.0 + std::exp(sink - lse));
  for (double& x : o) x *= factor;
}

double ReportedLse(double lse, bool log2, EmptyLse empty) {
  if (std::isinf(lse) && lse < 0) {
    return empty == EmptyLse::kPosInf ? std::numeric_limits<double>::infinity() : lse;
  }
  return log2 ? lse * std::numbers::log2e : lse;
}

}  // namespace av
