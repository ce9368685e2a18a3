// The portable build of the block kernels (plain arrays the compiler vectorises for the
// baseline ISA; libm exp and fma), and the run-time choice between it, AVX2+FMA and AVX-512.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/fast_kernels.h"
#include "reference/fast_kernels_impl.h"
#include "reference/fast_kernels_loop_ops.h"

namespace av {
namespace {

struct PortableTag {};
template <typename T>
using PortableOps = fast_impl::LoopOps<T, PortableTag>;

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
  static const bool has_fma = __builtin_cpu_supports("fma");
  static const bool has_avx512 = has_fma && __builtin_cpu_supports("avx512f");
  static const bool has_avx2 = has_fma && __builtin_cpu_supports("avx2");
  if (!allow_avx512) return PortableBlockKernels<T>();
  return has_avx512 ? Avx512BlockKernels<T>() : has_avx2 ? Avx2BlockKernels<T>() : PortableBlockKernels<T>();
}
template const BlockKernels<float>& GetBlockKernels<float>(bool);
template const BlockKernels<double>& GetBlockKernels<double>(bool);

}  // namespace av
