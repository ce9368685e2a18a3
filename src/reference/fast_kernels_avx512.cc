// The AVX-512F build of the block kernels. Everything after the target pragma is compiled
// for AVX-512F + FMA; it is only called after __builtin_cpu_supports("avx512f") said yes
// (fast_kernels_portable.cc, GetBlockKernels).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "reference/fast_kernels.h"

// GCC takes the target from a pragma; clang ignores that pragma and needs the target
// attribute applied to every function in the region instead (the fuzz build uses clang).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
#endif
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() values, which its own
// -Wuninitialized then reports inside <avx512fintrin.h>; the warning is about the
// header, not this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "reference/avx512_common.h"
#include "reference/fast_kernels_impl.h"

namespace av {
namespace {

struct Avx512F32 {
  using T = float;
  using V = __m512;
  static constexpr int kLanes = 16;
  static V Load(const T* p) { return _mm512_loadu_ps(p); }
  static void Store(T* p, V v) { _mm512_storeu_ps(p, v); }
  static V Set1(T x) { return _mm512_set1_ps(x); }
  static V Zero() { return _mm512_setzero_ps(); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static T ReduceAdd(V v) { return _mm512_reduce_add_ps(v); }
  static T ReduceMax(V v) { return _mm512_reduce_max_ps(v); }
  static void Transpose16(const T* src, int64_t lds, T* dst, int64_t ldd) {
    avx512::Transpose16(src, lds, dst, ldd);
  }
  // exp(x) = 2^n e^r, n = round(x log2 e), |r| <= ln2 / 2, e^r by Cephes' expf polynomial
  // (about 1 ulp). Inputs are clamped to [-150, 88.7]: exp(-150) scales by 2^-216 and
  // flushes to exactly 0, so -inf (a masked score) contributes exactly nothing. NaN stays
  // NaN: the clamp would turn it into -150 (vmaxps returns its second operand for a NaN),
  // so NaN lanes take x back at the end (FastKernelsTest.SoftmaxStepExpMatchesLibmFloat
  // found this the first time it ran on an AVX-512 machine).
  static V Exp(V x0) {
    V x = _mm512_max_ps(x0, _mm512_set1_ps(-150.0f));
    x = _mm512_min_ps(x, _mm512_set1_ps(88.7f));
    const V n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(fast_impl::kExpfLog2e)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    V r = _mm512_fnmadd_ps(n, _mm512_set1_ps(fast_impl::kExpfLn2Hi), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(fast_impl::kExpfLn2Lo), r);
    V p = _mm512_set1_ps(fast_impl::kExpfPoly[0]);
    for (int i = 1; i < 6; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(fast_impl::kExpfPoly[i]));
    const V r2 = _mm512_mul_ps(r, r);
    const V y = _mm512_add_ps(_mm512_fmadd_ps(p, r2, r), _mm512_set1_ps(1.0f));
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q), _mm512_scalef_ps(y, n),
                                x0);
  }
};

struct Avx512F64 {
  using T = double;
  using V = __m512d;
  static constexpr int kLanes = 8;
  static V Load(const T* p) { return _mm512_loadu_pd(p); }
  static void Store(T* p, V v) { _mm512_storeu_pd(p, v); }
  static V Set1(T x) { return _mm512_set1_pd(x); }
  static V Zero() { return _mm512_setzero_pd(); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V Mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V Add(V a, V b) { return _mm512_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V Max(V a, V b) { return _mm512_max_pd(a, b); }
  static T ReduceAdd(V v) { return _mm512_reduce_add_pd(v); }
  static T ReduceMax(V v) { return _mm512_reduce_max_pd(v); }
  // Float64 K packing was a scalar loop: 8.2 % of a b = 64 MLA sweep's own time (perf).
  static void Transpose8(const T* src, int64_t lds, T* dst, int64_t ldd) {
    avx512::Transpose8(src, lds, dst, ldd);
  }
  // The AVX2 policy's float64 exp on 8 lanes, the same bits (avx512_common.h).
  static V Exp(V x0) { return avx512::ExpPd(x0); }
};

}  // namespace

template <>
const BlockKernels<float>& Avx512BlockKernels<float>() {
  return fast_impl::Kernels<Avx512F32>::Table("avx512");
}
template <>
const BlockKernels<double>& Avx512BlockKernels<double>() {
  return fast_impl::Kernels<Avx512F64>::Table("avx512");
}

}  // namespace av
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
