// Two kernels over the rows of a matrix: a fix made in one of them only.
#include <cstdint>

constexpr int kBlockRows = 128;

__global__ void scale_rows_kernel(const float* x, float* y, int num_rows, int row_stride,
                                  float alpha) {
  const int64_t row = blockIdx.x;
  if (row >= num_rows) return;
  for (int col = threadIdx.x; col < row_stride; col += blockDim.x) {
    y[row * row_stride + col] = alpha * x[row * row_stride + col];
  }
}

__global__ void shift_rows_kernel(const float* x, float* y, int num_rows, int row_stride,
                                  float beta) {
  const int row = blockIdx.x;
  if (row >= num_rows) return;
  for (int col = threadIdx.x; col < row_stride; col += blockDim.x) {
    y[row * row_stride + col] = x[row * row_stride + col] + beta;
  }
}

__global__ void copy_rows_kernel(const float* x, float* y, int num_rows, int row_stride) {
  const int block_rows = kBlockRows;
  for (int col = threadIdx.x; col < row_stride; col += blockDim.x) {
    const float v = x[col] * block_rows;
    y[col] = v;
    y[row_stride + col] = x[col] * block_rows;
  }
}
