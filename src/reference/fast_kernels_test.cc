// The block kernels of every build this CPU can run (portable, AVX2+FMA, AVX-512) against
// plain loops in long double: scores, accumulate, the softmax step (its exp included, near
// and past the underflow edge, -inf and NaN) and the packed K layout.
#include "reference/fast_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace av {
namespace {

template <typename T>
std::vector<const BlockKernels<T>*> Builds() {
  std::vector<const BlockKernels<T>*> out{&PortableBlockKernels<T>()};
  const bool fma = __builtin_cpu_supports("fma");
  if (fma && __builtin_cpu_supports("avx2")) out.push_back(&Avx2BlockKernels<T>());
  if (fma && __builtin_cpu_supports("avx512f")) out.push_back(&Avx512BlockKernels<T>());
  return out;
}

template <typename T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> nd;
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(nd(g));
  return v;
}

// Relative to the row's sum of |terms|: the rounding a float or double sum can have.
template <typename T>
constexpr double kSumBound = sizeof(T) == 4 ? 1e-6 : 1e-14;

template <typename T>
void CheckScoresAndAccumulate() {
  constexpr int64_t NB = kKeyBlock<T>;
  for (const BlockKernels<T>* k : Builds<T>()) {
    SCOPED_TRACE(k->isa);
    for (int64_t rows : {1, 5, 7, 13, 128}) {
      // d not a multiple of the chunk (and, for odd row counts, of the 8 or 16-wide
      // register transposes), rows strided
      const int64_t d = rows % 2 ? 203 : 200, ld = 211;
      std::vector<T> q = Random<T>(rows * ld, 1), keys = Random<T>(NB * ld, 2);
      std::vector<T> kt(d * NB);
      for (int64_t n0 = 0; n0 < NB; n0 += 16) k->pack_kt(&keys[n0 * ld], ld, d, 16, kt.data(), n0);
      for (int64_t c = 0; c < d; ++c)
        for (int64_t n = 0; n < NB; ++n)
          ASSERT_EQ(kt[PackedIndex(k->group, d, c, n)], keys[n * ld + c]) << c << " " << n;
      std::vector<T> s(rows * NB);
      k->scores(q.data(), ld, rows, d, kt.data(), s.data());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t n = 0; n < NB; ++n) {
          long double want = 0, mag = 0;
          for (int64_t c = 0; c < d; ++c) {
            want += (long double)q[r * ld + c] * keys[n * ld + c];
            mag += std::fabs((long double)q[r * ld + c] * keys[n * ld + c]);
          }
          ASSERT_LE(std::fabs((double)(s[r * NB + n] - want)), kSumBound<T> * (double)mag)
              << "scores row " << r << " key " << n;
        }
      const int64_t cols = 2 * NB, ldo = cols + 3;
      std::vector<T> o = Random<T>(rows * ldo, 3), alpha = Random<T>(rows, 4), o0 = o;
      const int64_t ldv = cols + 5;
      std::vector<T> v = Random<T>(NB * ldv, 5);
      k->accumulate(s.data(), alpha.data(), rows, v.data(), ldv, cols, o.data(), ldo);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          long double want = (long double)alpha[r] * o0[r * ldo + c];
          long double mag = std::fabs(want);
          for (int64_t n = 0; n < NB; ++n) {
            want += (long double)s[r * NB + n] * v[n * ldv + c];
            mag += std::fabs((long double)s[r * NB + n] * v[n * ldv + c]);
          }
          ASSERT_LE(std::fabs((double)(o[r * ldo + c] - want)), kSumBound<T> * (double)mag)
              << "accumulate row " << r << " col " << c;
        }
    }
  }
}

TEST(FastKernelsTest, ScoresAccumulateAndPackingMatchPlainLoopsFloat) {
  CheckScoresAndAccumulate<float>();
}
TEST(FastKernelsTest, ScoresAccumulateAndPackingMatchPlainLoopsDouble) {
  CheckScoresAndAccumulate<double>();
}

