// Register transposes for the AVX-512 kernels: 16 x 16 floats and 8 x 8 doubles. Include
// only inside an AVX-512 target region (fast_kernels_avx512.cc, fast_attention_tiles_amx.cc);
// internal linkage, so each of those translation units has its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

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

}  // namespace
}  // namespace av::avx512
