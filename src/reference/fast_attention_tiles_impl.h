// The float64 fast attention's bf16 tile kernels: one work unit (fast_attention_units.h)
// computed with bf16 tile products (TDPBF16PS, tile_registers.h) whose float32
// accumulators are kept exact, with float64 statistics and output. Included by
// fast_attention_tiles_amx.cc (the AMX instructions) and fast_attention_tiles_emulated.cc
// (their portable emulation), which instantiate RunTileUnit with their tile policy.
//
// Why it is accurate (doc/numerics.md, "bf16 tiles"): a vector x of bf16 values, scaled
// by 2^-E so that its largest magnitude lies in [1, 2) (exact), is split into bf16 pieces
//   hi  = x rounded to a multiple of 2^-7    (|hi| <= 2: at most 8 significant bits)
//   mid = (x - hi) rounded to 2^-15         (|mid| <= 2^-8)
//   lo  = x - hi - mid                       (|lo| <= 2^-16)
//   low = x - hi = mid + lo,  all = x
// each exactly a bf16 when x is one. For a dot product x . y (x a Q or P row, y a key or
// a V column, both split so):
//   L0 = hi_x . hi_y                          multiples of 2^-14, each |term| <= 2^16 of them
//   L1 = hi_x . mid_y + mid_x . hi_y          multiples of 2^-22, each <= 2^15 of them
//   L2 = hi_x . lo_y + mid_x . low_y + lo_x . all_y     (|term| <= 2^-15)
// and L0 + L1 + L2 = x . y exactly. Over at most 256 channels every partial sum of L0 and
// of L1 is an integer number of quanta below 2^24, so their float32 accumulation is
// exact whatever the order; only L2, 2^-15 of the magnitude, is rounded. The three are
// summed in float64 and scaled back by 2^(E_x + E_y).
//
// P, the softmax weights, comes from float64: scaled by its row's largest weight in the
// block and rounded to float32, its lo piece rounded to bf16 — P then carries about 25
// bits relative to that largest weight (the float32 path's P carries 24).
//
// A unit whose Q, K or V holds a non-finite value, or a row or column whose largest
// magnitude is outside [2^-100, 2^100] (its scale would not be a normal float), is left to
// the float64 FMA kernels: RunTileUnit returns false before writing any output.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference/fast_attention_tiles.h"
#include "reference/tile_registers.h"

