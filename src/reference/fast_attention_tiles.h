// The float64 fast attention's bf16 tile path (fast_attention_tiles_impl.h explains it):
// a unit's scratch and the unit runners of its two builds. fast_attention.cc picks the
// path: the tiles for bf16 Q, K and V where the CPU has AMX-BF16 (FastOptions::tiles), the
// float64 FMA kernels otherwise and for every unit a runner hands back. Callable from any
// thread, one scratch per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/fast_attention_units.h"
#include "reference/line_vector.h"

namespace av::fast_attention {

struct TileScratch {
  Scratch<double> sc;            // s, o (float64), m, l, alpha, lo, hi as the FMA path's
  std::vector<const uint16_t*> keys;    // the unit's Q rows, then each block's key rows
  std::vector<const uint16_t*> values;  // each block's V rows (null: past its keys)
  LineVector<uint32_t> q;        // Q's three pieces as B tiles (QueryTile)
  std::vector<double> q_factor;  // [mq]: softmax scale * 2^E of each Q row
  LineVector<uint16_t> k;        // a key group's pieces (A tiles, KeyPiece)
  std::vector<double> k_factor;  // [128]: 2^E of each key
  LineVector<uint32_t> v;        // a channel pair's pieces (B tiles, ValueTile)
  std::vector<double> v_factor;  // [dvq]: 2^E of each V channel over the block's keys
  LineVector<uint16_t> p;        // [4][mq][128]: P's pieces, row-major (A tiles)
  std::vector<double> p_factor;  // [mq]: 2^E of each P row in the block (0: all zero)
  LineVector<float> part;        // tile results
};

// One unit on the tile kernels; false (nothing written) when the unit must run on the
// FMA kernels instead. Amx: the instructions, only where CpuHasAmxBf16(); Emulated: their
// portable emulation (tests, and FastOptions::tiles = kEmulated).
bool RunTileUnitAmx(const Context<double>& cx, const Unit& u, TileScratch& ts);
bool RunTileUnitEmulated(const Context<double>& cx, const Unit& u, TileScratch& ts);

// out = c + a b by one TDPBF16PS on the hardware (a: 16 x 32 bf16, b: 16 x 16 bf16 pairs,
// c and out: 16 x 16 floats, all rows 64 bytes apart); false where !CpuHasAmxBf16().
// For the tests that hold the emulation to the instruction.
bool RunTileProductForTest(const uint16_t* a, const uint16_t* b, const float* c, float* out);

}  // namespace av::fast_attention
