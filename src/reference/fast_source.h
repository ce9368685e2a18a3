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
  DType dtype() const { return dtype_; }

  // out[c] = scale * t[row, head, c] for c < n (n <= channels).
  template <typename T>
  void Read(int64_t row, int64_t head, int64_t n, T scale, T* out) const;

  // Hints the cache lines Read(row, head, n, ...) will touch into L2 (contiguous channels
  // only; a strided row is left alone). The fast path prefetches the next key block's rows
  // while it computes on this one: prefill K/V rows are 4 KiB apart (one page each) and
  // the gathers stalled on them (9% of prefill time).
  void Prefetch(int64_t row, int64_t head, int64_t n) const {
    if (chan_stride_ != elem_size_) return;
    const std::byte* p = base_ + row * row_stride_ + head * head_stride_;
    for (int64_t off = 0; off < n * elem_size_; off += 64) __builtin_prefetch(p + off, 0, 2);
  }

  // The bytes of (row, head)'s channels when they are contiguous, else null: the bf16 tile
  // kernels split the stored values where they lie, without converting them first.
  const std::byte* ContiguousRow(int64_t row, int64_t head) const {
    if (chan_stride_ != elem_size_) return nullptr;
    return base_ + row * row_stride_ + head * head_stride_;
  }
  bool contiguous_channels() const { return chan_stride_ == elem_size_; }

  // True when every Read of this source returns a prefix of other's Read for the same row
  // and head (same buffer, dtype and strides): MLA's V is the first dv channels of K, so
  // the fast path converts each cache row once and reads V from the converted K row.
  bool IsPrefixOf(const RowSource& other) const {
    return base_ == other.base_ && dtype_ == other.dtype_ && row_stride_ == other.row_stride_ &&
           head_stride_ == other.head_stride_ && chan_stride_ == other.chan_stride_ &&
           channels_ <= other.channels_;
  }

 private:
  Tensor holder_;  // keeps the buffer (or the contiguous copy) alive
  const std::byte* base_ = nullptr;
  DType dtype_ = DType::kF32;
  int64_t row_stride_ = 0, head_stride_ = 0, chan_stride_ = 0;  // bytes
  int64_t channels_ = 0;
  int64_t elem_size_ = 0;  // bytes
};

}  // namespace av
