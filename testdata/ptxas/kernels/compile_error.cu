// An ordinary compile error: nvcc reports it as FILE(LINE): error: ...
__global__ void broken_kernel(float* out) {
  out[threadIdx.x] = undefined_value;
}
