#include "reference/fp8_quant_fast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "reference/f64_array.h"
#include "reference/fast_source.h"
#include "tensor/float_convert.h"

namespace av {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

Result<Fp8Quantized> QuantizeFast(const Tensor& x, bool per_block, bool ue8m0,
                                  const FastOptions& options) {
  AV_RETURN_IF_ERROR(ExpectRank(x, 2, "x", per_block ? "[n, k]" : "[m, k]"));
  AV_RETURN_IF_ERROR(ExpectFloating(x, "x"));
  const int64_t rows = x.dim(0), k = x.dim(1), row_group = per_block ? kFp8Group : 1;
  const int64_t row_blocks = CeilDiv(rows, row_group), k_blocks = CeilDiv(k, kFp8Group);
  Fp8Quantized q;
  q.data = Tensor::Zeros(DType::kF8E4M3FN, {rows, k});
  q.scales = Tensor::Zeros(DType::kF32, {row_blocks, k_blocks});
  if (rows == 0 || k == 0) return q;
  // x as [1, rows, k]: "row" 0, "head" r (RowSource's view of a rank-2 tensor).
  AV_ASSIGN_OR_RETURN(RowSource src, RowSource::Make(x, "x"));
  uint8_t* data = reinterpret_cast<uint8_t*>(q.data.mutable_data());
  float* scales = reinterpret_cast<float*>(q.scales.mutable_data());
  ParallelFor(row_blocks, options.threads, [&](int64_t rb, int) {
    const int64_t r0 = rb * row_group, r1 = std::min(rows, r0 + row_group);
    // The group's rows as float32 (each value rounded once, as the oracle's float(x)).
    std::vector<float> xs(static_cast<size_t>((r1 - r0) * k));
    for (int64_t r = r0; r < r1; ++r) src.Read<float>(0, r, k, 1.0f, &xs[size_t((r - r0) * k)]);
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      const int64_t c0 = kb * kFp8Group, c1 = std::min(k, c0 + kFp8Group);
      float amax = 0;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c)
          amax = AmaxWith(amax, xs[size_t((r - r0) * k + c)]);
      amax = std::max(amax, kFp8AmaxFloor);
      float scale = amax / kFp8E4M3Max;
      if (ue8m0) scale = CeilToUe8m0(scale);
      const float inverse = 1.0f / scale;
      scales[rb * k_blocks + kb] = scale;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c)
          data[r * k + c] = FloatToFloat8E4M3FN(xs[size_t((r - r0) * k + c)] * inverse);
    }
  });
  return q;
}

Result<Tensor> DequantizeFast(const Tensor& data, const Tensor& scales, bool per_block,
                              const FastOptions& options) {
  AV_RETURN_IF_ERROR(ExpectRank(data, 2, "data", "[rows, k]"));
  AV_RETURN_IF_ERROR(ExpectFloating(data, "data"));
  AV_RETURN_IF_ERROR(ExpectFloating(scales, "scales"));
  const int64_t rows = data.dim(0), k = data.dim(1), row_group = per_block ? kFp8Group : 1;
  AV_RETURN_IF_ERROR(ExpectRank(scales, 2, "scales",
                                per_block ? "[ceil(n/128), ceil(k/128)]" : "[m, ceil(k/128)]"));
  AV_RETURN_IF_ERROR(ExpectDim(scales, 0, CeilDiv(rows, row_group), "scales", "row groups"));
  AV_RETURN_IF_ERROR(ExpectDim(scales, 1, CeilDiv(k, kFp8Group), "scales", "ceil(k/128)"));
  Tensor out = Tensor::Zeros(DType::kF64, {rows, k});
  if (rows == 0 || k == 0) return out;
  const F64Array s = LoadF64(scales);  // small: one value per 128 (or 128 x 128) elements
  AV_ASSIGN_OR_RETURN(RowSource src, RowSource::Make(data, "data"));
  double* o = reinterpret_cast<double*>(out.mutable_data());
  const int64_t kb_count = s.dim(1);
  ParallelFor(rows, options.threads, [&](int64_t r, int) {
    double* row = o + r * k;
    src.Read<double>(0, r, k, 1.0, row);
    const double* sr = &s.data[size_t((r / row_group) * kb_count)];
    for (int64_t c = 0; c < k; ++c) row[c] *= sr[c / kFp8Group];  // exact in float64
  });
  return out;
}

}  // namespace av
