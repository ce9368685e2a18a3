// The block-scaled FP8 GEMM's inner kernel on AVX512-BF16 dot products (vdpbf16ps). Every
// fp8 value (e4m3fn: |x| in [2^-9, 448]; e5m2: [2^-16, 57344], inf, NaN) is exactly a bf16
// and a normal one, so each product is exact in float32 and the instruction's denormal
// flushing never applies; one 128-channel scale block is summed in float32 (two roundings
// per instruction and lane: the odd channel's product, then the even one's, as Intel
// documents and as measured on AMD Zen 4), then scaled by sa * sb and added to D, as
// DeepGEMM's kernels promote each block's WGMMA sum. Called by fast_gemm.cc only after
// CpuHasAvx512Bf16() said yes. Stateless; callable from any thread.
#pragma once

#include <cstdint>

namespace av {

// A pair holds channels 2p (low 16 bits) and 2p + 1 (high) as bf16; a 128-channel scale
// block is 64 pairs.
inline constexpr int64_t kFp8DotBlockPairs = 64;
// Columns of D per panel: one packed B panel, 4 zmm vectors of 16 floats.
inline constexpr int64_t kFp8DotPanel = 64;

// True when the CPU has AVX-512F and AVX512-BF16 (asked once).
bool CpuHasAvx512Bf16();

// For r < rows and c < kFp8DotPanel:
//   d[r * kFp8DotPanel + c] += sum over kb < kblocks of
//       (sa[r * lda_scale + kb] * sb[kb]) * sum over p < 64 of dot2(a[r * lda + kb * 64 + p],
//                                                                    bt[(kb * 64 + p) * 64 + c])
// where dot2 multiplies the two bf16 halves pairwise and sums them in float32. The scale
// product is rounded to float32 and added by one fused multiply-add per block, in kb
// order, so every element's result depends only on its inputs (never on `rows` or the
// row tile it falls in). a holds kblocks * 64 pairs a row; bt is the packed panel.
void Fp8DotPanel(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                 int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb, float* d);

}  // namespace av
