// The bf16 tile kernels' split (fast_attention_tiles_impl.h gives the argument): the
// pieces a scaled row is cut into, their exactness helpers, a unit's tile shape and where
// each piece's tiles lie. Internal to the tile kernels;
// included (with a copy per translation unit) by their builds and tests.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "reference/fast_attention_tiles.h"

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

// ScaleExponent of a largest magnitude given as float bits (kNoExponent when they are a
// non-finite value's, at least 0x7f800000).
inline int BitsExponent(uint32_t max_bits) {
  return max_bits >= 0x7f800000u ? kNoExponent : ScaleExponent(std::bit_cast<float>(max_bits));
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

}  // namespace
}  // namespace av::fast_attention
