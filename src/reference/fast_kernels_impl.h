// The block kernels written once over a vector-ops policy `O` (Load, Store, Set1, Zero,
// Fma, Mul, Add, Sub, Max, ReduceAdd, ReduceMax, Exp, optionally Transpose16; O::kLanes
// lanes of O::T), included by one translation unit per instruction set. Not a public
// header: see fast_kernels.h.
//
// Register blocking: a tile of R <= 6 rows times J vectors keeps R x J accumulators and J
// operand vectors in registers, so each broadcast feeds J FMAs and each loaded K/V vector
// feeds R. J is the policy's kTileVecs (default 4: 24 accumulators, for AVX-512's 32
// registers; AVX2 has 16, so its policy says 2: 12 accumulators + 2 operands + 1
// broadcast). A key block (kKeyBlock = 64 keys) is 64 / (J x lanes) such column groups,
// each packed as its own panel (PackedIndex). The channel loop of the score block is cut into
// chunks of kChunk = 128 so a packed K chunk (128 x 64 floats = 32 KiB; one column group's slice of
// it less) stays in L1 while every row tile streams over it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "reference/fast_kernels.h"
#include "reference/row_tiles.h"

namespace av {
namespace fast_impl {

// Cephes' expf for the float32 Exp of the AVX-512 and AVX2 policies: exp(x) = 2^n e^r with
// n = round(x log2 e), r = x - n ln2 (ln2 in two parts), e^r = 1 + r + r^2 P(r), P's
// coefficients highest first (about 1 ulp).
inline constexpr float kExpfLog2e = 1.44269504088896341f;
inline constexpr float kExpfLn2Hi = 0.693359375f;
inline constexpr float kExpfLn2Lo = -2.12194440e-4f;
inline constexpr float kExpfPoly[] = {1.9875691500E-4f, 1.3981999507E-3f, 8.3334519073E-3f,
                                      4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f};

// The float64 Exp of the AVX-512 and AVX2 policies: e^r's Taylor coefficients 1/12! .. 1/0!
// after the leading 1/13!, for Horner's rule (truncation < 1e-17 relative for |r| <= ln2/2).
inline constexpr double kExpInvFact[] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                         1.0 / 362880.0,    1.0 / 40320.0,    1.0 / 5040.0,
                                         1.0 / 720.0,       1.0 / 120.0,      1.0 / 24.0,
                                         1.0 / 6.0,         0.5,              1.0,
                                         1.0};

template <typename O>
struct Kernels {
  using T = typename O::T;
  using V = typename O::V;
  static constexpr int L = O::kLanes;
  static constexpr int64_t NB = kKeyBlock<T>;
  static constexpr int J = [] {
    if constexpr (requires { O::kTileVecs; }) {
      return O::kTileVecs;
    } else {
      return 4;
    }
  }();
  static constexpr int64_t kGroup = int64_t(J) * L;  // columns per tile
  static_assert(NB % kGroup == 0, "a key block is whole column groups");
  static constexpr int64_t kChunk = 128;

  // One row tile's columns [0, kGroup) of a score block: kt points at the group's packed
  // panel ([d][kGroup]), s at the group's first column.
  template <int R>
  static void ScoresTile(const T* q, int64_t ldq, const T* kt, int64_t c0, int64_t c1, T* s,
                         bool first) {
    V acc[R][J];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[r][j] = first ? O::Zero() : O::Load(s + r * NB + j * L);
    for (int64_t c = c0; c < c1; ++c) {
      const T* k = kt + c * kGroup;
      V kv[J];
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) kv[j] = O::Load(k + j * L);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const V a = O::Set1(q[r * ldq + c]);
#pragma GCC unroll 8
        for (int j = 0; j < J; ++j) acc[r][j] = O::Fma(a, kv[j], acc[r][j]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) O::Store(s + r * NB + j * L, acc[r][j]);
  }

  template <typename F>
  static void ForRowTiles(int64_t rows, F&& f) {
    av::ForRowTiles(rows, std::forward<F>(f));
  }

  static void Scores(const T* q, int64_t ldq, int64_t rows, int64_t d, const T* kt, T* s) {
    for (int64_t c0 = 0; c0 < d; c0 += kChunk) {
      const int64_t c1 = std::min(d, c0 + kChunk);
      const bool first = c0 == 0;
      for (int64_t col = 0; col < NB; col += kGroup) {
        ForRowTiles(rows, [&](int64_t r, auto R) {
          ScoresTile<decltype(R)::value>(q + r * ldq, ldq, kt + col * d, c0, c1, s + r * NB + col,
                                         first);
        });
      }
    }
  }

