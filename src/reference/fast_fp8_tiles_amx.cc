// The AMX build of the FP8 tile panel (fast_fp8_tiles.h). Everything after the target
// pragma is compiled for AMX and AVX-512 and only called after CpuHasAmxBf16() said yes.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

// Every header the kernel uses comes before the target region (fast_attention_tiles_amx.cc
// says why).
#include "reference/fast_fp8_dot.h"
#include "reference/fast_fp8_tiles.h"
#include "reference/tile_registers.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("amx-tile,amx-bf16,avx512f,fma"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("amx-tile,amx-bf16,avx512f,fma")
#endif
#include "reference/amx_tiles.h"
#include "reference/fast_fp8_tiles_impl.h"

namespace av {
namespace {

// d += sums * s for one row of the panel: four fused multiply-adds of 16 lanes.
struct Avx512Flush {
  static void Row(const float* sums, float s, float* d) {
    const __m512 sv = _mm512_set1_ps(s);
#pragma GCC unroll 4
    for (int64_t c = 0; c < kFp8DotPanel; c += 16)
      _mm512_storeu_ps(d + c, _mm512_fmadd_ps(_mm512_load_ps(sums + c), sv, _mm512_loadu_ps(d + c)));
  }
};

}  // namespace

void Fp8TilePanelAmx(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                     int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb, float* d) {
  Fp8TilePanel<AmxTiles, Avx512Flush>(a, lda, sa, lda_scale, rows, kblocks, bt, sb, d);
}

}  // namespace av

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
