#include <cuda_runtime.h>

void Launch(int* locks, float* out, int cols, cudaStream_t stream) {
  cudaMemset(locks, 0, 4 * cols);
  Kernel<<<cols, 256, 0, stream>>>(locks, out);
}

void LaunchTwice(int* flags, float* out, int n, cudaStream_t stream) {
  Kernel<<<n, 256, 0, stream>>>(flags, out);
  cudaMemsetAsync(flags, 0, 4 * n, stream);
  Kernel<<<n, 256, 0, stream>>>(flags, out);
}
