// Small reductions used by the comparison loop: a compensated sum, a top-k list of
// elements, and per-axis tallies. Internal to numerics/; one instance per thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "numerics/compare.h"

namespace av::internal {

// Compensated (Neumaier) sum of per-chunk partial sums: no drift with tensor size,
// so metrics agree with an exactly rounded sum (math.fsum) to ~1e-15 relative.
class Accumulator {
 public:
  void Add(double x) {
    double t = sum_ + x;
    carry_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + carry_; }

 private:
  double sum_ = 0;
  double carry_ = 0;
};

// Keeps the kWorstElements largest keys; ties keep the earlier (lower) index because
// elements arrive in index order and only a strictly larger key displaces one.
class TopK {
 public:
  // Smallest key that would still enter the list (-1 while it is not full).
  double floor() const {
    return static_cast<int>(items_.size()) < kWorstElements ? -1.0 : items_.back().first;
  }
  void Offer(double key, const ElementDiff& diff) {
    if (!(key > floor())) return;
    auto pos = std::upper_bound(items_.begin(), items_.end(), key,
                                [](double k, const auto& item) { return k > item.first; });
    items_.insert(pos, {key, diff});
    if (static_cast<int>(items_.size()) > kWorstElements) items_.pop_back();
  }
  std::vector<ElementDiff> Take() {
    std::vector<ElementDiff> out;
    for (auto& item : items_) out.push_back(std::move(item.second));
    return out;
  }

 private:
  std::vector<std::pair<double, ElementDiff>> items_;  // sorted by key, descending
};

// Per-axis amounts (mismatch counts or squared error), bucketed so that memory stays
// O(sum of dims) for long axes. The last axis is tallied per element; the others once
// per row segment, since they do not change along a row.
class AxisTally {
 public:
  explicit AxisTally(const Shape& shape);
  void AddLast(int64_t column, double amount) {
    if (!amounts_.empty()) amounts_.back()[static_cast<size_t>(column / buckets_.back())] += amount;
  }
  // `row` holds the indices of all axes but the last.
  void AddRow(const std::vector<int64_t>& row, double amount);
  std::vector<AxisBreakdown> Summarize() const;

 private:
  Shape shape_;
  std::vector<int64_t> buckets_;
  std::vector<std::vector<double>> amounts_;
  double total_ = 0;
};

}  // namespace av::internal
