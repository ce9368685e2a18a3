// Bulk generation of one floating input tensor for the case builder: the values of a
// whole tensor in row-major order from one Rng stream (normals, scaled, or near-tie
// rows), NaN for rows a mask rejects (their draws skipped, not computed) and for row
// padding, converted to the dtype in bulk. Byte for byte what a per-element loop of
// Rng::Normal() and StoreFromDouble() gives (pinned by input_gen_test.cc and the sweep's
// input hashes).
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sweep/rng.h"
#include "tensor/tensor.h"

namespace av {

// Stores n doubles as `dtype` at dst (contiguous), exactly as StoreFromDouble does for
// each (round to nearest even, once, from the double); bf16, f16 and f32 take fast paths.
void StoreDoubles(DType dtype, const double* values, int64_t n, std::byte* dst);

// How an element's value follows from its normal draw z (one draw per logical element,
// in row-major order): mul * z, or, with near_tie_base, base[column] + 1e-3 * z.
struct GenValues {
  double mul = 1.0;
  std::vector<double> near_tie_base;  // empty: mul * z
};

// Rows whose first two logical indices (i0, i1) fail the mask are NaN (keys past a
// sequence's length, unused pages); their draws are skipped (Rng::SkipNormals) so that
// the values of the other rows do not depend on the mask. Null: every row is valid. A large
// tensor is generated on several threads at once, so the mask must be safe to call from
// several threads (a pure function of its arguments).
using GenRowMask = std::function<bool(int64_t i0, int64_t i1)>;

// A contiguous tensor of `storage` shape whose leading `shape` part holds the values
// and whose extra trailing columns (storage.back() > shape.back()) are NaN.
Tensor GenerateFloatTensor(Rng& rng, const GenValues& values, DType dtype, const Shape& shape,
                           const Shape& storage, const GenRowMask& mask);

// The float32 values an FP8 GEMM operand is quantised from: rows x k standard normals of
// `stream` in row-major order (row r takes draws r * k .. (r + 1) * k - 1), each rounded
// to float32 once. `saturating` (the fp8_saturating generator) makes one value per
// 128-group of each row 1000 times larger, every 7th row (r % 7 == 3) zero, and one value
// per group of the other rows exactly +-4000. Large operands are generated on every
// hardware thread; the bytes are the single pass's.
Tensor GenerateGemmOperand(const Rng& stream, int64_t rows, int64_t k, bool saturating);

}  // namespace av
