// The steps around the tile programs (tile_split.h's pieces made and consumed), portable:
// ScalarTileSteps, which fast_attention_tiles_amx.cc's AVX-512 steps match bit for bit, and
// their compositions per key group, channel pair and call. Internal to the tile kernels.
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

// The portable steps around the tile programs, in small units (a key's scale, 32 channels
// of a key, 32 keys' maxima, a key pair, 8 keys of a strip, a row), composed below.
// A build may replace any of them with vector code (fast_attention_tiles_amx.cc) that
// writes the same bits.
struct ScalarTileSteps {
  static bool SplitQueries(const uint16_t* const* rows, double scale, const TileShape& t,
                           TileScratch& ts) {
    return SplitQueriesScalar(rows, scale, t, ts);
  }

  // Key `key` of the block (bf16 row x, null past the block's keys: zeros): k_factor and
  // k_scale from its largest magnitude; false when the tiles cannot scale it.
  static bool KeyScale(const uint16_t* x, int64_t key, const TileShape& t, TileScratch& ts) {
    return KeyFactors(x != nullptr ? tiles::RowExponent(x, t.d) : 0, key, ts);
  }
  // k_factor = 2^e and k_scale = 2^-e of key `key`; false for kNoExponent.
  static bool KeyFactors(int e, int64_t key, TileScratch& ts) {
    if (e == kNoExponent) return false;
    ts.k_factor[key] = tiles::Pow2(e);
    ts.k_scale[key] = tiles::Pow2f(-e);
    return true;
  }

  // Channels c .. c + 31 of that key into the pieces of the K buffer, slot `slot`.
  static void KeyChunk(const uint16_t* x, int64_t key, int64_t slot, int64_t c,
                       const TileShape& t, TileScratch& ts) {
    const float s = ts.k_scale[key];
    for (int64_t i = c; i < c + kTileStep; ++i) {
      const float a = x != nullptr && i < t.d ? tiles::Bf16At(x, i) * s : 0.0f;
      const tiles::Pieces pa = tiles::SplitScaled(a);
      for (int piece = 0; piece < kTilePieces; ++piece)
        ts.k[KeyPiece(t, piece, slot, i)] = tiles::PieceBits(pa, a, piece);
    }
  }

  // Keys n0 .. n0 + 31 of the block into the running largest magnitudes (as float bits;
  // a non-finite value's bits are at least 0x7f800000) of channel pair `pair`'s channels.
  static void ValueMax(const uint16_t* const* values, int64_t pair, int64_t n0,
                       const TileShape& t, TileScratch& ts) {
    for (int64_t c = 0; c < 32; ++c) {
      const int64_t ch = pair * 32 + c;
      uint32_t mx = ts.v_max[c];
      for (int64_t n = n0; n < n0 + kTileStep; ++n) {
        const float x = values[n] != nullptr && ch < t.dv ? tiles::Bf16At(values[n], ch) : 0.0f;
        mx = std::max(mx, std::bit_cast<uint32_t>(x) & 0x7fffffffu);
      }
      ts.v_max[c] = mx;
    }
  }

  // v_factor and v_scale of channel pair `pair` from the largest magnitudes (and those
  // reset); false when the tiles cannot scale a channel.
  static bool ValueScales(int64_t pair, TileScratch& ts) {
    for (int64_t c = 0; c < 32; ++c) {
      const uint32_t bits = ts.v_max[c];
      ts.v_max[c] = 0;
      const int e = bits >= 0x7f800000u ? kNoExponent : tiles::ScaleExponent(std::bit_cast<float>(bits));
      if (e == kNoExponent) return false;
      ts.v_factor[pair * 32 + c] = tiles::Pow2(e);
      ts.v_scale[c] = tiles::Pow2f(-e);
    }
    return true;
  }

