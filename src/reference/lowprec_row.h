// The building blocks every low-precision reference shares (lowprec_attention.h,
// lowprec_splitk.h, sparse_attention_lowprec.h, lowprec_gemm.h): rounding a float32 to
// bf16/f16 and back, and the softmax-then-PV step of one query row with the rounding
// points of flash-attention's attention_ref(upcast=False):
//   P = R(exp(S - m) / sum_j exp(S_j - m)) in float32; acc = sum_j P_j v_j in float32, j in
//   order; lse = m + log(sum) in float32.
// Pure functions, callable from any thread.
#pragma once

#include <cstdint>
#include <span>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

// InvalidInput unless dtype is bf16 or f16 (`what` names the option).
Status ExpectHalfDtype(DType dtype, const char* what);

// x rounded to nearest even in dtype (bf16, f16; f32 returns x) and widened back.
float RoundTo(DType dtype, float x);

// An input value rounded once, from its exact double, to nearest even in dtype (bf16, f16;
// any other dtype: to float32) and widened back. Rounding through float32 first can round
// twice: a double just below a bf16 midpoint becomes the midpoint in float32 and then ties
// to even, away from the nearest value (doc/dtypes.md).
float RoundInputTo(DType dtype, double x);

// scores: the row's (already rounded) scores, overwritten with exp(S - m). v_rows[n]: the
// float32 V row of key n (dv channels). Writes acc[c] = sum_n R(P_n) v_rows[n][c]
// (float32, key order, not rounded) and returns lse (float32). Empty scores: acc = 0 and
// -inf.
float LowprecSoftmaxPv(DType dtype, std::span<float> scores, std::span<const float* const> v_rows,
                       int64_t dv, float* acc);

}  // namespace av