  template <int R>
  static void AccumulateTile(const T* p, const T* alpha, const T* v, int64_t ldv, T* o,
                             int64_t ldo) {
    // The block's sum starts from zero and meets the old O only at the end (o = alpha o +
    // sum, one fused step): the loads of O (from L2 or beyond: a unit's O is rows x dv)
    // then never stall the first multiply-adds (AVX2 float64, 128 rows: 0.49 -> 0.53 of
    // the float64 FMA peak per CPU second in a micro-benchmark).
    V acc[R][J];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[r][j] = O::Zero();
    for (int64_t n = 0; n < NB; ++n) {
      const T* vr = v + n * ldv;
      V vv[J];
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) vv[j] = O::Load(vr + j * L);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const V b = O::Set1(p[r * NB + n]);
#pragma GCC unroll 8
        for (int j = 0; j < J; ++j) acc[r][j] = O::Fma(b, vv[j], acc[r][j]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V a = O::Set1(alpha[r]);
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j)
        O::Store(o + r * ldo + j * L, O::Fma(O::Load(o + r * ldo + j * L), a, acc[r][j]));
    }
  }

  static void Accumulate(const T* p, const T* alpha, int64_t rows, const T* v, int64_t ldv,
                         int64_t cols, T* o, int64_t ldo) {
    // Column groups outermost: one group's slice of V (64 keys x 64 floats = 16 KiB at
    // most) stays in L1 while every row tile passes over it.
    for (int64_t col = 0; col < cols; col += kGroup) {
      ForRowTiles(rows, [&](int64_t r, auto R) {
        AccumulateTile<decltype(R)::value>(p + r * NB, alpha + r, v + col, ldv, o + r * ldo + col,
                                           ldo);
      });
    }
  }

  static T ExpSubSum(T* x, int64_t n, T m) {
    V sum = O::Zero();
    const V mv = O::Set1(m);
    for (int64_t i = 0; i < n; i += L) {
      const V e = O::Exp(O::Sub(O::Load(x + i), mv));
      O::Store(x + i, e);
      sum = O::Add(sum, e);
    }
    return O::ReduceAdd(sum);
  }

  // One call per row and block (was row_max, then exp_sub_sum; no measurable change in
  // time). alpha stays a scalar libm exp: taking it from O::Exp on a broadcast made causal
  // prefill 1.7x slower in every run (perf put the time on the first load after the call;
  // the cause was not pinned down).
  static T SoftmaxStep(T* x, int64_t n, T* m, T* l) {
    V mx = O::Load(x);
    for (int64_t i = L; i < n; i += L) mx = O::Max(mx, O::Load(x + i));
    const T m_old = *m;
    const T m_new = std::max(m_old, O::ReduceMax(mx));
    if (m_new == -std::numeric_limits<T>::infinity()) {
      for (int64_t i = 0; i < n; i += L) O::Store(x + i, O::Zero());
      return T(1);
    }
    const T alpha = m_new == m_old ? T(1) : std::exp(m_old - m_new);
    *l = *l * alpha + ExpSubSum(x, n, m_new);
    *m = m_new;
    return alpha;
  }

  // 16 x 16 tiles: in registers where the policy has O::Transpose16 (AVX-512 float: 64
  // shuffles per tile instead of 256 scalar moves) or 8 x 8 ones where it has
  // O::Transpose8 (AVX-512 double: 24 shuffles instead of 64 moves), else element by element — a tile keeps
  // the 16 destination lines in L1 (a key-by-key scatter missed on every store at d = 576).
  static void PackKt(const T* rows, int64_t ld, int64_t d, int64_t keys, T* kt, int64_t n0) {
    int64_t c0 = 0;
    if constexpr (kGroup == NB && requires { O::Transpose16(rows, ld, kt, NB); }) {
      for (; c0 + 16 <= d; c0 += 16)
        for (int64_t k0 = 0; k0 < keys; k0 += 16)
          O::Transpose16(rows + k0 * ld + c0, ld, kt + c0 * NB + n0 + k0, NB);
    } else if constexpr (kGroup % 8 == 0 && requires { O::Transpose8(rows, ld, kt, kGroup); }) {
      // 8 x 8 tiles (AVX-512 double): 8 keys starting at a multiple of 8 lie in one panel.
      for (; c0 + 8 <= d; c0 += 8)
        for (int64_t k0 = 0; k0 < keys; k0 += 8)
          O::Transpose8(rows + k0 * ld + c0, ld, kt + PackedIndex(kGroup, d, c0, n0 + k0), kGroup);
    }
    for (; c0 < d; c0 += 16)
      for (int64_t k0 = 0; k0 < keys; k0 += 16)
        for (int64_t c = c0; c < std::min(d, c0 + 16); ++c)
          for (int64_t n = k0; n < k0 + 16; ++n)
            kt[PackedIndex(kGroup, d, c, n0 + n)] = rows[n * ld + c];
  }

  static const BlockKernels<T>& Table(const char* isa) {
    static const BlockKernels<T> table{&Scores, &Accumulate, &SoftmaxStep, &PackKt, isa, kGroup};
    return table;
  }
};

}  // namespace fast_impl
}  // namespace av
