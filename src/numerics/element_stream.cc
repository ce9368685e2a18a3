#include "numerics/element_stream.h"

#include <algorithm>

namespace av {

ElementStream::ElementStream(const Tensor& tensor)
    : tensor_(tensor), flat_(tensor.is_contiguous() || tensor.ndim() == 0) {
  if (!flat_) row_index_.assign(static_cast<size_t>(tensor.ndim() - 1), 0);
}

int64_t ElementStream::Next(double* out, int64_t max) {
  const int64_t remaining = tensor_.numel() - position_;
  if (remaining <= 0 || max <= 0) return 0;
  const int64_t elem = static_cast<int64_t>(tensor_.element_size());
  if (flat_) {
    const int64_t n = std::min(max, remaining);
    LoadAsDouble(tensor_.dtype(), tensor_.data() + position_ * elem, elem, n, out);
    position_ += n;
    return n;
  }
  // Walk rows of the last dimension; a chunk never crosses a row end.
  const int last = tensor_.ndim() - 1;
  const int64_t row_len = tensor_.dim(last);
  int64_t offset = in_row_ * tensor_.strides()[static_cast<size_t>(last)];
  for (int d = 0; d < last; ++d) {
    offset += row_index_[static_cast<size_t>(d)] * tensor_.strides()[static_cast<size_t>(d)];
  }
  const int64_t n = std::min(max, row_len - in_row_);
  LoadAsDouble(tensor_.dtype(), tensor_.data() + offset * elem,
               tensor_.strides()[static_cast<size_t>(last)] * elem, n, out);
  position_ += n;
  in_row_ += n;
  if (in_row_ == row_len) {
    in_row_ = 0;
    for (int d = last - 1; d >= 0; --d) {
      if (++row_index_[static_cast<size_t>(d)] < tensor_.dim(d)) break;
      row_index_[static_cast<size_t>(d)] = 0;
    }
  }
  return n;
}

int64_t ElementStream::Fill(double* out, int64_t max) {
  int64_t filled = 0;
  while (filled < max) {
    int64_t n = Next(out + filled, max - filled);
    if (n == 0) break;
    filled += n;
  }
  return filled;
}

}  // namespace av
