// The AMX build of the bf16 tile kernels (fast_attention_tiles_impl.h): AmxTiles issues
// the tile instructions. Everything after the target pragma is compiled for AMX-TILE,
// AMX-BF16 and AVX-512 and only called after CpuHasAmxBf16() said yes.
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

// Every header the kernels use comes before the target region, so that no inline function
// of theirs is compiled for AMX here (and then chosen by the linker for other callers).
#include "reference/fast_attention_tiles.h"
#include "reference/fast_kernels_impl.h"
#include "reference/tile_registers.h"

namespace av {
namespace {

// Linux's arch_prctl codes for the dynamically enabled tile data (asm/prctl.h, 5.16+).
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtileData = 18;

bool AskAmx() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool amx_bf16 = (edx >> 22) & 1u, amx_tile = (edx >> 24) & 1u;
  const bool osxsave = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && ((ecx >> 27) & 1u);
  if (!amx_bf16 || !amx_tile || !osxsave) return false;
  // XCR0 bits 17 (tile configuration) and 18 (tile data): the OS manages the state.
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if (((lo >> 17) & 3u) != 3u) return false;
  // The AVX-512 subsets the steps around the tiles use (every AMX CPU has them).
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl") ||
      !__builtin_cpu_supports("avx512bf16")) {
    return false;
  }
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData) == 0;
}

}  // namespace

bool CpuHasAmxBf16() {
  static const bool has = AskAmx();
  return has;
}

}  // namespace av

// As fast_kernels_avx512.cc: GCC takes the target from a pragma, clang (the fuzz build)
// from an attribute on every function in the region.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("amx-tile,amx-bf16,avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma")
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "reference/amx_tiles.h"
#include "reference/avx512_common.h"
#include "reference/fast_attention_tiles_impl.h"

namespace av::fast_attention {
namespace {

// The steps in AVX-512 (+ AVX512-BF16 conversions): the bits of ScalarTileSteps
// (TileKernelsBuildsTest holds the AMX build to the emulated one), written for 16 lanes.
// Same expressions in the same order; this file is compiled without contraction into
// fused multiply-adds.
struct Avx512TileSteps {