// exp(x - max) over the whole range the softmax feeds it: within a few ulp of libm where
// the result is a normal number, exactly 0 for -inf, 0 or libm's tiny value past the
// underflow edge, NaN for NaN; the running sum and max as documented.
template <typename T>
void CheckSoftmaxStep() {
  constexpr int64_t NB = kKeyBlock<T>;
  constexpr T kInf = std::numeric_limits<T>::infinity();
  const double ulps = 4;
  const double eps = std::numeric_limits<T>::epsilon();
  const double edge = sizeof(T) == 4 ? -87.0 : -708.0;  // below: the result may flush to 0
  for (const BlockKernels<T>* k : Builds<T>()) {
    SCOPED_TRACE(k->isa);
    std::mt19937 g(7);
    std::uniform_real_distribution<double> u(edge * 1.02, 0.0);
    for (int rep = 0; rep < 200; ++rep) {
      std::vector<T> x(NB);
      for (T& e : x) e = static_cast<T>(u(g));
      x[0] = 0;  // the max
      x[1] = -kInf;
      x[2] = static_cast<T>(edge + 0.5);
      x[3] = static_cast<T>(edge - 0.5);
      x[4] = static_cast<T>(-1e-30);
      const std::vector<T> in = x;
      T m = -kInf, l = 0;
      const T alpha = k->softmax_step(x.data(), NB, &m, &l);
      ASSERT_EQ(alpha, T(0));  // exp(-inf - 0): the old (empty) state counts nothing
      ASSERT_EQ(m, T(0));
      ASSERT_EQ(x[1], T(0)) << "-inf must give exactly 0";
      long double sum = 0;
      for (int64_t i = 0; i < NB; ++i) {
        const double want = std::exp(static_cast<double>(in[i]));
        sum += x[i];
        if (in[i] < edge) {
          ASSERT_LE(static_cast<double>(x[i]),
                    want * (1 + ulps * eps) + (sizeof(T) == 4 ? 1e-44 : 1e-300))
              << in[i];
          continue;
        }
        ASSERT_NEAR(static_cast<double>(x[i]), want, ulps * eps * want) << "exp(" << in[i] << ")";
      }
      ASSERT_NEAR(static_cast<double>(l), static_cast<double>(sum), 64 * eps * (double)sum);
    }
    std::vector<T> x(NB, T(-1));
    x[5] = std::numeric_limits<T>::quiet_NaN();
    T m = T(0), l = T(1);
    k->softmax_step(x.data(), NB, &m, &l);
    EXPECT_TRUE(std::isnan(x[5])) << "NaN must stay NaN";
  }
}

TEST(FastKernelsTest, SoftmaxStepExpMatchesLibmFloat) { CheckSoftmaxStep<float>(); }
TEST(FastKernelsTest, SoftmaxStepExpMatchesLibmDouble) { CheckSoftmaxStep<double>(); }

// The AVX-512 and AVX2 float64 exps are one algorithm (2^n by vscalefpd or through the
// exponent field, both exact while the result is normal), so the two builds' softmax steps
// give the same bits for every input, the flush below -708 included. (Their running sums
// may differ: 8 lanes and 4 add in different orders.)
TEST(FastKernelsTest, Avx512AndAvx2DoubleExpAgreeBitwise) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx2") ||
      !__builtin_cpu_supports("fma")) {
    GTEST_SKIP() << "this CPU lacks AVX-512F or AVX2 + FMA";
  }
  constexpr int64_t NB = kKeyBlock<double>;
  std::mt19937 g(8);
  std::uniform_real_distribution<double> u(-720.0, 0.0);
  for (int rep = 0; rep < 500; ++rep) {
    std::vector<double> a(NB);
    for (double& e : a) e = u(g);
    a[0] = 0;
    a[1] = -std::numeric_limits<double>::infinity();
    std::vector<double> b = a;
    double ma = -std::numeric_limits<double>::infinity(), la = 0, mb = ma, lb = 0;
    Avx512BlockKernels<double>().softmax_step(a.data(), NB, &ma, &la);
    Avx2BlockKernels<double>().softmax_step(b.data(), NB, &mb, &lb);
    for (int64_t i = 0; i < NB; ++i) ASSERT_EQ(a[i], b[i]) << "rep " << rep << " lane " << i;
  }
}

}  // namespace
}  // namespace av
