#include "numerics/reductions.h"

namespace av::internal {

AxisTally::AxisTally(const Shape& shape) : shape_(shape) {
  for (int64_t size : shape) {
    int64_t bucket = std::max<int64_t>(1, (size + kMaxAxisBuckets - 1) / kMaxAxisBuckets);
    buckets_.push_back(bucket);
    amounts_.emplace_back(static_cast<size_t>((size + bucket - 1) / bucket), 0.0);
  }
}

void AxisTally::AddRow(const std::vector<int64_t>& row, double amount) {
  for (size_t d = 0; d < row.size(); ++d) {
    amounts_[d][static_cast<size_t>(row[d] / buckets_[d])] += amount;
  }
  total_ += amount;
}

std::vector<AxisBreakdown> AxisTally::Summarize() const {
  std::vector<AxisBreakdown> out;
  if (total_ <= 0) return out;
  for (size_t d = 0; d < amounts_.size(); ++d) {
    const std::vector<double>& amounts = amounts_[d];
    AxisBreakdown axis;
    axis.axis = static_cast<int>(d);
    axis.size = shape_[d];
    axis.bucket = buckets_[d];
    std::vector<size_t> order;
    for (size_t b = 0; b < amounts.size(); ++b) {
      if (amounts[b] > 0) order.push_back(b);
    }
    axis.indices_touched = static_cast<int64_t>(order.size());
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return amounts[x] > amounts[y]; });
    for (size_t i = 0; i < order.size() && i < 3; ++i) {
      AxisShare share;
      share.begin = static_cast<int64_t>(order[i]) * buckets_[d];
      share.end = std::min(share.begin + buckets_[d], shape_[d]);
      share.amount = amounts[order[i]];
      share.fraction = share.amount / total_;
      axis.top.push_back(share);
    }
    out.push_back(std::move(axis));
  }
  return out;
}

}  // namespace av::internal
