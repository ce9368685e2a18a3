// A non-inlined device function (its own "Function properties" block, no entry) and a
// kernel with __launch_bounds__ that caps registers.
__device__ __noinline__ float helper_poly(const float* p, int n) {
  float acc[16];
  for (int k = 0; k < 16; ++k) acc[k] = p[(k * 5) % n];
  float s = 0.f;
  for (int k = 0; k < 16; ++k) s = s * acc[k] + acc[(k * 3) & 15];
  return s;
}

__global__ void __launch_bounds__(1024, 2) bounded_kernel(const float* in, float* out, int n) {
  out[threadIdx.x] = helper_poly(in + threadIdx.x, n);
}
