// The fast path of DeepGEMM's FP8 quantisation recipes (fp8_quant.h): the same float32
// arithmetic per group, read straight from the input's buffer (any dtype and strides) and
// spread over threads, one row group (1 row per-token, 128 rows per-block) per work unit.
// Every element is computed exactly as the oracle computes it, so the outputs are bitwise
// the oracle's for any thread count (tested). Callable from any thread.
#pragma once

#include "core/status.h"
#include "reference/fast_attention.h"
#include "reference/fp8_quant.h"
#include "tensor/tensor.h"

namespace av {

// As QuantizePerToken / QuantizePerBlock.
Result<Fp8Quantized> QuantizeFast(const Tensor& x, bool per_block, bool ue8m0,
                                  const FastOptions& options);

// As DequantizePerToken / DequantizePerBlock: f64 [rows, k], data * scale exactly.
Result<Tensor> DequantizeFast(const Tensor& data, const Tensor& scales, bool per_block,
                              const FastOptions& options);

}  // namespace av
