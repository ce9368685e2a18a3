// Dynamic shared memory set with a compile-time constant: attnverify reports the
// cudaFuncSetAttribute value as a finding (the config should declare it).
#include <cuda_runtime.h>

constexpr int kDynSmemBytes = 200 * 1024;

__global__ void dyn_attn(const float* in, float* out) {
  extern __shared__ float smem[];
  smem[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = smem[blockDim.x - 1 - threadIdx.x];
}

void launch_dyn_attn(const float* in, float* out, cudaStream_t stream) {
  cudaFuncSetAttribute(dyn_attn, cudaFuncAttributeMaxDynamicSharedMemorySize, kDynSmemBytes);
  dyn_attn<<<1, 256, kDynSmemBytes, stream>>>(in, out);
}