  // Keys n and n + 1 of channel pair `pair`, scaled, into the B tiles of the V buffer.
  static void ValueKeys(const uint16_t* const* values, int64_t pair, int64_t n,
                        const TileShape& t, TileScratch& ts) {
    for (int64_t c = 0; c < 32; ++c) {
      const int64_t ch = pair * 32 + c;
      auto value = [&](int64_t k) {
        return values[k] != nullptr && ch < t.dv ? tiles::Bf16At(values[k], ch) : 0.0f;
      };
      const float s = ts.v_scale[c];
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

  // Row r of P (p[n], weights in [0, 1]) into its four pieces and p_factor[r]: scaled by
  // its largest weight to [0, 2) in float64, then hi, mid and lo at the grids 2^-7, 2^-15
  // and 2^-23 (each exactly a bf16) and lo2, the rest (|lo2| <= 2^-24) rounded to bf16:
  // each weight is carried to 2^-33 of the row's largest.
  static void SplitWeights(const double* p, int64_t r, const TileShape& t, TileScratch& ts) {
    double mx = 0;
    for (int64_t n = 0; n < kTileKeys; ++n) mx = std::max(mx, p[n]);
    uint16_t* out = ts.p.data() + r * kTileKeys;
    const int64_t plane = t.mq * kTileKeys;
    if (mx == 0) {
      for (int i = 0; i < kWeightPieces; ++i) std::fill_n(out + i * plane, kTileKeys, uint16_t{0});
      ts.p_factor[r] = 0;
      return;
    }
    int e = 0;
    std::frexp(mx, &e);  // mx = f 2^e, f in [0.5, 1)
    ts.p_factor[r] = tiles::Pow2(e - 1);
    const double s = tiles::Pow2(1 - e);
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

  // Scores of strip j of the pair from row r0 against keys key0 + 8 half .. + 7: part
  // holds `parts` results of two S^T tiles each (part[(q * 2 + j) * 256 + n * 16 + i]:
  // key key0 + n, row r0 + 16 j + i), summed in float64 in that order and scaled by
  // k_factor, q_factor.
  static void FlushScoreHalf(const float* part, int parts, int64_t r0, int64_t key0, int64_t j,
                             int64_t half, TileScratch& ts) {
    for (int64_t i = 0; i < 16; ++i) {
      const int64_t r = r0 + 16 * j + i;
      for (int64_t n = 8 * half; n < 8 * half + 8; ++n) {
        double sum = 0;
        for (int q = 0; q < parts; ++q)
          sum += static_cast<double>(part[(q * 2 + j) * 256 + n * 16 + i]);
        ts.sc.s[r * kTileKeys + key0 + n] = sum * ts.k_factor[key0 + n] * ts.q_factor[r];
      }
    }
  }

  // o = alpha o + (p_factor v_factor) ((L0 + L1) + L2) for row r (row i of its strip)
  // and the 32 channels from c0 (part: L0, L1, L2 of the two 16-channel groups; o row
  // stride ldo).
  static void UpdateOutputRow(const float* part, int64_t r, int64_t i, int64_t c0, int64_t ldo,
                              TileScratch& ts) {
    const double alpha = ts.sc.alpha[r], pf = ts.p_factor[r];
    double* o = ts.sc.o.data() + r * ldo + c0;
    for (int64_t c = 0; c < 32; ++c) {
      const int64_t at = (c / 16) * 256 + i * 16 + c % 16;
      const double t = (static_cast<double>(part[at]) + static_cast<double>(part[512 + at])) +
                       static_cast<double>(part[1024 + at]);
      o[c] = alpha * o[c] + t * (pf * ts.v_factor[c0 + c]);
    }
  }
};

// The steps, composed: a key group's K pieces, a channel pair's V pieces, a Scores call's
// results into S, a Values call's into O.
template <class Steps>
bool SplitKeyGroup(const uint16_t* const* keys, int64_t n0, const TileShape& t, TileScratch& ts) {
  for (int64_t n = 0; n < kScoreKeys; ++n) {
    if (!Steps::KeyScale(keys[n0 + n], n0 + n, t, ts)) return false;
    for (int64_t c = 0; c < t.dq; c += kTileStep) Steps::KeyChunk(keys[n0 + n], n0 + n, n, c, t, ts);
  }
  return true;
}

template <class Steps>
bool SplitValuePair(const uint16_t* const* values, int64_t pair, const TileShape& t,
                    TileScratch& ts) {
  for (int64_t h = 0; h < kKeyHalves; ++h) Steps::ValueMax(values, pair, h * kTileStep, t, ts);
  if (!Steps::ValueScales(pair, ts)) return false;
  for (int64_t n = 0; n < kTileKeys; n += 2) Steps::ValueKeys(values, pair, n, t, ts);
  return true;
}

template <class Steps>
void FlushScores(const float* part, int parts, int64_t r0, int64_t key0, TileScratch& ts) {
  for (int64_t j = 0; j < 2; ++j)
    for (int64_t half = 0; half < 2; ++half) Steps::FlushScoreHalf(part, parts, r0, key0, j, half, ts);
}

template <class Steps>
void UpdateOutput(const float* part, int64_t r0, int64_t rows, int64_t c0, int64_t ldo,
                  TileScratch& ts) {
  for (int64_t i = 0; i < std::min<int64_t>(16, rows - r0); ++i)
    Steps::UpdateOutputRow(part, r0 + i, i, c0, ldo, ts);
}

}  // namespace
}  // namespace av::fast_attention
