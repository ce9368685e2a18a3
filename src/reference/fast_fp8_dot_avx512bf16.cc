// The AVX512-BF16 build of the FP8 block-dot kernel (fast_fp8_dot.h). Everything after
// the target pragma is compiled for AVX-512F + AVX512-BF16 + FMA and only called after
// CpuHasAvx512Bf16() said yes.
#include <immintrin.h>

#include <cstdint>

#include "reference/fast_fp8_dot.h"

namespace av {

bool CpuHasAvx512Bf16() {
  static const bool has = __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("fma");
  return has;
}

}  // namespace av

// As fast_kernels_avx512.cc: GCC takes the target from a pragma, clang (the fuzz build)
// from an attribute on every function in the region.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bf16,fma"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bf16,fma")
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Inside the target region, so the tile loop is compiled for it and inlines the tiles.
#include "reference/row_tiles.h"

namespace av {
namespace {

constexpr int kVecs = kFp8DotPanel / 16;  // 4 zmm of 16 floats

// One row tile of R rows over one scale block: R x 4 float32 accumulators (24 of the 32
// zmm registers at R = 6, plus 4 B vectors and a broadcast), 64 pair steps, then
// d += acc * (sa * sb). Each broadcast A pair feeds 4 dot products and each B vector R.
template <int R>
void BlockTile(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
               const uint32_t* bt, float sb, float* d) {
  __m512 acc[R][kVecs];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < kVecs; ++j) acc[r][j] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kFp8DotBlockPairs; ++p) {
    __m512bh bv[kVecs];
#pragma GCC unroll 4
    for (int j = 0; j < kVecs; ++j)
      bv[j] = (__m512bh)_mm512_loadu_si512(bt + p * kFp8DotPanel + j * 16);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[r * lda + p]));
#pragma GCC unroll 4
      for (int j = 0; j < kVecs; ++j) acc[r][j] = _mm512_dpbf16_ps(acc[r][j], av, bv[j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m512 s = _mm512_set1_ps(sa[r * lda_scale] * sb);
    float* dr = d + r * kFp8DotPanel;
#pragma GCC unroll 4
    for (int j = 0; j < kVecs; ++j)
      _mm512_storeu_ps(dr + j * 16, _mm512_fmadd_ps(acc[r][j], s, _mm512_loadu_ps(dr + j * 16)));
  }
}

}  // namespace

void Fp8DotPanel(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                 int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb, float* d) {
  // Scale blocks outermost: one block of the panel (64 pairs x 64 columns x 4 bytes =
  // 16 KiB) stays in L1 while every row tile passes over it; D (rows x 64 floats) in L2.
  for (int64_t kb = 0; kb < kblocks; ++kb) {
    const uint32_t* ab = a + kb * kFp8DotBlockPairs;
    const uint32_t* bb = bt + kb * kFp8DotBlockPairs * kFp8DotPanel;
    ForRowTiles(rows, [&](int64_t r, auto R) {
      BlockTile<decltype(R)::value>(ab + r * lda, lda, sa + r * lda_scale + kb, lda_scale, bb,
                                    sb[kb], d + r * kFp8DotPanel);
    });
  }
}

}  // namespace av

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
