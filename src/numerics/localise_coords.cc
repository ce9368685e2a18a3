#include "numerics/localise_coords.h"

#include <algorithm>

namespace av {
namespace {

const char* RoleName(AxisRole r) {
  switch (r) {
    case AxisRole::kBatch:
      return "batch";
    case AxisRole::kRow:
    case AxisRole::kToken:
      return "row";
    case AxisRole::kHead:
      return "head";
    case AxisRole::kChannel:
      return "channel";
    case AxisRole::kM:
      return "m";
    case AxisRole::kN:
      return "n";
    case AxisRole::kOther:
      return "index";
  }
  return "index";
}

}  // namespace

CoordMap::CoordMap(const LocaliseLayout& layout, const Shape& shape)
    : layout_(layout), shape_(shape) {
  for (AxisRole role : layout_.axes) varlen_ |= role == AxisRole::kToken;
  if (varlen_) {
    for (int64_t l : layout_.q_lens) cu_.push_back(cu_.back() + l);
  }
  for (size_t d = 0; d < shape_.size() && d < layout_.axes.size(); ++d) {
    const int64_t size = shape_[d];
    switch (layout_.axes[d]) {
      case AxisRole::kRow:
        rows_axis_ = size;
        break;
      case AxisRole::kHead:
        heads_ = size;
        break;
      case AxisRole::kBatch:
        batch_ = size;
        break;
      case AxisRole::kM:
        m_size_ = size;
        break;
      case AxisRole::kN:
        n_size_ = size;
        break;
      case AxisRole::kChannel:
        channel_axis_ = static_cast<int>(d);
        channel_size_ = size;
        break;
      case AxisRole::kToken:
      case AxisRole::kOther:
        break;
    }
  }
  if (channel_axis_ >= 0) {
    for (size_t d = static_cast<size_t>(channel_axis_) + 1; d < shape_.size(); ++d)
      channel_inner_ *= shape_[d];
  }
  int64_t numel = 1;
  for (int64_t s : shape_) numel *= s;
  units_ = channel_size_ > 0 ? numel / channel_size_ : 0;
}

Coord CoordMap::At(const std::vector<int64_t>& index) const {
  Coord c;
  for (size_t d = 0; d < index.size() && d < layout_.axes.size(); ++d) {
    const int64_t v = index[d];
    switch (layout_.axes[d]) {
      case AxisRole::kBatch:
        c.seq = v;
        break;
      case AxisRole::kRow:
        c.row = v;
        break;
      case AxisRole::kToken: {
        auto it = std::upper_bound(cu_.begin(), cu_.end(), v);
        c.seq = static_cast<int64_t>(it - cu_.begin()) - 1;
        c.row = c.seq >= 0 && c.seq < static_cast<int64_t>(cu_.size())
                    ? v - cu_[static_cast<size_t>(c.seq)]
                    : v;
        break;
      }
      case AxisRole::kHead:
        c.head = v;
        break;
      case AxisRole::kChannel:
        c.channel = v;
        break;
      case AxisRole::kM:
        c.m = v;
        break;
      case AxisRole::kN:
        c.n = v;
        break;
      case AxisRole::kOther:
        break;
    }
  }
  const size_t s = static_cast<size_t>(std::max<int64_t>(c.seq, 0));
  c.s_q = s < layout_.q_lens.size() ? layout_.q_lens[s] : rows_axis_;
  c.s_k = s < layout_.k_lens.size() ? layout_.k_lens[s] : -1;
  return c;
}

std::vector<std::pair<std::string, int64_t>> CoordMap::Named(
    const std::vector<int64_t>& index) const {
  std::vector<std::pair<std::string, int64_t>> out;
  const Coord c = At(index);
  for (size_t d = 0; d < index.size() && d < layout_.axes.size(); ++d) {
    if (layout_.axes[d] == AxisRole::kToken) {
      out.emplace_back("sequence", c.seq);
      out.emplace_back("position", c.row);
    } else {
      out.emplace_back(RoleName(layout_.axes[d]), index[d]);
    }
  }
  return out;
}

int64_t VisibleKeys(const Coord& c, const LocaliseLayout& layout) {
  if (c.s_k < 0 || c.row < 0 || c.s_q < 0) return -1;
  const int64_t pos = c.row + c.s_k - c.s_q;  // bottom-right aligned diagonal
  int64_t lo = 0, hi = c.s_k - 1;
  if (layout.causal) {
    hi = std::min(hi, pos);
  } else if (layout.window_right >= 0) {
    hi = std::min(hi, pos + layout.window_right);
  }
  if (layout.window_left >= 0) lo = std::max<int64_t>(lo, pos - layout.window_left);
  return std::max<int64_t>(0, hi - lo + 1);
}

int64_t CoordMap::UnitOf(int64_t linear) const {
  if (channel_axis_ < 0) return linear;
  const int64_t outer = linear / (channel_size_ * channel_inner_);
  return outer * channel_inner_ + linear % channel_inner_;
}

std::vector<int64_t> CoordMap::UnitIndex(int64_t unit) const {
  std::vector<int64_t> index(shape_.size(), 0);
  // Unravel over the shape with the channel axis of size 1.
  int64_t rest = unit;
  for (size_t d = shape_.size(); d-- > 0;) {
    const int64_t size = static_cast<int>(d) == channel_axis_ ? 1 : shape_[d];
    if (size <= 0) return index;
    index[d] = rest % size;
    rest /= size;
  }
  return index;
}

int64_t CoordMap::sequences() const {
  return varlen_ ? static_cast<int64_t>(layout_.q_lens.size()) : batch_;
}

int64_t CoordMap::max_rows() const {
  int64_t m = rows_axis_;
  for (int64_t l : layout_.q_lens) m = std::max(m, l);
  return m;
}

}  // namespace av
