// The portable build of the block kernels (plain arrays the compiler vectorises for the
// baseline ISA; libm exp), and the run-time choice between it and AVX-512.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/fast_kernels.h"
#include "reference/fast_kernels_impl.h"

namespace av {
namespace {

template <typename Scalar>
struct PortableOps {
  using T = Scalar;
  static constexpr int kLanes = 64 / sizeof(T);
  struct V {
    T x[kLanes];
  };
  static V Load(const T* p) {
    V v;
    for (int i = 0; i < kLanes; ++i) v.x[i] = p[i];
    return v;
  }
  static void Store(T* p, V v) {
    for (int i = 0; i < kLanes; ++i) p[i] = v.x[i];
  }
  static V Set1(T a) {
    V v;
    for (int i = 0; i < kLanes; ++i) v.x[i] = a;
    return v;
  }
  static V Zero() { return Set1(0); }
  static V Fma(V a, V b, V c) {
    for (int i = 0; i < kLanes; ++i) c.x[i] = std::fma(a.x[i], b.x[i], c.x[i]);
    return c;
  }
  static V Mul(V a, V b) {
    for (int i = 0; i < kLanes; ++i) a.x[i] *= b.x[i];
    return a;
  }
  static V Add(V a, V b) {
    for (int i = 0; i < kLanes; ++i) a.x[i] += b.x[i];
    return a;
  }
  static V Sub(V a, V b) {
    for (int i = 0; i < kLanes; ++i) a.x[i] -= b.x[i];
    return a;
  }
  static V Max(V a, V b) {
    for (int i = 0; i < kLanes; ++i) a.x[i] = std::max(a.x[i], b.x[i]);
    return a;
  }
  static T ReduceAdd(V v) {
    T s = 0;
    for (int i = 0; i < kLanes; ++i) s += v.x[i];
    return s;
  }
  static T ReduceMax(V v) {
    T m = -std::numeric_limits<T>::infinity();
    for (int i = 0; i < kLanes; ++i) m = std::max(m, v.x[i]);
    return m;
  }
  static V Exp(V v) {
    for (int i = 0; i < kLanes; ++i) v.x[i] = std::exp(v.x[i]);
    return v;
  }
};

}  // namespace

template <>
const BlockKernels<float>& PortableBlockKernels<float>() {
  return fast_impl::Kernels<PortableOps<float>>::Table("portable");
}
template <>
const BlockKernels<double>& PortableBlockKernels<double>() {
  return fast_impl::Kernels<PortableOps<double>>::Table("portable");
}

template <typename T>
const BlockKernels<T>& GetBlockKernels(bool allow_avx512) {
  static const bool has_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return allow_avx512 && has_avx512 ? Avx512BlockKernels<T>() : PortableBlockKernels<T>();
}
template const BlockKernels<float>& GetBlockKernels<float>(bool);
template const BlockKernels<double>& GetBlockKernels<double>(bool);

}  // namespace av
