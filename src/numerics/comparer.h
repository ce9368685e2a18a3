// Comparer: the single streaming pass behind CompareTensors. It reads both tensors a
// chunk at a time and, per row segment, runs a branch-free pass for the sums, maxima
// and the rule's per-element test; only elements that matter (mismatches, top-k
// candidates, non-finite values) take the slow path that computes multi-indices.
// Internal to numerics/; one instance per comparison.
#pragma once

#include <vector>

#include "numerics/compare.h"
#include "numerics/element_rule.h"
#include "numerics/reductions.h"

namespace av::internal {

// max |lowprec - ref| over positions where both are finite, and how many positions
// disagree about NaN/inf (a broken low-precision reference must not pass silently).
struct LowprecScan {
  double max_abs = 0;
  int64_t nonfinite_mismatches = 0;
};
LowprecScan ScanLowprec(const Tensor& lowprec, const Tensor& reference);

struct Sums {
  Accumulator abs, sq, aa, rr;   // over the compared (finite) pairs
  Accumulator f_sq, f_aa, f_rr;  // FlashMLA's: over float32-cast values
};

class Comparer {
 public:
  // `report` carries the resolved rule and, for lowprec_multiple, the threshold.
  Comparer(const Tensor& candidate, const Tensor& reference, CompareReport* report);
  void Run();
  // Moves worst elements and the breakdown into the report.
  void Finish();
  const Sums& sums() const { return sums_; }

 private:
  // Elements [offset, offset+n) of the current chunk, all in one row starting at column
  // `column`; returns the amount (mismatches or squared error) to tally for the row.
  double Segment(const double* a, const double* r, int64_t n, int64_t column);
  // Same contract, one element at a time: handles non-finite values and exact bytes.
  double SlowSegment(const double* a, const double* r, int64_t n, int64_t column);
  bool ElementMismatch(double a, double r, int64_t linear) const;
  void RecordMismatch(int64_t column, bool nonfinite);
  void OfferTop(double a, double r, double abs_err, double rel_err, int64_t linear);
  bool BytesDiffer(int64_t linear) const;
  // The row just finished: its relative L2 error into report_->row_errors (row bound only).
  void FinishRow();

  const Tensor& candidate_;
  const Tensor& reference_;
  CompareReport* report_;
  const Rule rule_;
  const ElementRule element_rule_;  // the per-element verdict (shared with the localiser)
  Tensor cand_bytes_, ref_bytes_;   // contiguous copies for rule exact
  Sums sums_;
  TopK top_abs_, top_rel_;
  AxisTally tally_;
  std::vector<int64_t> row_;  // indices of all axes but the last, for the current row
  int64_t row_len_;
  double row_sq_ = 0, row_rr_ = 0;  // the current row's sum (a-r)^2 and sum r^2
  int64_t linear_ = 0;  // linear index of the segment's first element
  std::vector<unsigned char> flags_;
};

}  // namespace av::internal
