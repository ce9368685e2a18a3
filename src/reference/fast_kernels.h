// The inner block kernels of the fast attention and GEMM paths: a score block S = Q Kᵀ
// (Q row-major, K packed channel-major), the online-softmax step exp(s - m) with its sum,
// the row maximum, and the output update O = diag(alpha) O + P V. Three builds of the same
// code (fast_kernels_impl.h): AVX-512F intrinsics, AVX2+FMA intrinsics, and plain loops
// for the baseline ISA; GetBlockKernels picks the best the CPU has at run time.
// Every kernel is a fixed sequence of operations for given sizes, so results depend only
// on the inputs, never on the thread that runs them. Stateless; callable from any thread.
#pragma once

#include <cstdint>

namespace av {

// Keys per block (the packed width of K): 64 in both precisions (256 bytes of floats, 512
// of doubles). Doubles had 32 (256 bytes) until the AVX2 kernels: each register tile's
// set-up (load O, scale by alpha, store) then fed only 32 multiply-add steps, and doubling
// the block made float64 MLA decode about 1.1 times faster (cpu_frac 0.18 -> 0.20).
template <typename T>
inline constexpr int64_t kKeyBlock = 64;

template <typename T>
struct BlockKernels {
  // s[r * kKeyBlock + n] = sum_c q[r * ldq + c] * kt[PackedIndex(group, d, c, n)] for
  // r < rows, n < kKeyBlock, c < d; s is overwritten. (Score rows are exactly one key block wide:
  // a compile-time stride keeps the register tiles' addressing off the general registers.)
  void (*scores)(const T* q, int64_t ldq, int64_t rows, int64_t d, const T* kt, T* s);
  // o[r][c] = alpha[r] * o[r][c] + sum_n p[r * kKeyBlock + n] * v[n * ldv + c] for
  // r < rows, c < cols (a multiple of kKeyBlock), n < kKeyBlock.
  void (*accumulate)(const T* p, const T* alpha, int64_t rows, const T* v, int64_t ldv,
                     int64_t cols, T* o, int64_t ldo);
  // One online-softmax step on a row of scores x[i], i < n (a multiple of kKeyBlock), with
  // the running max *m and sum *l: m' = max(*m, max_i x[i]); x[i] = exp(x[i] - m') (x = -inf
  // gives exactly 0); *l = alpha *l + sum_i x[i]; *m = m'; returns alpha = exp(*m - m'),
  // exactly 1 when the max did not change. While m' is -inf (nothing visible yet) x is
  // zeroed, *m and *l stay, and alpha is 1.
  T (*softmax_step)(T* x, int64_t n, T* m, T* l);
  // kt[PackedIndex(group, d, c, n0 + n)] = rows[n * ld + c] for n < keys (a multiple of
  // 16, n0 too), c < d: packs gathered keys channel-major for `scores`.
  void (*pack_kt)(const T* rows, int64_t ld, int64_t d, int64_t keys, T* kt, int64_t n0);
  const char* isa;  // "avx512", "avx2" or "portable"
  int64_t group;    // keys per packed panel (a divisor of kKeyBlock): PackedIndex
};

// Where key n's channel c lives in a packed block of d channels: panels of `group` keys,
// each channel-major ([n / group][c][n % group]), so the slice one register tile reads is
// contiguous (with AVX2's 8-double tiles, one [d][64] panel put a chunk's rows 512 bytes
// apart: 8 of L1's 64 sets, and the chunk did not fit).
inline int64_t PackedIndex(int64_t group, int64_t d, int64_t c, int64_t n) {
  return (n / group) * (d * group) + c * group + n % group;
}

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
