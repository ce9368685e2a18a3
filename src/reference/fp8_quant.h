// DeepGEMM's FP8 quantisation recipes and their inverses: per-token (1 x 128) scales for
// activations and per-block (128 x 128) scales for weights, fp8 e4m3fn data.
//   amax = max |x| over the group (NaN if any x is NaN, as torch's amax), clamped below at
//   1e-4; scale = amax / 448;
//   optionally scale = 2^ceil(log2 scale) (ue8m0, the power-of-two scales of SM100);
//   data = fp8(x * (1 / scale)), each step in float32 as DeepGEMM's torch code runs it.
// Groups past the tensor's edge are zero-padded (they never raise amax). Pure functions,
// callable from any thread. doc/ops.md ("fp8 quantisation").
#pragma once

#include <cmath>
#include <cstdint>

#include "core/status.h"
#include "reference/f64_array.h"
#include "tensor/tensor.h"

namespace av {

inline constexpr int64_t kFp8Group = 128;  // DeepGEMM's scaling granularity along m, n and k
inline constexpr float kFp8E4M3Max = 448.0f;
inline constexpr float kFp8AmaxFloor = 1e-4f;

// 2^ceil(log2 |x|) for finite x > 0, computed exactly (a power of two maps to itself).
float CeilToUe8m0(float x);

// One step of a group's amax as torch's amax takes it: a NaN propagates (std::max would
// skip it), so a NaN anywhere in a group makes the group's scale and every code NaN, as
// DeepGEMM's recipe gives; clamp(1e-4) after it keeps the NaN (std::max(NaN, floor)).
inline float AmaxWith(float amax, float x) {
  const float v = std::fabs(x);
  return (v > amax || std::isnan(v)) ? v : amax;  // once amax is NaN, v > amax is false
}

struct Fp8Quantized {
  Tensor data;    // f8_e4m3fn, the input's shape
  Tensor scales;  // f32: per-token [m, ceil(k/128)], per-block [ceil(n/128), ceil(k/128)]
};

// x [m, k] (any floating dtype; values are first rounded to float32).
Result<Fp8Quantized> QuantizePerToken(const Tensor& x, bool ue8m0);
// x [n, k].
Result<Fp8Quantized> QuantizePerBlock(const Tensor& x, bool ue8m0);

// data [rows, k] (any floating dtype, usually fp8) times its scales, in float64 (exact:
// an fp8 value times a float32 scale fits a double). Returns f64 [rows, k].
// Per-token scales are [rows, ceil(k/128)]; per-block scales [ceil(rows/128), ceil(k/128)].
Result<Tensor> DequantizePerToken(const Tensor& data, const Tensor& scales);
Result<Tensor> DequantizePerBlock(const Tensor& data, const Tensor& scales);
// The same values as the float64 arrays the oracles' loops read, without a Tensor copy
// (DeepGEMM's 7168 x 16384 B is 940 MB in float64).
Result<F64Array> DequantizePerTokenF64(const Tensor& data, const Tensor& scales);
Result<F64Array> DequantizePerBlockF64(const Tensor& data, const Tensor& scales);
// Rows [r0, r1) of DequantizePerBlockF64's result (0 <= r0 <= r1 <= rows, else a CHECK
// failure), the shapes checked whole: the GEMM oracle reads B a block of rows at a time.
Result<F64Array> DequantizePerBlockRowsF64(const Tensor& data, const Tensor& scales, int64_t r0,
                                           int64_t r1);

}  // namespace av
