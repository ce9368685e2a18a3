// Synthetic fixture: a barrier added to one kernel; its twin returns early before its own.
__global__ void reconstruct_a_kernel(const int* perm_in, float* out, int size_n) {
  __shared__ int perm[256];
  int t = threadIdx.x;
  perm[t] = perm_in[t];
  __syncthreads();
  int n = blockIdx.x * 256 + t;
  if (n >= size_n) return;
  out[n] = perm[(t + 1) % 256];
}

__global__ void reconstruct_b_kernel(const int* perm_in, float* out, int size_n) {
  __shared__ int perm[256];
  int t = threadIdx.x;
  perm[t] = perm_in[t];
  int n = blockIdx.x * 256 + t;
  if (n >= size_n) return;
  __syncthreads();
  out[n] = perm[(t + 1) % 256];
}

__global__ void reconstruct_c_kernel(const int* perm_in, float* out, int size_n) {
  __shared__ int perm[256];
  if (blockIdx.x * 256 >= size_n) return;
  perm[threadIdx.x] = perm_in[threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = perm[(threadIdx.x + 1) % 256];
}
