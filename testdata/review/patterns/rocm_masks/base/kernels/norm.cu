// Synthetic fixture: a ROCm gate added to a kernel whose reductions shuffle with 32-bit masks.
#define NUM_WARPS (1024 / warpSize)

__global__ void norm_kernel(const float* x, float* y) {
  __shared__ float sums[32];
  float s = x[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffff, s, offset);
  if (threadIdx.x % warpSize == 0) sums[threadIdx.x / warpSize] = s;
  __syncthreads();
  s = sums[threadIdx.x % 32];
  y[threadIdx.x] = s;
}
