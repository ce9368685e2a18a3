// The inner block kernels of the fast attention and GEMM paths: a score block S = Q Kᵀ
// (Q row-major, K packed channel-major), the online-softmax step exp(s - m) with its sum,
// the row maximum, and the output update O = diag(alpha) O + P V. Three builds of the same
// code (fast_kernels_impl.h): AVX-512F intrinsics, plain loops compiled for AVX2+FMA, and
// the same loops for the baseline ISA; GetBlockKernels picks the best the CPU has at run
// time.
// Every kernel is a fixed sequence of operations for given sizes, so results depend only
// on the inputs, never on the thread that runs them. Stateless; callable from any thread.
#pragma once

#include <cstdint>

namespace av {

// Keys per block (the packed width of K): four 64-byte vectors — 64 floats, 32 doubles.
template <typename T>
inline constexpr int64_t kKeyBlock = 256 / static_cast<int64_t>(sizeof(T));

template <typename T>
struct BlockKernels {
  // s[r][n] = sum_c q[r * ldq + c] * kt[c * kKeyBlock + n] for r < rows, n < kKeyBlock,
  // c < d; s has row stride lds and is overwritten.
  void (*scores)(const T* q, int64_t ldq, int64_t rows, int64_t d, const T* kt, T* s, int64_t lds);
  // o[r][c] = alpha[r] * o[r][c] + sum_n p[r * ldp + n] * v[n * ldv + c] for r < rows,
  // c < cols (a multiple of kKeyBlock), n < kKeyBlock.
  void (*accumulate)(const T* p, int64_t ldp, const T* alpha, int64_t rows, const T* v, int64_t ldv,
                     int64_t cols, T* o, int64_t ldo);
  // One online-softmax step on a row of scores x[i], i < n (a multiple of kKeyBlock), with
  // the running max *m and sum *l: m' = max(*m, max_i x[i]); x[i] = exp(x[i] - m') (x = -inf
  // gives exactly 0); *l = alpha *l + sum_i x[i]; *m = m'; returns alpha = exp(*m - m'),
  // exactly 1 when the max did not change. While m' is -inf (nothing visible yet) x is
  // zeroed, *m and *l stay, and alpha is 1.
  T (*softmax_step)(T* x, int64_t n, T* m, T* l);
  // kt[c * kKeyBlock + n] = rows[n * ld + c] for n < keys (a multiple of 16), c < d: packs
  // gathered keys channel-major for `scores` (kt may point into the middle of a block).
  void (*pack_kt)(const T* rows, int64_t ld, int64_t d, int64_t keys, T* kt);
  const char* isa;  // "avx512", "avx2" or "portable"
};

// When allowed, AVX-512 if the CPU has AVX-512F and FMA, else AVX2+FMA if it has those;
// the portable build otherwise, and always when not allowed (tests compare the builds).
template <typename T>
const BlockKernels<T>& GetBlockKernels(bool allow_avx512 = true);

// The per-ISA tables (fast_kernels_avx512.cc, fast_kernels_avx2.cc,
// fast_kernels_portable.cc).
template <typename T>
const BlockKernels<T>& Avx512BlockKernels();
template <typename T>
const BlockKernels<T>& Avx2BlockKernels();
template <typename T>
const BlockKernels<T>& PortableBlockKernels();

}  // namespace av
