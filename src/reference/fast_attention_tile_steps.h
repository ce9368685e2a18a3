// The steps around the tile programs (tile_split.h's pieces made and consumed), portable:
// ScalarTileSteps, which fast_attention_tiles_amx.cc's AVX-512 steps match bit for bit.
// Internal to the tile kernels.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "reference/fast_attention_tiles.h"
#include "reference/tile_split.h"

namespace av::fast_attention {
// Internal linkage: each build (one target per translation unit) has its own copy, so no
// inline function compiled for AMX and AVX-512 can stand in for the portable one.
namespace {

// A row of P with no weight: zero pieces and p_factor 0 (both builds).
inline void ZeroWeights(int64_t r, const TileShape& t, TileScratch& ts) {
  uint16_t* out = ts.p.data() + r * kTileKeys;
  for (int i = 0; i < kWeightPieces; ++i)
    std::fill_n(out + i * t.mq * kTileKeys, kTileKeys, uint16_t{0});
  ts.p_factor[r] = 0;
}

// The portable steps around the tile programs: splitting the unit's Q, a block's 16-key
// group of K, a channel pair of V and a row of P into pieces, and adding the programs'
// results to S and O. fast_attention_tiles_amx.cc's AVX-512 steps replace them with
// vector code that writes the same bits.
struct ScalarTileSteps {
  // The unit's Q rows (bf16, rows[r] for r < rows) into the B tiles of their three
  // pieces and q_factor (softmax scale * 2^E per row); false on a row the tiles cannot
  // scale.
  static bool SplitQueries(const uint16_t* const* rows, double scale, const TileShape& t,
                           TileScratch& ts) {
    std::fill(ts.q.begin(), ts.q.end(), 0u);
    std::fill(ts.q_factor.begin(), ts.q_factor.end(), 0.0);
    for (int64_t r = 0; r < t.rows; ++r) {
      const uint16_t* x = rows[r];
      const int e = tiles::RowExponent(x, t.d);
      if (e == kNoExponent) return false;
      ts.q_factor[r] = scale * tiles::Pow2(e);
      const float s = tiles::Pow2f(-e);
      for (int64_t c = 0; c < t.d; c += 2) {
        const float a = tiles::Bf16At(x, c) * s;
        const float b = c + 1 < t.d ? tiles::Bf16At(x, c + 1) * s : 0.0f;
        const tiles::Pieces pa = tiles::SplitScaled(a), pb = tiles::SplitScaled(b);
        const int64_t at = (c % kTileStep) / 2 * 16 + r % 16;
        for (int piece = 0; piece < kQueryPieces; ++piece) {
          ts.q[QueryTile(t, piece, r / 16, c / kTileStep) + at] =
              uint32_t{tiles::PieceBits(pa, a, piece)} |
              uint32_t{tiles::PieceBits(pb, b, piece)} << 16;
        }
      }
    }
    return true;
  }

  // Keys n0 .. n0 + 15 of the block (bf16 rows keys[n], null past the block's keys:
  // zeros) into the K buffer's pieces and k_factor; false on a key the tiles cannot scale.
  static bool SplitKeys(const uint16_t* const* keys, int64_t n0, const TileShape& t,
                        TileScratch& ts) {
    for (int64_t n = 0; n < kScoreKeys; ++n) {
      const uint16_t* x = keys[n0 + n];
      const int e = x != nullptr ? tiles::RowExponent(x, t.d) : 0;
      if (e == kNoExponent) return false;
      ts.k_factor[n0 + n] = tiles::Pow2(e);
      const float s = tiles::Pow2f(-e);
      for (int64_t c = 0; c < t.dq; ++c) {
        const float a = x != nullptr && c < t.d ? tiles::Bf16At(x, c) * s : 0.0f;
        const tiles::Pieces pa = tiles::SplitScaled(a);
        for (int piece = 0; piece < kTilePieces; ++piece)
          ts.k[KeyPiece(t, piece, n, c)] = tiles::PieceBits(pa, a, piece);
      }
    }
    return true;
  }

  // Channel pair `pair` (channels 32 pair .. + 31) of the block's V (bf16 rows values[n],
  // null past the block's keys: zeros), each channel scaled by its largest magnitude over
  // the block's keys, into the V buffer's B tiles and v_factor; false on a value the
  // tiles cannot scale.
  static bool SplitValues(const uint16_t* const* values, int64_t pair, const TileShape& t,
                          TileScratch& ts) {
    for (int64_t c = 0; c < 32; ++c) {
      const int64_t ch = pair * 32 + c;
      auto value = [&](int64_t n) {
        return values[n] != nullptr && ch < t.dv ? tiles::Bf16At(values[n], ch) : 0.0f;
      };
      float mx = 0;
      for (int64_t n = 0; n < kTileKeys; ++n) {
        if (!std::isfinite(value(n))) return false;
        mx = std::max(mx, std::fabs(value(n)));
      }
      const int e = tiles::ScaleExponent(mx);
      if (e == kNoExponent) return false;
      ts.v_factor[ch] = tiles::Pow2(e);
      const float s = tiles::Pow2f(-e);
      for (int64_t n = 0; n < kTileKeys; n += 2) {
        const float a = value(n) * s, b = value(n + 1) * s;
        const tiles::Pieces pa = tiles::SplitScaled(a), pb = tiles::SplitScaled(b);
        const int64_t at = (n % kTileStep) / 2 * 16 + c % 16;
        for (int piece = 0; piece < kTilePieces; ++piece) {
          ts.v[ValueTile(piece, c / 16, n / kTileStep) + at] =
              uint32_t{tiles::PieceBits(pa, a, piece)} | uint32_t{tiles::PieceBits(pb, b, piece)}
                                                           << 16;
        }
      }
    }
    return true;
  }

