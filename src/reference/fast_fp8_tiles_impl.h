// The FP8 tile panel (fast_fp8_tiles.h) over a tile policy X and a block flush F (d +=
// block * s, row by row), included by fast_fp8_tiles_amx.cc and fast_fp8_tiles_emulated.cc.
// Scale blocks outermost, as Fp8DotPanel: one block of the B panel (64 pairs x 64 columns,
// 16 KiB) stays in L1 while every 16-row strip passes over it. Tiles 0-3 hold a strip's
// sums for the panel's four 16-column groups, 4 its A, 5 and 6 the B tiles in turn.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "reference/fast_fp8_dot.h"
#include "reference/tile_registers.h"

namespace av {
namespace {

template <class X, class F>
void Fp8TilePanel(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                  int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb, float* d) {
  constexpr int64_t kPairs = kFp8DotBlockPairs, kCols = kFp8DotPanel;  // 64, 64
  alignas(64) uint32_t pad[kTileRows * kPairs];  // a last strip's rows, zero below them
  alignas(64) float sums[kTileRows * kCols];
  X::Configure();
  for (int64_t kb = 0; kb < kblocks; ++kb) {
    const uint32_t* b = bt + kb * kPairs * kCols;
    for (int64_t r0 = 0; r0 < rows; r0 += kTileRows) {
      const int64_t nr = std::min<int64_t>(kTileRows, rows - r0);
      const uint32_t* ab = a + r0 * lda + kb * kPairs;
      int64_t stride = lda * 4;
      if (nr < kTileRows) {
        std::memset(pad, 0, sizeof pad);
        for (int64_t i = 0; i < nr; ++i) std::memcpy(pad + i * kPairs, ab + i * lda, kPairs * 4);
        ab = pad;
        stride = kPairs * 4;
      }
      X::template Zero<0>();
      X::template Zero<1>();
      X::template Zero<2>();
      X::template Zero<3>();
      for (int64_t p = 0; p < kPairs; p += 16) {  // 16 pairs: 32 channels a product
        const uint32_t* bp = b + p * kCols;
        X::template Load<4>(ab + p, stride);
        X::template Load<5>(bp, kCols * 4);
        X::template Dp<0, 4, 5>();
        X::template Load<6>(bp + 16, kCols * 4);
        X::template Dp<1, 4, 6>();
        X::template Load<5>(bp + 32, kCols * 4);
        X::template Dp<2, 4, 5>();
        X::template Load<6>(bp + 48, kCols * 4);
        X::template Dp<3, 4, 6>();
      }
      X::template Store<0>(sums, kCols * 4);
      X::template Store<1>(sums + 16, kCols * 4);
      X::template Store<2>(sums + 32, kCols * 4);
      X::template Store<3>(sums + 48, kCols * 4);
      for (int64_t i = 0; i < nr; ++i)
        F::Row(sums + i * kCols, sa[(r0 + i) * lda_scale + kb] * sb[kb], d + (r0 + i) * kCols);
    }
  }
  X::Release();
}

}  // namespace
}  // namespace av
