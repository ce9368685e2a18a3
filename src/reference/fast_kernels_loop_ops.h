// The block kernels' vector operations written as plain loops over one 64-byte "vector"
// of lanes, for the compiler to vectorise for the baseline ISA (fast_kernels_portable.cc;
// std::fma is a libm call per lane there, so it is the correctness build for CPUs without
// FMA, not a fast one). `Tag` is a type local to the including file, so a build is a
// distinct instantiation the linker can never mix with another. (The AVX2 build used these
// loops until it had its own intrinsics: they ran at 1/60 of the FMA peak.)
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace av::fast_impl {

template <typename Scalar, typename Tag>
struct LoopOps {
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

}  // namespace av::fast_impl