  // 16 bf16 from x[c0, c0 + 16) as floats (exact), zeros at and past n and for a null x.
  static __m512 LoadPadded(const uint16_t* x, int64_t c0, int64_t n) {
    __m256i w;
    if (x == nullptr || c0 >= n) return _mm512_setzero_ps();
    if (c0 + 16 <= n) {
      w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + c0));
    } else {
      w = _mm256_maskz_loadu_epi16(static_cast<__mmask16>((1u << (n - c0)) - 1), x + c0);
    }
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(w), 16));
  }
  static __m512i AbsBits(__m512 x) {
    return _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff));
  }

  // ScaleExponent of bf16 row x[0, n)'s largest magnitude (tiles::RowExponent in 16
  // lanes: integer order of the magnitudes' bits is float order for finite values).
  static int RowExponent(const uint16_t* x, int64_t n) {
    __m512i mx = _mm512_setzero_si512();
    for (int64_t c = 0; c < n; c += 16) mx = _mm512_max_epu32(mx, AbsBits(LoadPadded(x, c, n)));
    return tiles::BitsExponent(_mm512_reduce_max_epu32(mx));
  }

  struct Split {
    __m512 piece[kTilePieces];
  };
  [[gnu::always_inline]] static Split SplitVec(__m512 x) {
    const __m512 c_hi = _mm512_set1_ps(98304.0f), c_mid = _mm512_set1_ps(384.0f);
    Split s;
    s.piece[kPieceHi] = _mm512_sub_ps(_mm512_add_ps(x, c_hi), c_hi);
    s.piece[kPieceLow] = _mm512_sub_ps(x, s.piece[kPieceHi]);
    s.piece[kPieceMid] = _mm512_sub_ps(_mm512_add_ps(s.piece[kPieceLow], c_mid), c_mid);
    s.piece[kPieceLo] = _mm512_sub_ps(s.piece[kPieceLow], s.piece[kPieceMid]);
    s.piece[kPieceAll] = x;
    return s;
  }
  // 32 bf16: a's 16 values, then b's.
  static __m512i Bf16Pair(__m512 a, __m512 b) { return (__m512i)_mm512_cvtne2ps_pbh(b, a); }

  static bool SplitKeys(const uint16_t* const* keys, int64_t n0, const TileShape& t,
                        TileScratch& ts) {
    for (int64_t n = 0; n < kScoreKeys; ++n) {
      const uint16_t* x = keys[n0 + n];
      const int e = x != nullptr ? RowExponent(x, t.d) : 0;
      if (e == kNoExponent) return false;
      ts.k_factor[n0 + n] = tiles::Pow2(e);
      const __m512 s = _mm512_set1_ps(tiles::Pow2f(-e));
      for (int64_t c = 0; c < t.dq; c += kTileStep) {
        const Split a = SplitVec(_mm512_mul_ps(LoadPadded(x, c, t.d), s));
        const Split b = SplitVec(_mm512_mul_ps(LoadPadded(x, c + 16, t.d), s));
#pragma GCC unroll 5
        for (int piece = 0; piece < kTilePieces; ++piece)
          _mm512_store_si512(ts.k.data() + KeyPiece(t, piece, n, c),
                             Bf16Pair(a.piece[piece], b.piece[piece]));
      }
    }
    return true;
  }

  static bool SplitValues(const uint16_t* const* values, int64_t pair, const TileShape& t,
                          TileScratch& ts) {
    // Word i of a (row n's 16 values, then row n + 1's) to dword i: (n's, n + 1's).
    const __m512i interleave = _mm512_set_epi16(
        31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6, 21, 5, 20, 4,
        19, 3, 18, 2, 17, 1, 16, 0);
    const int64_t c0 = pair * 32;
    __m512 s[2];
    for (int j = 0; j < 2; ++j) {
      __m512i mx = _mm512_setzero_si512();
      for (int64_t n = 0; n < kTileKeys; ++n)
        mx = _mm512_max_epu32(mx, AbsBits(LoadPadded(values[n], c0 + 16 * j, t.dv)));
      alignas(64) uint32_t bits[16];
      alignas(64) float scale[16];
      _mm512_store_si512(bits, mx);
      for (int i = 0; i < 16; ++i) {
        const int e = tiles::BitsExponent(bits[i]);
        if (e == kNoExponent) return false;
        ts.v_factor[c0 + 16 * j + i] = tiles::Pow2(e);
        scale[i] = tiles::Pow2f(-e);
      }
      s[j] = _mm512_load_ps(scale);
    }
    for (int64_t n = 0; n < kTileKeys; n += 2) {
      const int64_t at = (n % kTileStep) / 2 * 16;
      for (int j = 0; j < 2; ++j) {
        const Split a = SplitVec(_mm512_mul_ps(LoadPadded(values[n], c0 + 16 * j, t.dv), s[j]));
        const Split b =
            SplitVec(_mm512_mul_ps(LoadPadded(values[n + 1], c0 + 16 * j, t.dv), s[j]));
#pragma GCC unroll 5
        for (int piece = 0; piece < kTilePieces; ++piece) {
          const __m512i w =
              _mm512_permutexvar_epi16(interleave, Bf16Pair(a.piece[piece], b.piece[piece]));
          _mm512_store_si512(ts.v.data() + ValueTile(piece, j, n / kTileStep) + at, w);
        }
      }
    }
    return true;
  }

  static constexpr int kWeightVecs = kTileKeys / 8;

  static void SplitWeights(const double* p, int64_t r, const TileShape& t, TileScratch& ts) {
    __m512d v[kWeightVecs];
    for (int i = 0; i < kWeightVecs; ++i) v[i] = _mm512_loadu_pd(p + 8 * i);
    PieceWeights(v, r, t, ts);
  }

  // SoftmaxSplit with the AVX-512 block kernels' softmax step, bit for bit (the same
  // maximum, exp, single vector sum and reduction, alpha by libm), on the 128 weights in
  // registers, then their pieces as SplitWeights makes them.
  static double SoftmaxSplit(const BlockKernels<double>&, double* x, double* m, double* l,
                             int64_t r, const TileShape& t, TileScratch& ts) {
    __m512d v[kWeightVecs];
    for (int i = 0; i < kWeightVecs; ++i) v[i] = _mm512_loadu_pd(x + 8 * i);
    __m512d mv = v[0];
    for (int i = 1; i < kWeightVecs; ++i) mv = _mm512_max_pd(mv, v[i]);
    const double m_old = *m;
    const double m_new = std::max(m_old, _mm512_reduce_max_pd(mv));
    if (m_new == -std::numeric_limits<double>::infinity()) {
      ZeroWeights(r, t, ts);
      return 1.0;
    }
    const double alpha = m_new == m_old ? 1.0 : std::exp(m_old - m_new);
    const __m512d mb = _mm512_set1_pd(m_new);
    __m512d sum = _mm512_setzero_pd();
    for (int i = 0; i < kWeightVecs; ++i) {
      v[i] = avx512::ExpPd(_mm512_sub_pd(v[i], mb));
      sum = _mm512_add_pd(sum, v[i]);
    }
    *l = *l * alpha + _mm512_reduce_add_pd(sum);
    *m = m_new;
    PieceWeights(v, r, t, ts);
    return alpha;
  }

  // Row r's 128 weights v into their four pieces and p_factor, as SplitWeights makes them.
  static void PieceWeights(const __m512d* v, int64_t r, const TileShape& t, TileScratch& ts) {
    __m512d mv = v[0];
    for (int i = 1; i < kWeightVecs; ++i) mv = _mm512_max_pd(mv, v[i]);
    const double mx = _mm512_reduce_max_pd(mv);
    if (mx == 0) return ZeroWeights(r, t, ts);
    int e = 0;
    std::frexp(mx, &e);
    ts.p_factor[r] = tiles::Pow2(e - 1);
    const __m512d s = _mm512_set1_pd(tiles::Pow2(1 - e));
    const __m512d c45 = _mm512_set1_pd(0x1.8p45), c37 = _mm512_set1_pd(0x1.8p37),
                  c29 = _mm512_set1_pd(0x1.8p29);
    uint16_t* out = ts.p.data() + r * kTileKeys;
    const int64_t plane = t.mq * kTileKeys;
    for (int i = 0; i < kWeightVecs; i += 2) {
      __m512d piece[2][kWeightPieces];
      for (int h = 0; h < 2; ++h) {
        const __m512d x = _mm512_mul_pd(v[i + h], s);
        const __m512d hi = _mm512_sub_pd(_mm512_add_pd(x, c45), c45);
        const __m512d r1 = _mm512_sub_pd(x, hi);
        const __m512d mid = _mm512_sub_pd(_mm512_add_pd(r1, c37), c37);
        const __m512d r2 = _mm512_sub_pd(r1, mid);
        const __m512d lo = _mm512_sub_pd(_mm512_add_pd(r2, c29), c29);
        piece[h][0] = hi;
        piece[h][1] = mid;
        piece[h][2] = lo;
        piece[h][3] = _mm512_sub_pd(r2, lo);
      }
#pragma GCC unroll 4
      for (int k = 0; k < kWeightPieces; ++k) {
        const __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(piece[0][k])),
                                            _mm512_cvtpd_ps(piece[1][k]), 1);
        _mm256_store_si256(reinterpret_cast<__m256i*>(out + k * plane + 8 * i),
                           (__m256i)_mm512_cvtneps_pbh(f));
      }
    }
  }

  // SplitQueries in 16 lanes: each row's pieces, 16 rows at a time, then each piece's
  // 16 x 16 dwords (rows x channel pairs) transposed into its B tile.
  static bool SplitQueries(const uint16_t* const* rows, double scale, const TileShape& t,
                           TileScratch& ts) {
    std::fill(ts.q.begin(), ts.q.end(), 0u);
    std::fill(ts.q_factor.begin(), ts.q_factor.end(), 0.0);
    alignas(64) uint32_t rowwise[kQueryPieces][16][16];
    for (int64_t strip = 0; strip * 16 < t.rows; ++strip) {
      const int64_t r0 = strip * 16, nr = std::min<int64_t>(16, t.rows - r0);
      __m512 s[16];
      for (int64_t i = 0; i < nr; ++i) {
        const int e = RowExponent(rows[r0 + i], t.d);
        if (e == kNoExponent) return false;
        ts.q_factor[r0 + i] = scale * tiles::Pow2(e);
        s[i] = _mm512_set1_ps(tiles::Pow2f(-e));
      }
      for (int64_t step = 0; step < t.steps; ++step) {
        const int64_t c = step * kTileStep;
        for (int64_t i = 0; i < 16; ++i) {
          if (i >= nr) {
            for (int piece = 0; piece < kQueryPieces; ++piece)
              _mm512_store_si512(rowwise[piece][i], _mm512_setzero_si512());
            continue;
          }
          const Split a = SplitVec(_mm512_mul_ps(LoadPadded(rows[r0 + i], c, t.d), s[i]));
          const Split b = SplitVec(_mm512_mul_ps(LoadPadded(rows[r0 + i], c + 16, t.d), s[i]));
#pragma GCC unroll 3
          for (int piece = 0; piece < kQueryPieces; ++piece)
            _mm512_store_si512(rowwise[piece][i], Bf16Pair(a.piece[piece], b.piece[piece]));
        }
        for (int piece = 0; piece < kQueryPieces; ++piece) {
          avx512::Transpose16(reinterpret_cast<const float*>(&rowwise[piece][0][0]), 16,
                              reinterpret_cast<float*>(ts.q.data() + QueryTile(t, piece, strip, step)),
                              16);
        }
      }
    }
    return true;
  }

  // Per strip j and 8 keys: the float64 sums of S^T [key][row], then two 8 x 8
  // transposes into S's rows.
  static void FlushScores(const float* part, int parts, int64_t r0, int64_t key0,
                          TileScratch& ts) {
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t half = 0; half < 2; ++half) FlushScoreHalf(part, parts, r0, key0, j, half, ts);
  }
  static void FlushScoreHalf(const float* part, int parts, int64_t r0, int64_t key0, int64_t j,
                             int64_t half, TileScratch& ts) {
    alignas(64) double st[8][16];
    const __m512d qf0 = _mm512_loadu_pd(&ts.q_factor[r0 + 16 * j]);
    const __m512d qf1 = _mm512_loadu_pd(&ts.q_factor[r0 + 16 * j + 8]);
    for (int64_t n = 0; n < 8; ++n) {
      const int64_t key = 8 * half + n;
      __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
      for (int q = 0; q < parts; ++q) {
        const float* x = part + (q * 2 + j) * 256 + key * 16;
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_load_ps(x)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_load_ps(x + 8)));
      }
      const __m512d kf = _mm512_set1_pd(ts.k_factor[key0 + key]);
      _mm512_store_pd(&st[n][0], _mm512_mul_pd(_mm512_mul_pd(a0, kf), qf0));
      _mm512_store_pd(&st[n][8], _mm512_mul_pd(_mm512_mul_pd(a1, kf), qf1));
    }
    double* s = ts.sc.s.data() + (r0 + 16 * j) * kTileKeys + key0 + 8 * half;
    avx512::Transpose8(&st[0][0], 16, s, kTileKeys);
    avx512::Transpose8(&st[0][8], 16, s + 8 * kTileKeys, kTileKeys);
  }

  static void UpdateOutput(const float* part, int64_t r0, int64_t rows, int64_t c0,
                           int64_t ldo, TileScratch& ts) {
    for (int64_t i = 0; i < std::min<int64_t>(16, rows - r0); ++i) {
      const int64_t r = r0 + i;
      const __m512d alpha = _mm512_set1_pd(ts.sc.alpha[r]), pf = _mm512_set1_pd(ts.p_factor[r]);
      double* o = ts.sc.o.data() + r * ldo + c0;
#pragma GCC unroll 4
      for (int64_t c = 0; c < 32; c += 8) {
        const float* x = part + (c / 16) * 256 + i * 16 + c % 16;
        const __m512d t = _mm512_add_pd(_mm512_add_pd(_mm512_cvtps_pd(_mm256_load_ps(x)),
                                                      _mm512_cvtps_pd(_mm256_load_ps(x + 512))),
                                        _mm512_cvtps_pd(_mm256_load_ps(x + 1024)));
        const __m512d f = _mm512_mul_pd(pf, _mm512_loadu_pd(&ts.v_factor[c0 + c]));
        _mm512_storeu_pd(o + c, _mm512_add_pd(_mm512_mul_pd(alpha, _mm512_loadu_pd(o + c)),
                                              _mm512_mul_pd(t, f)));
      }
    }
  }
};

}  // namespace

bool RunTileUnitAmx(const Context<double>& cx, const Unit& u, TileScratch& ts) {
  return RunTileUnit<AmxTiles, Avx512TileSteps>(cx, u, ts);
}

bool RunTileProductForTest(const uint16_t* a, const uint16_t* b, const float* c, float* out) {
  if (!CpuHasAmxBf16()) return false;
  AmxTiles::Configure();
  AmxTiles::Load<0>(c, 64);
  AmxTiles::Load<1>(a, 64);
  AmxTiles::Load<2>(b, 64);
  AmxTiles::Dp<0, 1, 2>();
  AmxTiles::Store<0>(out, 64);
  AmxTiles::Release();
  return true;
}

}  // namespace av::fast_attention

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
