// Several kernels and templates in one file: compiled for two archs in one command.
// Used by ptxas_log tests (testdata/ptxas_log/multi_two_archs.log).
#include <cuda_runtime.h>

__device__ float g_scale_table[64];  // gmem: shows up as "bytes gmem" in the ptxas log

template <int kTile>
__global__ void tile_copy(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile * 32];  // kTile*128 bytes of static shared memory
  int i = blockIdx.x * kTile + threadIdx.x;
  if (i < n) tile[threadIdx.x] = in[i] * g_scale_table[threadIdx.x & 63];
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % kTile];
}

__global__ void scale_kernel(float* data, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= alpha;
}

// Dynamic shared memory only: ptxas reports 0 bytes smem; the config supplies the size.
__global__ void dyn_reduce(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

template __global__ void tile_copy<64>(const float*, float*, int);
template __global__ void tile_copy<128>(const float*, float*, int);