namespace av::fast_attention {
// Internal linkage: each build (one target per translation unit) has its own copy, so no
// inline function compiled for AMX and AVX-512 can stand in for the portable one.
namespace {

// The pieces, in the order the tile programs index them.
enum TilePiece { kPieceHi, kPieceMid, kPieceLo, kPieceLow, kPieceAll, kTilePieces };

inline constexpr int64_t kTileStep = 32;  // channels (or keys) per TDPBF16PS
inline constexpr int64_t kExactSteps = 8;  // 256 channels: L0 and L1 stay exact
// Keys per block: twice the FMA kernels' 64, so each float64 update of O (alpha O + P V)
// serves 128 keys; exact still (L0 of P V: 128 terms of at most 2^16 quanta).
inline constexpr int64_t kTileKeys = 128;
inline constexpr int64_t kKeyHalves = kTileKeys / kTileStep;
// Keys whose K pieces are held at once: one group of 16 (5 pieces x 576 channels = 90 KiB
// at MLA's d), split just before the tiles read them. Splitting all 128 keys of a block
// first put 737 KiB beside Q's 442 KiB, V's pieces and O in this CPU's 2 MiB of L2.
inline constexpr int64_t kScoreKeys = 16;
inline constexpr int kMaxScaleExponent = 100;
inline constexpr int kNoExponent = 1 << 30;
inline constexpr int kQueryPieces = 3;   // Q: hi, mid, lo
inline constexpr int kWeightPieces = 4;  // P: hi, mid, lo, lo2

namespace tiles {

// bf16 bits of x, rounded to nearest even, a float32 denormal read as zero (as VCVTNEPS2BF16
// and the tiles' inputs do); x finite. Exact when x is a bf16.
inline uint16_t Bf16Bits(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7f800000u) == 0) return static_cast<uint16_t>((u >> 16) & 0x8000u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// E with 2^E <= m < 2^(E + 1) for a normal float m > 0, 0 for m = 0, kNoExponent when m is
// not finite or not normal or |E| > kMaxScaleExponent.
inline int ScaleExponent(float m) {
  if (m == 0) return 0;
  const uint32_t u = std::bit_cast<uint32_t>(m);
  const int biased = static_cast<int>((u >> 23) & 0xff);
  const int e = biased - 127;
  if (biased == 0 || biased == 255 || e > kMaxScaleExponent || e < -kMaxScaleExponent) {
    return kNoExponent;
  }
  return e;
}

// 2^e as a float, |e| <= kMaxScaleExponent.
inline float Pow2f(int e) { return std::bit_cast<float>(static_cast<uint32_t>(127 + e) << 23); }
inline double Pow2(int e) { return std::ldexp(1.0, e); }

struct Pieces {
  float hi, mid, lo, low;
};
// x with |x| < 2 (a value scaled by 2^-E) as hi + mid + lo, low = mid + lo, by rounding at
// fixed magnitudes: 1.5 * 2^16 has float32 spacing 2^-7 around it, 1.5 * 2^8 spacing 2^-15.
inline Pieces SplitScaled(float x) {
  const float hi = (x + 98304.0f) - 98304.0f;
  const float low = x - hi;
  const float mid = (low + 384.0f) - 384.0f;
  return {hi, mid, low - mid, low};
}

inline uint16_t PieceBits(const Pieces& s, float all, int piece) {
  switch (piece) {
    case kPieceHi: return Bf16Bits(s.hi);
    case kPieceMid: return Bf16Bits(s.mid);
    case kPieceLo: return Bf16Bits(s.lo);
    case kPieceLow: return Bf16Bits(s.low);
    default: return Bf16Bits(all);
  }
}

inline int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// A stored bf16 (2 bytes at p) as the float it is exactly.
inline float Bf16At(const uint16_t* p, int64_t c) {
  uint16_t b;
  std::memcpy(&b, p + c, sizeof b);
  return std::bit_cast<float>(uint32_t{b} << 16);
}

// The exponent of bf16 row x[0, n)'s largest magnitude, or kNoExponent when a value is
// not finite or the largest is out of range.
inline int RowExponent(const uint16_t* x, int64_t n) {
  float mx = 0;
  for (int64_t c = 0; c < n; ++c) {
    const float v = Bf16At(x, c);
    if (!std::isfinite(v)) return kNoExponent;
    mx = std::max(mx, std::fabs(v));
  }
  return ScaleExponent(mx);
}

}  // namespace tiles

// A unit's sizes on the tiles.
struct TileShape {
  int64_t d, dq, steps;  // channels of Q and K, padded to 32, 32-channel steps
  int64_t dv, dvq;       // V channels, padded to 32 (pairs of 16-channel groups)
  int64_t rows, mq;      // the unit's Q rows and that padded to 32 (pairs of 16-row strips)
};

// Where the tile programs find each piece (every tile 64-byte aligned, rows 64 bytes apart
// unless said otherwise):
//   K  (A of S^T = K Q^T)   k[KeyPiece(piece, slot, c)] for the 16-key group held
//                           rows 5 dq * 2 bytes apart
//   Q  (B)                  q[((piece * mq / 16 + strip) * steps + step) * 256 + kk * 16 + i]
//                           = channels step * 32 + 2 kk, + 1 of row strip * 16 + i
//   V  (B of P V)           v[((group * 4 + half) * 5 + piece) * 256 + kk * 16 + c]
//                           = keys half * 32 + 2 kk, + 1 of channel (2 pair + group) * 16 + c
//                           for the one channel pair split at a time (40 KiB: stays in L1)
//   P  (A)                  p[(piece * mq + row) * 128 + key]             rows 256 bytes apart
inline int64_t QueryTile(const TileShape& t, int piece, int64_t strip, int64_t step) {
  return ((piece * (t.mq / 16) + strip) * t.steps + step) * 256;
}
inline int64_t ValueTile(int piece, int64_t group, int64_t half) {
  return ((group * kKeyHalves + half) * kTilePieces + piece) * 256;
}
// K's piece `piece` of the held group's key `slot`, channel c: a key's pieces side by
// side, so its five stores land in different L1 sets (pieces 18 KiB apart shared sets).
inline int64_t KeyPiece(const TileShape& t, int piece, int64_t slot, int64_t c) {
  return (slot * kTilePieces + piece) * t.dq + c;
}

// Splits the unit's Q rows (bf16, rows[r] for r < rows) into the B tiles of their three
// pieces and q_factor (softmax scale * 2^E per row); false on a row the tiles cannot
// scale.
inline bool SplitQueriesScalar(const uint16_t* const* rows, double scale, const TileShape& t,
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

// The portable steps around the tile programs, in the units the fillers hand out (below).
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
    const int e = x != nullptr ? tiles::RowExponent(x, t.d) : 0;
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

// The tile programs. Tiles 0-5 accumulate (L0, L1, L2 of two output tiles), 6 holds A and
// 7 B.
template <class X>
struct TilePrograms {
  // S^T of the 16 keys in the K buffer against the strip pair from `strip` (32 rows): for
  // each 256-channel chunk L0 and L1, then L2, into part (see FlushScoreHalf). Returns
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

// One unit on the tiles: the same visible-key intervals, masks, online softmax and
// write-out as the FMA path's RunUnit (fast_attention.cc). Returns false, having written
// nothing, when the unit's data is not for the tiles (see the top of this file).
template <class X, class Steps = ScalarTileSteps>
bool RunTileUnit(const Context<double>& cx, const Unit& u, TileScratch& ts) {
  constexpr int64_t NB = kTileKeys;
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  const AttentionProblem& p = *cx.p;
  const AttentionParams& params = *cx.params;
  const BlockKernels<double>& kern = *cx.kern;
  const Job& job = cx.jobs[static_cast<size_t>(u.job)];
  Scratch<double>& sc = ts.sc;
  const int64_t b = job.batch, s_q = p.s_q[b], s_k = p.s_k[b];
  const int64_t g = p.h_q / p.h_kv, tq = u.i1 - u.i0;
  TileShape t;
  t.d = p.d;
  t.dq = tiles::RoundUp(t.d, kTileStep);
  t.steps = t.dq / kTileStep;
  t.dv = p.dv;
  t.dvq = tiles::RoundUp(t.dv, 2 * 16);
  t.rows = tq * g;
  t.mq = tiles::RoundUp(t.rows, 32);
  const int64_t M = t.rows;

  int64_t jlo = 0, jhi = 0;
  KeyIntervals(params.mask, job, u, s_q, s_k, sc, &jlo, &jhi);

  const bool v_in_k = cx.v_in_k && t.dv <= t.d;
  ts.keys.resize(static_cast<size_t>(std::max(kTileKeys, M)));
  for (int64_t r = 0; r < M; ++r) {
    ts.keys[r] = reinterpret_cast<const uint16_t*>(
        cx.q.ContiguousRow(p.q_begin[b] + u.i0 + r / g, u.kv_head * g + r % g));
  }
  ts.q.resize(kQueryPieces * t.mq * t.steps * 16);
  ts.q_factor.resize(t.mq);
  if (!Steps::SplitQueries(ts.keys.data(), p.scale, t, ts)) return false;
  ts.values.resize(kTileKeys);
  ts.k.resize(kTilePieces * kScoreKeys * t.dq);
  ts.k_factor.resize(NB);
  ts.k_scale.resize(NB);
  ts.v.resize(kTilePieces * 2 * kKeyHalves * 256);
  ts.v_factor.resize(t.dvq);
  ts.v_max.assign(32, 0);
  ts.v_scale.resize(32);
  ts.p.assign(kWeightPieces * t.mq * NB, 0);
  ts.p_factor.assign(t.mq, 0.0);
  ts.part.resize((2 * ((t.steps + kExactSteps - 1) / kExactSteps) + 1) * 512);
  sc.s.assign(t.mq * NB, 0.0);
  sc.o.assign(t.mq * t.dvq, 0.0);
  sc.alpha.assign(t.mq, 1.0);
  sc.m.assign(M, kNegInf);
  sc.l.assign(M, 0.0);

  X::Configure();
  bool ok = true;
  for (int64_t j0 = jlo; j0 < jhi && ok; j0 += NB) {
    const int64_t nb = std::min(NB, jhi - j0);
    int64_t ta = 0, tb = tq;
    while (ta < tq && sc.hi[ta] <= j0) ++ta;
    while (tb > ta && sc.lo[tb - 1] >= j0 + nb) --tb;
    if (ta >= tb) continue;
    for (int64_t n = 0; n < NB; ++n) {
      const uint16_t *k = nullptr, *v = nullptr;
      if (n < nb) {
        const int64_t row = p.key_row[b][j0 + n];
        k = reinterpret_cast<const uint16_t*>(cx.k.ContiguousRow(row, u.kv_head));
        v = v_in_k ? k : reinterpret_cast<const uint16_t*>(cx.v.ContiguousRow(row, u.kv_head));
        if (j0 + NB + n < jhi) {
          const int64_t next = p.key_row[b][j0 + NB + n];
          cx.k.Prefetch(next, u.kv_head, t.d);
          if (!v_in_k) cx.v.Prefetch(next, u.kv_head, t.dv);
        }
      }
      ts.keys[n] = k;
      ts.values[n] = v;
    }
    // Rows [ra, rb) see the block; the strips (of 16 rows) and strip pairs that hold them.
    const int64_t ra = ta * g, rb = tb * g;
    const int64_t sa = ra / 16 * 16, sb = tiles::RoundUp(rb, 16);
    // S = Q K^T by key groups of 16, each split just before the tiles read it (groups
    // past the block's keys are skipped: their score columns are masked below).
    for (int64_t n0 = 0; n0 < nb && ok; n0 += kScoreKeys) {
      if (!SplitKeyGroup<Steps>(ts.keys.data(), n0, t, ts)) {
        ok = false;
        break;
      }
      for (int64_t r0 = ra / 32 * 32; r0 < sb; r0 += 32) {
        const int parts = TilePrograms<X>::Scores(t, ts, r0 / 16, ts.part.data());
        FlushScores<Steps>(ts.part.data(), parts, r0, n0, ts);
      }
    }
    if (!ok) break;
    const double cap = params.softcap;
    const bool alibi = !p.alibi.data.empty();
    for (int64_t r = sa; r < sb; ++r) sc.alpha[r] = 1.0;
    for (int64_t tt = ta; tt < tb; ++tt) {
      const int64_t i = u.i0 + tt, lo = sc.lo[tt], hi = sc.hi[tt];
      const bool partial = lo > j0 || hi < j0 + NB;
      for (int64_t hh = 0; hh < g; ++hh) {
        const int64_t r = tt * g + hh, h = u.kv_head * g + hh;
        double* srow = &sc.s[r * NB];
        if (cap > 0) {
          for (int64_t n = 0; n < nb; ++n) srow[n] = cap * std::tanh(srow[n] / cap);
        }
        if (alibi) {
          const double slope = p.alibi(b, h);
          for (int64_t n = 0; n < nb; ++n) srow[n] += AlibiBias(slope, i, j0 + n, s_q, s_k);
        }
        if (partial) {
          for (int64_t n = 0; n < NB; ++n)
            if (j0 + n < lo || j0 + n >= hi) srow[n] = kNegInf;
        }
        sc.alpha[r] = Steps::SoftmaxSplit(kern, srow, &sc.m[r], &sc.l[r], r, t, ts);
      }
    }
    // Rows of the strips that do not see the block: no weight.
    for (int64_t r = sa; r < sb; ++r) {
      if (r >= ra && r < rb) continue;
      std::fill_n(&sc.s[r * NB], NB, 0.0);
      Steps::SplitWeights(&sc.s[r * NB], r, t, ts);
    }
    // O = alpha O + P V by channel pairs, each split just before the tiles read it: a
    // pair's V pieces (40 KiB) stay in L1 while every strip passes over them.
    for (int64_t pair = 0; pair < t.dvq / 32 && ok; ++pair) {
      if (!SplitValuePair<Steps>(ts.values.data(), pair, t, ts)) {
        ok = false;
        break;
      }
      for (int64_t r0 = sa; r0 < sb; r0 += 16) {
        TilePrograms<X>::Values(t, ts, r0, ts.part.data());
        UpdateOutput<Steps>(ts.part.data(), r0, M, pair * 32, t.dvq, ts);
      }
    }
  }
  X::Release();
  if (!ok) return false;
  WriteRows(cx, u, sc, t.dvq);
  return true;
}

}  // namespace
}  // namespace av::fast_attention
