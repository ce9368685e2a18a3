// The tile programs of the bf16 tile kernels: S^T = K Q^T for a key group and a strip pair,
// and P V for a strip and a channel pair, over a tile policy (tile_registers.h). Internal
// to the tile kernels.
#pragma once

#include <algorithm>
#include <cstdint>

#include "reference/fast_attention_tiles.h"
#include "reference/tile_registers.h"
#include "reference/tile_split.h"

namespace av::fast_attention {
// Internal linkage: each build (one target per translation unit) has its own copy, so no
// inline function compiled for AMX and AVX-512 can stand in for the portable one.
namespace {

// The tile programs. Tiles 0-5 accumulate (L0, L1, L2 of two output tiles), 6 holds A and
// 7 B.
template <class X>
struct TilePrograms {
  // S^T of the 16 keys in the K buffer against the strip pair from `strip` (32 rows): for
  // each 256-channel chunk L0 and L1, then L2, into part (see FlushScores). Returns
  // the parts.
  static int Scores(const TileShape& t, const TileScratch& ts, int64_t strip, float* part) {
    const int64_t lda = kTilePieces * t.dq * 2;
    auto a = [&](int piece, int64_t step) {
      return ts.k.data() + KeyPiece(t, piece, 0, step * kTileStep);
    };
    auto b = [&](int piece, int64_t j, int64_t step) {
      return ts.q.data() + QueryTile(t, piece, strip + j, step);
    };
    int parts = 0;
    X::template Zero<4>();
    X::template Zero<5>();
    for (int64_t s0 = 0; s0 < t.steps; s0 += kExactSteps) {
      X::template Zero<0>();
      X::template Zero<1>();
      X::template Zero<2>();
      X::template Zero<3>();
      for (int64_t s = s0; s < std::min(t.steps, s0 + kExactSteps); ++s) {
        X::template Load<6>(a(kPieceHi, s), lda);
        X::template Load<7>(b(kPieceHi, 0, s), 64);
        X::template Dp<0, 6, 7>();
        X::template Load<7>(b(kPieceHi, 1, s), 64);
        X::template Dp<1, 6, 7>();
        X::template Load<7>(b(kPieceMid, 0, s), 64);
        X::template Dp<2, 6, 7>();
        X::template Load<7>(b(kPieceMid, 1, s), 64);
        X::template Dp<3, 6, 7>();
        X::template Load<6>(a(kPieceMid, s), lda);
        X::template Load<7>(b(kPieceHi, 0, s), 64);
        X::template Dp<2, 6, 7>();
        X::template Load<7>(b(kPieceHi, 1, s), 64);
        X::template Dp<3, 6, 7>();
        X::template Load<6>(a(kPieceLo, s), lda);
        X::template Load<7>(b(kPieceHi, 0, s), 64);
        X::template Dp<4, 6, 7>();
        X::template Load<7>(b(kPieceHi, 1, s), 64);
        X::template Dp<5, 6, 7>();
        X::template Load<6>(a(kPieceLow, s), lda);
        X::template Load<7>(b(kPieceMid, 0, s), 64);
        X::template Dp<4, 6, 7>();
        X::template Load<7>(b(kPieceMid, 1, s), 64);
        X::template Dp<5, 6, 7>();
        X::template Load<6>(a(kPieceAll, s), lda);
        X::template Load<7>(b(kPieceLo, 0, s), 64);
        X::template Dp<4, 6, 7>();
        X::template Load<7>(b(kPieceLo, 1, s), 64);
        X::template Dp<5, 6, 7>();
      }
      X::template Store<0>(part + parts * 512, 64);
      X::template Store<1>(part + parts * 512 + 256, 64);
      ++parts;
      X::template Store<2>(part + parts * 512, 64);
      X::template Store<3>(part + parts * 512 + 256, 64);
      ++parts;
    }
    X::template Store<4>(part + parts * 512, 64);
    X::template Store<5>(part + parts * 512 + 256, 64);
    return parts + 1;
  }

  // P V of the strip from row r0 (16 rows) for the channel pair in the V buffer (two
  // 16-channel groups): part gets L0, L1, L2 of both groups (L2 = hi . lo_v +
  // mid . low_v + (lo + lo2) . all_v).
  static void Values(const TileShape& t, const TileScratch& ts, int64_t r0, float* part) {
    const int64_t plane = t.mq * kTileKeys;
    const uint16_t* p = ts.p.data() + r0 * kTileKeys;
    auto b = [&](int piece, int64_t group, int64_t half) {
      return ts.v.data() + ValueTile(piece, group, half);
    };
    X::template Zero<0>();
    X::template Zero<1>();
    X::template Zero<2>();
    X::template Zero<3>();
    X::template Zero<4>();
    X::template Zero<5>();
    for (int64_t h = 0; h < kKeyHalves; ++h) {
      const int64_t n = h * kTileStep;
      X::template Load<6>(p + n, kTileKeys * 2);
      X::template Load<7>(b(kPieceHi, 0, h), 64);
      X::template Dp<0, 6, 7>();
      X::template Load<7>(b(kPieceHi, 1, h), 64);
      X::template Dp<1, 6, 7>();
      X::template Load<7>(b(kPieceMid, 0, h), 64);
      X::template Dp<2, 6, 7>();
      X::template Load<7>(b(kPieceMid, 1, h), 64);
      X::template Dp<3, 6, 7>();
      X::template Load<7>(b(kPieceLo, 0, h), 64);
      X::template Dp<4, 6, 7>();
      X::template Load<7>(b(kPieceLo, 1, h), 64);
      X::template Dp<5, 6, 7>();
      X::template Load<6>(p + plane + n, kTileKeys * 2);
      X::template Load<7>(b(kPieceHi, 0, h), 64);
      X::template Dp<2, 6, 7>();
      X::template Load<7>(b(kPieceHi, 1, h), 64);
      X::template Dp<3, 6, 7>();
      X::template Load<7>(b(kPieceLow, 0, h), 64);
      X::template Dp<4, 6, 7>();
      X::template Load<7>(b(kPieceLow, 1, h), 64);
      X::template Dp<5, 6, 7>();
      X::template Load<7>(b(kPieceAll, 0, h), 64);
      X::template Load<6>(p + 2 * plane + n, kTileKeys * 2);
      X::template Dp<4, 6, 7>();
      X::template Load<6>(p + 3 * plane + n, kTileKeys * 2);
      X::template Dp<4, 6, 7>();
      X::template Load<7>(b(kPieceAll, 1, h), 64);
      X::template Dp<5, 6, 7>();
      X::template Load<6>(p + 2 * plane + n, kTileKeys * 2);
      X::template Dp<5, 6, 7>();
    }
    X::template Store<0>(part, 64);
    X::template Store<1>(part + 256, 64);
    X::template Store<2>(part + 512, 64);
    X::template Store<3>(part + 768, 64);
    X::template Store<4>(part + 1024, 64);
    X::template Store<5>(part + 1280, 64);
  }
};

}  // namespace
}  // namespace av::fast_attention
