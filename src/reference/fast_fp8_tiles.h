// The block-scaled FP8 GEMM's panel kernel on bf16 tiles (TDPBF16PS, tile_registers.h):
// Fp8DotPanel's contract (fast_fp8_dot.h) — every fp8 value is exactly a normal bf16, a
// 128-channel scale block's products are exact and summed in float32, then
// d += block * fl(sa * sb) by one fused multiply-add per block and element, in block
// order — with the block sums in the tile instruction's order (tile_registers.h) instead
// of VDPBF16PS's. Fp8TilePanelAmx runs the instructions (only where CpuHasAmxBf16());
// Fp8TilePanelEmulated their portable emulation, the same bits. a, bt: as Fp8DotPanel's,
// and on 64-byte lines (LineVector). Stateless; callable from any thread.
#pragma once

#include <cstdint>

namespace av {

void Fp8TilePanelAmx(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                     int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb, float* d);
void Fp8TilePanelEmulated(const uint32_t* a, int64_t lda, const float* sa, int64_t lda_scale,
                          int64_t rows, int64_t kblocks, const uint32_t* bt, const float* sb,
                          float* d);

}  // namespace av
