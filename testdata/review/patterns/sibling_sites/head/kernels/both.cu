// The same fix made in both kernels: no site is left.
__global__ void fwd_kernel(const float* x, float* y, int n, int seqlen_k) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < min(n, seqlen_k)) y[tid] = x[tid];
}

__global__ void bwd_kernel(const float* dy, float* dx, int n, int seqlen_k) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < min(n, seqlen_k)) dx[tid] = dy[tid];
}
