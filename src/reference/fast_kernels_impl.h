// The block kernels written once over a vector-ops policy `O` (Load, Store, Set1, Zero,
// Fma, Mul, Add, Sub, Max, ReduceAdd, ReduceMax, Exp; O::kLanes lanes of O::T), included
// by one translation unit per instruction set. Not a public header: see fast_kernels.h.
//
// Register blocking: a tile of R <= 6 rows times 4 vectors (64 floats) keeps 24
// accumulators and 4 operand vectors in registers (AVX-512 has 32), so each broadcast
// feeds 4 FMAs and each loaded K/V vector feeds R. The channel loop of the score block is
// cut into chunks of kChunk = 128 so a packed K chunk (128 x 64 floats = 32 KiB) stays in
// L1 (48 KiB here) while every row tile streams over it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "reference/fast_kernels.h"

namespace av {
namespace fast_impl {

template <typename O>
struct Kernels {
  using T = typename O::T;
  using V = typename O::V;
  static constexpr int L = O::kLanes;
  static constexpr int64_t NB = 4 * L;
  static constexpr int64_t kChunk = 128;

  template <int R>
  static void ScoresTile(const T* q, int64_t ldq, const T* kt, int64_t c0, int64_t c1, T* s,
                         int64_t lds, bool first) {
    V acc[R][4];
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 8
      for (int j = 0; j < 4; ++j) acc[r][j] = first ? O::Zero() : O::Load(s + r * lds + j * L);
    for (int64_t c = c0; c < c1; ++c) {
      const T* k = kt + c * NB;
      const V k0 = O::Load(k), k1 = O::Load(k + L), k2 = O::Load(k + 2 * L),
              k3 = O::Load(k + 3 * L);
      #pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const V a = O::Set1(q[r * ldq + c]);
        acc[r][0] = O::Fma(a, k0, acc[r][0]);
        acc[r][1] = O::Fma(a, k1, acc[r][1]);
        acc[r][2] = O::Fma(a, k2, acc[r][2]);
        acc[r][3] = O::Fma(a, k3, acc[r][3]);
      }
    }
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 8
      for (int j = 0; j < 4; ++j) O::Store(s + r * lds + j * L, acc[r][j]);
  }

  static void Scores(const T* q, int64_t ldq, int64_t rows, int64_t d, const T* kt, T* s,
                     int64_t lds) {
    for (int64_t c0 = 0; c0 < d; c0 += kChunk) {
      const int64_t c1 = std::min(d, c0 + kChunk);
      const bool first = c0 == 0;
      int64_t r = 0;
      for (; r + 6 <= rows; r += 6) ScoresTile<6>(q + r * ldq, ldq, kt, c0, c1, s + r * lds, lds, first);
      const T* qr = q + r * ldq;
      T* sr = s + r * lds;
      switch (rows - r) {
        case 5: ScoresTile<5>(qr, ldq, kt, c0, c1, sr, lds, first); break;
        case 4: ScoresTile<4>(qr, ldq, kt, c0, c1, sr, lds, first); break;
        case 3: ScoresTile<3>(qr, ldq, kt, c0, c1, sr, lds, first); break;
        case 2: ScoresTile<2>(qr, ldq, kt, c0, c1, sr, lds, first); break;
        case 1: ScoresTile<1>(qr, ldq, kt, c0, c1, sr, lds, first); break;
        default: break;
      }
    }
  }

  template <int R>
  static void AccumulateTile(const T* p, int64_t ldp, const T* alpha, const T* v, int64_t ldv,
                             T* o, int64_t ldo) {
    V acc[R][4];
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V a = O::Set1(alpha[r]);
      #pragma GCC unroll 8
      for (int j = 0; j < 4; ++j) acc[r][j] = O::Mul(O::Load(o + r * ldo + j * L), a);
    }
    for (int64_t n = 0; n < NB; ++n) {
      const T* vr = v + n * ldv;
      const V v0 = O::Load(vr), v1 = O::Load(vr + L), v2 = O::Load(vr + 2 * L),
              v3 = O::Load(vr + 3 * L);
      #pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const V b = O::Set1(p[r * ldp + n]);
        acc[r][0] = O::Fma(b, v0, acc[r][0]);
        acc[r][1] = O::Fma(b, v1, acc[r][1]);
        acc[r][2] = O::Fma(b, v2, acc[r][2]);
        acc[r][3] = O::Fma(b, v3, acc[r][3]);
      }
    }
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 8
      for (int j = 0; j < 4; ++j) O::Store(o + r * ldo + j * L, acc[r][j]);
  }

  static void Accumulate(const T* p, int64_t ldp, const T* alpha, int64_t rows, const T* v,
                         int64_t ldv, int64_t cols, T* o, int64_t ldo) {
    // Column chunks outermost: one 64-column slice of V (64 keys x 64 floats = 16 KiB)
    // stays in L1 while every row tile passes over it.
    for (int64_t col = 0; col < cols; col += NB) {
      int64_t r = 0;
      for (; r + 6 <= rows; r += 6)
        AccumulateTile<6>(p + r * ldp, ldp, alpha + r, v + col, ldv, o + r * ldo + col, ldo);
      const T* pr = p + r * ldp;
      T* orow = o + r * ldo + col;
      switch (rows - r) {
        case 5: AccumulateTile<5>(pr, ldp, alpha + r, v + col, ldv, orow, ldo); break;
        case 4: AccumulateTile<4>(pr, ldp, alpha + r, v + col, ldv, orow, ldo); break;
        case 3: AccumulateTile<3>(pr, ldp, alpha + r, v + col, ldv, orow, ldo); break;
        case 2: AccumulateTile<2>(pr, ldp, alpha + r, v + col, ldv, orow, ldo); break;
        case 1: AccumulateTile<1>(pr, ldp, alpha + r, v + col, ldv, orow, ldo); break;
        default: break;
      }
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

  static T RowMax(const T* x, int64_t n) {
    V m = O::Load(x);
    for (int64_t i = L; i < n; i += L) m = O::Max(m, O::Load(x + i));
    return O::ReduceMax(m);
  }

  static const BlockKernels<T>& Table(const char* isa) {
    static const BlockKernels<T> table{&Scores, &Accumulate, &ExpSubSum, &RowMax, isa};
    return table;
  }
};

}  // namespace fast_impl
}  // namespace av
