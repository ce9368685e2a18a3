#include "reference/fp8_quant.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.h"
#include "reference/f64_array.h"
#include "tensor/float_convert.h"

namespace av {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The group of rows sharing one scale row: 1 for per-token, 128 for per-block.
Result<Fp8Quantized> Quantize(const Tensor& x, bool ue8m0, int64_t row_group,
                              const std::string& what) {
  AV_RETURN_IF_ERROR(ExpectRank(x, 2, "x", what));
  AV_RETURN_IF_ERROR(ExpectFloating(x, "x"));
  const int64_t rows = x.dim(0), k = x.dim(1);
  const int64_t row_blocks = CeilDiv(rows, row_group), k_blocks = CeilDiv(k, kFp8Group);
  const F64Array xd = LoadF64(x);
  auto xf = [&](int64_t r, int64_t c) { return static_cast<float>(xd(r, c)); };
  Fp8Quantized q;
  q.data = Tensor::Zeros(DType::kF8E4M3FN, {rows, k});
  q.scales = Tensor::Zeros(DType::kF32, {row_blocks, k_blocks});
  for (int64_t rb = 0; rb < row_blocks; ++rb) {
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      const int64_t r0 = rb * row_group, r1 = std::min(rows, r0 + row_group);
      const int64_t c0 = kb * kFp8Group, c1 = std::min(k, c0 + kFp8Group);
      float amax = 0;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) amax = AmaxWith(amax, xf(r, c));
      amax = std::max(amax, kFp8AmaxFloor);  // torch clamp(1e-4) keeps a NaN amax NaN too
      float scale = amax / kFp8E4M3Max;
      if (ue8m0) scale = CeilToUe8m0(scale);
      const float inverse = 1.0f / scale;
      q.scales.Set<float>(std::vector<int64_t>{rb, kb}, scale);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) {
          const float scaled = xf(r, c) * inverse;
          q.data.Set<uint8_t>(std::vector<int64_t>{r, c}, FloatToFloat8E4M3FN(scaled));
        }
    }
  }
  return q;
}

// Rows [r0, r1) of the dequantised data (r1 < 0: to the end), built row by row from the
// data's own bytes (any strides): the whole data as float64 and then the result's Tensor
// form had stood beside the result, three float64 copies of B at once — 2.8 GB for
// DeepGEMM's 7168 x 16384 B when the oracle refereed it. The shapes are checked whole,
// so a malformed tensor is named as it is, whatever rows are asked for.
Result<F64Array> Dequantize(const Tensor& data, const Tensor& scales, int64_t row_group,
                            const std::string& scale_layout, int64_t r0 = 0, int64_t r1 = -1) {
  AV_RETURN_IF_ERROR(ExpectRank(data, 2, "data", "[rows, k]"));
  AV_RETURN_IF_ERROR(ExpectFloating(data, "data"));
  AV_RETURN_IF_ERROR(ExpectFloating(scales, "scales"));
  const int64_t rows = data.dim(0), k = data.dim(1);
  AV_RETURN_IF_ERROR(ExpectRank(scales, 2, "scales", scale_layout));
  AV_RETURN_IF_ERROR(ExpectDim(scales, 0, CeilDiv(rows, row_group), "scales", "row groups"));
  AV_RETURN_IF_ERROR(ExpectDim(scales, 1, CeilDiv(k, kFp8Group), "scales", "ceil(k/128)"));
  if (r1 < 0) r1 = rows;
  CHECK(0 <= r0 && r0 <= r1 && r1 <= rows)
      << "Dequantize: rows [" << r0 << ", " << r1 << ") of " << rows;
  const F64Array s = LoadF64(scales);
  F64Array out = F64Array::Zeros({r1 - r0, k});
  const int64_t es = static_cast<int64_t>(data.element_size());
  for (int64_t r = r0; r < r1; ++r) {
    double* row = &out.data[static_cast<size_t>((r - r0) * k)];
    LoadAsDouble(data.dtype(), data.data() + r * data.strides()[0] * es, data.strides()[1] * es, k,
                 row);
    for (int64_t c = 0; c < k; ++c) row[c] *= s(r / row_group, c / kFp8Group);
  }
  return out;
}

}  // namespace

float CeilToUe8m0(float x) {
  if (!std::isfinite(x) || x == 0) return std::fabs(x);  // NaN stays NaN, as torch.pow does
  int exponent = 0;
  const float mantissa = std::frexp(std::fabs(x), &exponent);  // |x| = mantissa * 2^exponent
  // mantissa in [0.5, 1): exactly 0.5 means |x| is already a power of two.
  return mantissa == 0.5f ? std::fabs(x) : std::ldexp(1.0f, exponent);
}

Result<Fp8Quantized> QuantizePerToken(const Tensor& x, bool ue8m0) {
  return Quantize(x, ue8m0, 1, "[m, k]");
}

Result<Fp8Quantized> QuantizePerBlock(const Tensor& x, bool ue8m0) {
  return Quantize(x, ue8m0, kFp8Group, "[n, k]");
}

Result<F64Array> DequantizePerTokenF64(const Tensor& data, const Tensor& scales) {
  return Dequantize(data, scales, 1, "[m, ceil(k/128)]");
}

Result<F64Array> DequantizePerBlockF64(const Tensor& data, const Tensor& scales) {
  return Dequantize(data, scales, kFp8Group, "[ceil(n/128), ceil(k/128)]");
}

Result<F64Array> DequantizePerBlockRowsF64(const Tensor& data, const Tensor& scales, int64_t r0,
                                           int64_t r1) {
  return Dequantize(data, scales, kFp8Group, "[ceil(n/128), ceil(k/128)]", r0, r1);
}

Result<Tensor> DequantizePerToken(const Tensor& data, const Tensor& scales) {
  AV_ASSIGN_OR_RETURN(F64Array x, DequantizePerTokenF64(data, scales));
  return x.ToTensor();
}

Result<Tensor> DequantizePerBlock(const Tensor& data, const Tensor& scales) {
  AV_ASSIGN_OR_RETURN(F64Array x, DequantizePerBlockF64(data, scales));
  return x.ToTensor();
}

}  // namespace av
