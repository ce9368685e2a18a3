// Tensor: a typed, strided view of bytes held by a shared Buffer (owned memory or a
// memory-mapped file, so tensors read from files are not copied). Views (Slice,
// Permute, Reshape) share the buffer. Strides and offset count elements, as in PyTorch.
// Reading a Tensor from many threads is safe; writing is only for tensors made by
// Tensor::Zeros before they are shared.
// Element bytes may be unaligned (safetensors does not align), so typed access copies
// through memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/status.h"
#include "tensor/dtype.h"

namespace av {

using Shape = std::vector<int64_t>;

// Elements in `shape`, or an error if a dimension is negative or the product overflows
// int64 (used by every parser before trusting a shape from a file).
Result<int64_t> CheckedNumel(std::span<const int64_t> shape);
// "[2, 3, 4]"
std::string ShapeToString(std::span<const int64_t> shape);
// Row-major (C order) strides for `shape`, in elements.
Shape ContiguousStrides(std::span<const int64_t> shape);

class Tensor {
 public:
  Tensor() = default;

  // A contiguous, zero-filled tensor that owns its memory. CHECK-fails on a bad shape
  // (callers validate shapes from files first).
  static Tensor Zeros(DType dtype, Shape shape);

  // A view of `buffer` starting at `byte_offset`. Checks that every addressed byte lies
  // inside the buffer, that strides are non-negative, and that sizes do not overflow.
  static Result<Tensor> FromBuffer(std::shared_ptr<const Buffer> buffer, size_t byte_offset,
                                   DType dtype, Shape shape, Shape strides);
  // Contiguous (row-major) view.
  static Result<Tensor> FromBuffer(std::shared_ptr<const Buffer> buffer, size_t byte_offset,
                                   DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return numel_; }
  int64_t dim(int i) const { return shape_.at(static_cast<size_t>(i)); }
  size_t element_size() const { return DTypeSize(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  bool is_contiguous() const;
  bool defined() const { return buffer_ != nullptr; }
  const std::shared_ptr<const Buffer>& buffer() const { return buffer_; }

  // Address of the element at index (0, ..., 0).
  const std::byte* data() const { return base_; }
  // Writable address; CHECK-fails unless the tensor owns writable memory.
  std::byte* mutable_data();

  // Byte offset from data() of the element at `index` (no bounds check beyond CHECK).
  int64_t ByteOffset(std::span<const int64_t> index) const;
  // Multi-index of the `linear`-th element in row-major order of the logical shape.
  std::vector<int64_t> Unravel(int64_t linear) const;

  template <typename T>
  T At(std::span<const int64_t> index) const {
    CHECK(sizeof(T) == element_size()) << "At<T>: T does not match dtype " << DTypeName(dtype_);
    T value;
    std::memcpy(&value, base_ + ByteOffset(index), sizeof(T));
    return value;
  }
  template <typename T>
  void Set(std::span<const int64_t> index, T value) {
    CHECK(sizeof(T) == element_size()) << "Set<T>: T does not match dtype " << DTypeName(dtype_);
    std::memcpy(mutable_data() + ByteOffset(index), &value, sizeof(T));
  }
  // The element's value, exactly, as a double (every supported dtype fits except i64
  // beyond 2^53, which rounds to nearest).
  double GetDouble(std::span<const int64_t> index) const;
  // Stores `value` converted to the dtype (floating: round to nearest even; integers:
  // truncation toward zero, saturating; bool: value != 0).
  void SetDouble(std::span<const int64_t> index, double value);

  // Views. Errors name the dimension and the offending value.
  Result<Tensor> Slice(int dim, int64_t start, int64_t stop, int64_t step = 1) const;
  Result<Tensor> Permute(std::span<const int> order) const;
  // Only for contiguous tensors; otherwise call Contiguous() first (which copies).
  Result<Tensor> Reshape(Shape shape) const;
  // A contiguous copy that owns its memory (or *this when already contiguous and owned).
  Tensor Contiguous() const;

 private:
  Tensor(std::shared_ptr<const Buffer> buffer, const std::byte* base, DType dtype, Shape shape,
         Shape strides);

  std::shared_ptr<const Buffer> buffer_;
  const std::byte* base_ = nullptr;
  DType dtype_ = DType::kF32;
  Shape shape_;
  Shape strides_;
  int64_t numel_ = 0;
};

// Converts `count` elements of `dtype` starting at `src`, `stride_bytes` apart, to double.
// The building block of every bulk read (comparison, metrics).
void LoadAsDouble(DType dtype, const std::byte* src, int64_t stride_bytes, int64_t count,
                  double* out);
double LoadOneAsDouble(DType dtype, const std::byte* src);
void StoreFromDouble(DType dtype, double value, std::byte* dst);

}  // namespace av