  // Row r of P (p[n], weights in [0, 1]) into its four pieces and p_factor[r]: scaled by
  // its largest weight to [0, 2) in float64, then hi, mid and lo at the grids 2^-7, 2^-15
  // and 2^-23 (each exactly a bf16) and lo2, the rest (|lo2| <= 2^-24) rounded to bf16:
  // each weight is carried to 2^-33 of the row's largest.
  static void SplitWeights(const double* p, int64_t r, const TileShape& t, TileScratch& ts) {
    double mx = 0;
    for (int64_t n = 0; n < kTileKeys; ++n) mx = std::max(mx, p[n]);
    if (mx == 0) return ZeroWeights(r, t, ts);
    int e = 0;
    std::frexp(mx, &e);  // mx = f 2^e, f in [0.5, 1)
    ts.p_factor[r] = tiles::Pow2(e - 1);
    const double s = tiles::Pow2(1 - e);
    uint16_t* out = ts.p.data() + r * kTileKeys;
    const int64_t plane = t.mq * kTileKeys;
    for (int64_t n = 0; n < kTileKeys; ++n) {
      const double x = p[n] * s;
      const double hi = (x + 0x1.8p45) - 0x1.8p45;
      const double r1 = x - hi;
      const double mid = (r1 + 0x1.8p37) - 0x1.8p37;
      const double r2 = r1 - mid;
      const double lo = (r2 + 0x1.8p29) - 0x1.8p29;
      out[n] = tiles::Bf16Bits(static_cast<float>(hi));
      out[plane + n] = tiles::Bf16Bits(static_cast<float>(mid));
      out[2 * plane + n] = tiles::Bf16Bits(static_cast<float>(lo));
      out[3 * plane + n] = tiles::Bf16Bits(static_cast<float>(r2 - lo));
    }
  }

  // One online-softmax step of row r's scores x[0, 128) (kern.softmax_step: x becomes
  // the weights, *m and *l advance) and the weights' pieces (SplitWeights); returns alpha.
  static double SoftmaxSplit(const BlockKernels<double>& kern, double* x, double* m, double* l,
                             int64_t r, const TileShape& t, TileScratch& ts) {
    const double alpha = kern.softmax_step(x, kTileKeys, m, l);
    SplitWeights(x, r, t, ts);
    return alpha;
  }

  // A Scores call's results for the strip pair from row r0 and the 16 keys from key0 into
  // S: part holds `parts` results of two S^T tiles each (part[(q * 2 + j) * 256 + n * 16 +
  // i]: key key0 + n, row r0 + 16 j + i), summed in float64 in that order and scaled by
  // k_factor, q_factor.
  static void FlushScores(const float* part, int parts, int64_t r0, int64_t key0,
                          TileScratch& ts) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t i = 0; i < 16; ++i) {
        const int64_t r = r0 + 16 * j + i;
        for (int64_t n = 0; n < 16; ++n) {
          double sum = 0;
          for (int q = 0; q < parts; ++q)
            sum += static_cast<double>(part[(q * 2 + j) * 256 + n * 16 + i]);
          ts.sc.s[r * kTileKeys + key0 + n] = sum * ts.k_factor[key0 + n] * ts.q_factor[r];
        }
      }
    }
  }

  // A Values call's results into O: o = alpha o + (p_factor v_factor) ((L0 + L1) + L2)
  // for the strip's rows from r0 below `rows` and the 32 channels from c0 (part: L0, L1,
  // L2 of the two 16-channel groups; o row stride ldo).
  static void UpdateOutput(const float* part, int64_t r0, int64_t rows, int64_t c0,
                           int64_t ldo, TileScratch& ts) {
    for (int64_t i = 0; i < std::min<int64_t>(16, rows - r0); ++i) {
      const int64_t r = r0 + i;
      const double alpha = ts.sc.alpha[r], pf = ts.p_factor[r];
      double* o = ts.sc.o.data() + r * ldo + c0;
      for (int64_t c = 0; c < 32; ++c) {
        const int64_t at = (c / 16) * 256 + i * 16 + c % 16;
        const double t = (static_cast<double>(part[at]) + static_cast<double>(part[512 + at])) +
                         static_cast<double>(part[1024 + at]);
        o[c] = alpha * o[c] + t * (pf * ts.v_factor[c0 + c]);
      }
    }
  }
};

}  // namespace
}  // namespace av::fast_attention
