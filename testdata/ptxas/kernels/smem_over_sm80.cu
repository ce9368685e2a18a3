// 64 KiB of static shared memory: over the 48 KiB static limit on sm_80 (ptxas error),
// within the 227 KiB limit on sm_90a.
__global__ void big_static_smem(float* out) {
  __shared__ float buf[16384];  // 65536 bytes
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x * 7) & 16383];
}
