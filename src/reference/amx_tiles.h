// AmxTiles: the tile register policy of tile_registers.h on the AMX instructions. Include
// only inside an AMX target region (fast_attention_tiles_amx.cc, fast_fp8_tiles_amx.cc)
// and call only after CpuHasAmxBf16(); internal linkage, a copy per translation unit.
#pragma once

#include <cstdint>

#include "reference/tile_registers.h"

namespace av {
namespace {

// Palette 1 with all eight tiles 16 rows x 64 bytes (the layout LDTILECFG reads).
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// The instructions, by inline assembly: tile numbers are immediates ("%c" prints them
// bare). Memory clobbers keep loads and stores ordered with the code around them.
struct AmxTiles {
  static void Configure() {
    TileConfig cfg;
    for (int t = 0; t < 8; ++t) {
      cfg.colsb[t] = kTileBytes;
      cfg.rows[t] = kTileRows;
    }
    __asm__ volatile("ldtilecfg %0" ::"m"(cfg));
  }
  static void Release() { __asm__ volatile("tilerelease" ::: "memory"); }
  template <int T>
  static void Load(const void* base, int64_t stride) {
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm%c2" ::"r"(base), "r"(stride), "i"(T) : "memory");
  }
  template <int T>
  static void Store(void* base, int64_t stride) {
    __asm__ volatile("tilestored %%tmm%c2, (%0,%1,1)" ::"r"(base), "r"(stride), "i"(T) : "memory");
  }
  template <int T>
  static void Zero() {
    __asm__ volatile("tilezero %%tmm%c0" ::"i"(T));
  }
  template <int C, int A, int B>
  static void Dp() {
    __asm__ volatile("tdpbf16ps %%tmm%c0, %%tmm%c1, %%tmm%c2" ::"i"(B), "i"(A), "i"(C));
  }
};

}  // namespace
}  // namespace av
