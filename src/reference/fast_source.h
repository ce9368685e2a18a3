// RowSource: read access to a [rows..., heads, channels] tensor of any floating dtype and
// any strides, as "row r, head h" vectors converted to float or double — how the fast
// paths gather Q, K and V rows (a paged cache's blocks included: row = block * page +
// offset) into contiguous scratch without first copying the whole tensor.
// Leading dimensions are flattened into one row index; a tensor whose leading dimensions
// cannot be flattened by strides alone is copied once. Read-only; share between threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

class RowSource {
 public:
  RowSource() = default;
  // t: rank >= 2, floating; the last two dimensions are heads and channels.
  static Result<RowSource> Make(const Tensor& t, const char* what);

  int64_t channels() const { return channels_; }

  // out[c] = scale * t[row, head, c] for c < n (n <= channels).
  template <typename T>
  void Read(int64_t row, int64_t head, int64_t n, T scale, T* out) const;

 private:
  Tensor holder_;  // keeps the buffer (or the contiguous copy) alive
  const std::byte* base_ = nullptr;
  DType dtype_ = DType::kF32;
  int64_t row_stride_ = 0, head_stride_ = 0, chan_stride_ = 0;  // bytes
  int64_t channels_ = 0;
};

}  // namespace av
