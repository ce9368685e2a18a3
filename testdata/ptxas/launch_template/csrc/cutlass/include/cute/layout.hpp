#pragma once
namespace cute {
template <class Kernel>
__global__ void cute_copy_kernel(float* out) { out[threadIdx.x] = 0.f; }
template <class Kernel>
void cute_copy(float* out, cudaStream_t stream) { cute_copy_kernel<Kernel><<<1, 32>>>(out); }
}  // namespace cute
