#pragma once
#include "attn_fwd_kernel.h"

namespace attn {

#define DEFINE_ATTN_KERNEL(name, ...) \
  template <typename Traits, __VA_ARGS__> \
  __global__ void name(const AttnParams params)

DEFINE_ATTN_KERNEL(attn_fwd_kernel, bool Is_causal) {
  extern __shared__ char smem[];
  compute_attn<Traits, Is_causal>(params, smem);
}

template <typename Traits>
__global__ void attn_combine_kernel(const AttnParams params) {
  __shared__ float lse[Traits::kBlockM][16];
  lse[threadIdx.x % Traits::kBlockM][threadIdx.x % 16] = static_cast<float>(threadIdx.x);
  __syncthreads();
  static_cast<float*>(params.o)[threadIdx.x] = lse[(threadIdx.x + 1) % Traits::kBlockM][0];
}

template <typename Traits, bool Is_causal>
void run_attn_fwd(AttnParams& params, cudaStream_t stream) {
  constexpr size_t smem_size = Traits::kSmemSize;
  dim3 grid((params.seqlen_q + Traits::kBlockM - 1) / Traits::kBlockM, params.b, params.h);
  auto kernel = &attn_fwd_kernel<Traits, Is_causal && Traits::kHeadDim <= 128>;
  if (smem_size >= 48 * 1024) {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_size);
  }
  kernel<<<grid, Traits::kNThreads, smem_size, stream>>>(params);
  attn_combine_kernel<Traits><<<grid, Traits::kNThreads, 0, stream>>>(params);
}

inline void run_attn_fwd_hdim64(AttnParams& params, cudaStream_t stream) {
  run_attn_fwd<KernelTraits<64, 128, 64>, false>(params, stream);
  run_attn_fwd<KernelTraits<64, 128, 64>, true>(params, stream);
}

}  // namespace attn
