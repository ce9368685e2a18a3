// Forced spills: many live values under -maxrregcount=32.
__global__ void spill_kernel(const float* __restrict__ in, float* __restrict__ out) {
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) acc[k] = in[threadIdx.x * 48 + k];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + 7) % 48] + acc[(k + 13) % 48];
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 48; ++k) s += acc[k] * (k + 1);
  out[threadIdx.x] = s;
}
