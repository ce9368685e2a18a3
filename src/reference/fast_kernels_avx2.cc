// The AVX2+FMA build of the block kernels: fast_kernels_loop_ops.h's plain loops compiled
// for AVX2 and FMA, so each lane's fused multiply-add is one instruction (in the baseline
// build std::fma is a libm call per lane, which made the fast path run at about 1/200 of
// this machine's FMA peak on CPUs without AVX-512). Only called after
// __builtin_cpu_supports said yes to both (fast_kernels_portable.cc, GetBlockKernels).
// The standard headers come before the target region, so nothing outside this file is
// ever compiled for AVX2.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "reference/fast_kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#include "reference/fast_kernels_impl.h"
#include "reference/fast_kernels_loop_ops.h"

namespace av {
namespace {

struct Avx2Tag {};
template <typename T>
using Avx2Ops = fast_impl::LoopOps<T, Avx2Tag>;

}  // namespace

template <>
const BlockKernels<float>& Avx2BlockKernels<float>() {
  return fast_impl::Kernels<Avx2Ops<float>>::Table("avx2");
}
template <>
const BlockKernels<double>& Avx2BlockKernels<double>() {
  return fast_impl::Kernels<Avx2Ops<double>>::Table("avx2");
}

}  // namespace av
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
