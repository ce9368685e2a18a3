#include "reference/lowprec_row.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tensor/float_convert.h"

namespace av {

Status ExpectHalfDtype(DType dtype, const char* what) {
  if (dtype == DType::kBF16 || dtype == DType::kF16) return Status::Ok();
  return InvalidInput(std::string(what) + " must be bf16 or f16, got " +
                      std::string(DTypeName(dtype)));
}

float RoundTo(DType dtype, float x) {
  switch (dtype) {
    case DType::kF16:
      return HalfToFloat(FloatToHalf(x));
    case DType::kBF16:
      return BFloat16ToFloat(FloatToBFloat16(x));
    default:
      return x;
  }
}

float RoundInputTo(DType dtype, double x) {
  // A value float32 holds exactly (every f32, bf16 or f16 input) rounds once either way;
  // the bit-level float path is the faster one.
  const float f = static_cast<float>(x);
  if (static_cast<double>(f) == x) return RoundTo(dtype, f);
  switch (dtype) {
    case DType::kF16:
      return HalfToFloat(DoubleToHalf(x));
    case DType::kBF16:
      return BFloat16ToFloat(DoubleToBFloat16(x));
    default:
      return f;
  }
}

float LowprecSoftmaxPv(DType dtype, std::span<float> scores, std::span<const float* const> v_rows,
                       int64_t dv, float* acc) {
  std::fill(acc, acc + dv, 0.0f);
  if (scores.empty()) return -std::numeric_limits<float>::infinity();
  float m = -std::numeric_limits<float>::infinity();
  for (float x : scores) m = std::max(m, x);
  if (std::isinf(m)) m = 0;  // every score -inf
  float sum = 0;
  for (float& x : scores) sum += (x = std::exp(x - m));
  for (size_t n = 0; n < scores.size(); ++n) {
    const float p = RoundTo(dtype, scores[n] / sum);
    const float* v = v_rows[n];
    for (int64_t c = 0; c < dv; ++c) acc[c] += p * v[c];
  }
  return m + std::log(sum);
}

}  // namespace av
