// F64Array: a dense, row-major float64 copy of a tensor — the working form of every
// reference oracle, so the oracles read as plain loops over `a(i, j, k)` instead of
// stride arithmetic. Plain data: copy it, share it read-only between threads.
// Loading copies every element (NaN included); reading a value is the oracle's choice,
// which is how an oracle proves it never touches masked or out-of-range entries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

struct F64Array {
  Shape shape;
  std::vector<double> data;

  static F64Array Zeros(Shape shape);

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t dim(int i) const { return shape.at(static_cast<size_t>(i)); }
  int64_t numel() const { return static_cast<int64_t>(data.size()); }

  // Row-major offset of an index; CHECK-fails on a rank mismatch or an index out of range
  // (an oracle bug, never bad input: inputs are validated before the loops run).
  template <typename... I>
  int64_t Offset(I... index) const {
    const int64_t idx[] = {static_cast<int64_t>(index)...};
    CHECK(sizeof...(I) == shape.size())
        << "F64Array: index rank " << sizeof...(I) << " != array rank " << shape.size();
    int64_t offset = 0;
    for (size_t d = 0; d < sizeof...(I); ++d) {
      CHECK(idx[d] >= 0 && idx[d] < shape[d])
          << "F64Array: index " << idx[d] << " out of range for dimension " << d << " of size "
          << shape[d];
      offset = offset * shape[d] + idx[d];
    }
    return offset;
  }
  template <typename... I>
  double operator()(I... index) const {
    return data[static_cast<size_t>(Offset(index...))];
  }
  template <typename... I>
  double& operator()(I... index) {
    return data[static_cast<size_t>(Offset(index...))];
  }
  // Address of a whole innermost row (the last index omitted), for dot products.
  template <typename... I>
  const double* Row(I... index) const {
    return data.data() + Offset(index..., 0);
  }
  template <typename... I>
  double* MutableRow(I... index) {
    return data.data() + Offset(index..., 0);
  }

  // The same elements under a new shape with the same element count.
  F64Array Reshaped(Shape new_shape) const;
  // A tensor of `dtype` holding these values (rounded to nearest even when narrower).
  Tensor ToTensor(DType dtype = DType::kF64) const;
};

// Copies any tensor (any dtype, any strides) into float64.
F64Array LoadF64(const Tensor& tensor);

// LoadF64(tensor).ToTensor(dtype), bit for bit, through a small buffer instead of a whole
// float64 copy: a 4096 x 24576 GEMM result converts with its two tensors alive, not three.
Tensor ConvertTensor(const Tensor& tensor, DType dtype);

// Reads an integer tensor (i8..i64, u8) as int64; InvalidInput naming `what` for any
// other dtype, so a float index tensor is refused rather than truncated.
Result<std::vector<int64_t>> LoadIndices(const Tensor& tensor, const std::string& what);

// "q: expected rank 4 [b, s_q, h_q, d], got [2, 3]" unless `tensor` has rank `rank`.
Status ExpectRank(const Tensor& tensor, int rank, const std::string& what,
                  const std::string& layout);
// InvalidInput unless `tensor` is floating point.
Status ExpectFloating(const Tensor& tensor, const std::string& what);
// InvalidInput unless dimension `dim` of `tensor` equals `expected`.
Status ExpectDim(const Tensor& tensor, int dim, int64_t expected, const std::string& what,
                 const std::string& dim_name);

}  // namespace av
