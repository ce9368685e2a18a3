// Register-level pieces the AVX-512 kernels share: 16 x 16 float and 8 x 8 double
// transposes and the float64 exp. Include only inside an AVX-512 target region, after
// fast_kernels_impl.h (fast_kernels_avx512.cc, fast_attention_tiles_amx.cc); internal
// linkage, so each of those translation units has its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "reference/fast_kernels_impl.h"

namespace av::avx512 {
namespace {

// dst[c * ldd + n] = src[n * lds + c] for n, c < 16: unpack pairs of rows, then pairs of
// pairs, then gather the four 128-bit lanes of each column across the four row groups.
inline void Transpose16(const float* src, int64_t lds, float* dst, int64_t ldd) {
  __m512 r[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * lds);
  __m512 a[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    const __m512d x0 = _mm512_castps_pd(a[4 * i]), x1 = _mm512_castps_pd(a[4 * i + 1]),
                  x2 = _mm512_castps_pd(a[4 * i + 2]), x3 = _mm512_castps_pd(a[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(x0, x2));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(x0, x2));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(x1, x3));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(x1, x3));
  }
// Lane L of r[4 i + k] is column 4 L + k of rows 4 i .. 4 i + 3.
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __m512 c0 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88);
    const __m512 c1 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xdd);
    const __m512 c2 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
    const __m512 c3 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xdd);
    _mm512_storeu_ps(dst + (k + 0) * ldd, _mm512_shuffle_f32x4(c0, c2, 0x88));
    _mm512_storeu_ps(dst + (k + 4) * ldd, _mm512_shuffle_f32x4(c1, c3, 0x88));
    _mm512_storeu_ps(dst + (k + 8) * ldd, _mm512_shuffle_f32x4(c0, c2, 0xdd));
    _mm512_storeu_ps(dst + (k + 12) * ldd, _mm512_shuffle_f32x4(c1, c3, 0xdd));
  }
}

// dst[c * ldd + n] = src[n * lds + c] for n, c < 8: unpack pairs of rows (t), gather
// 128-bit lanes across row pairs (u: columns c and c + 4 of rows 0-3 or 4-7), then
// across the two row halves. Float64 K packing was a scalar loop: 8.2 % of a
// b = 64 MLA sweep's own time (perf).
inline void Transpose8(const double* src, int64_t lds, double* dst, int64_t ldd) {
  __m512d r[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = _mm512_loadu_pd(src + i * lds);
  __m512d t[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
  }
  // u[h * 4 + k]: columns k and k + 4 of rows 4h .. 4h + 3.
  __m512d u[8];
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    u[h * 4 + 0] = _mm512_shuffle_f64x2(t[h * 4 + 0], t[h * 4 + 2], 0x88);
    u[h * 4 + 1] = _mm512_shuffle_f64x2(t[h * 4 + 1], t[h * 4 + 3], 0x88);
    u[h * 4 + 2] = _mm512_shuffle_f64x2(t[h * 4 + 0], t[h * 4 + 2], 0xdd);
    u[h * 4 + 3] = _mm512_shuffle_f64x2(t[h * 4 + 1], t[h * 4 + 3], 0xdd);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    _mm512_storeu_pd(dst + k * ldd, _mm512_shuffle_f64x2(u[k], u[4 + k], 0x88));
    _mm512_storeu_pd(dst + (k + 4) * ldd, _mm512_shuffle_f64x2(u[k], u[4 + k], 0xdd));
  }
}

// The float64 exp of the AVX2 and AVX-512 block kernels (fast_kernels_avx2.cc gives the
// reasons): n = round(x log2 e), r = x - n ln2 in two parts, e^r by Taylor to r^13, then
// p * 2^n by vscalefpd (exact: x >= -708 keeps the result normal), the AVX2 build's bits.
// x < -708 gives exactly 0 (-inf, a masked score, included); NaN stays NaN. It replaced
// libm's exp per lane: on a 2-core Zen 4, float64 causal prefill 46.5 -> 65.5 GFLOP/s and
// MLA decode 62.3 -> 74.6 (s_q = 1), same-run peak ~225.
inline __m512d ExpPd(__m512d x0) {
  const __m512d x = _mm512_min_pd(_mm512_max_pd(x0, _mm512_set1_pd(-708.0)), _mm512_set1_pd(709.0));
  const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(x, _mm512_set1_pd(1.4426950408889634)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(6.93147180369123816490e-01), x);
  r = _mm512_fnmadd_pd(n, _mm512_set1_pd(1.90821492927058770002e-10), r);
  __m512d p = _mm512_set1_pd(1.0 / 6227020800.0);  // 1/13!
  for (double c : fast_impl::kExpInvFact) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(c));
  __m512d y = _mm512_scalef_pd(p, n);
  y = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x0, _mm512_set1_pd(-708.0), _CMP_LT_OQ), y,
                           _mm512_setzero_pd());
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x0, x0, _CMP_UNORD_Q), y, x0);
}

}  // namespace
}  // namespace av::avx512
