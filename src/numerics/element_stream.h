// ElementStream: reads a tensor's elements as doubles, in row-major order of its
// logical shape, a chunk at a time, whatever its strides (Fortran-order npy, slices).
// Contiguous tensors are read as one flat run. One stream per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace av {

class ElementStream {
 public:
  explicit ElementStream(const Tensor& tensor);

  // Fills out[0..n) with the next n <= max elements; returns n (0 at the end).
  int64_t Next(double* out, int64_t max);
  // Like Next, but fills all `max` slots unless the tensor ends first, so chunk
  // boundaries fall at the same linear indices whatever the strides (sums taken per
  // chunk are then bitwise identical for a tensor and its strided copy).
  int64_t Fill(double* out, int64_t max);
  // Linear (row-major) index of the next element to be read.
  int64_t position() const { return position_; }

 private:
  const Tensor& tensor_;
  int64_t position_ = 0;
  bool flat_;
  // Strided case: index of the current row over all but the last dimension,
  // and the offset within that row.
  std::vector<int64_t> row_index_;
  int64_t in_row_ = 0;
};

}  // namespace av
