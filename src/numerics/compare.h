// CompareTensors: one pass over a candidate and a reference tensor (and, for
// lowprec_multiple, a low-precision reference) that decides a Rule and gathers the
// diagnostics: float64 metrics, the worst elements with their multi-indices, where
// along each axis the mismatches sit, and how non-finite values line up.
// Memory is O(sum of dims), not O(elements): 1 GiB tensors are streamed from their
// mappings. Thread-compatible: distinct calls may run on distinct threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "numerics/rules.h"
#include "tensor/tensor.h"

namespace av {

// Float64 metrics over the compared positions (both values finite, or excluded by the
// gate). rel = |a - r| / (|r| + 1e-6), as FlashMLA and the issue define it.
struct Metrics {
  int64_t compared = 0;
  double max_abs = 0;
  double max_rel = 0;
  double mean_abs = 0;
  double rmse = 0;
  // 1 - 2*sum(a*r)/sum(a*a + r*r), computed as sum((a-r)^2)/sum(a*a + r*r), the same
  // quantity without cancellation; 0 when both tensors are all zero.
  double cos_diff = 0;
  // sum((a-r)^2) / sum(r^2) (ggml's NMSE); +inf when the reference is all zero and the
  // candidate is not, 0 when both are.
  double nmse = 0;
};

struct ElementDiff {
  int64_t linear = 0;
  std::vector<int64_t> index;
  double candidate = 0;
  double reference = 0;
  double abs_err = 0;
  double rel_err = 0;
};

// Counts of one kind of value in each tensor.
struct NonFiniteCounts {
  int64_t nan = 0;
  int64_t pos_inf = 0;
  int64_t neg_inf = 0;
  int64_t total() const { return nan + pos_inf + neg_inf; }
};

struct NonFiniteReport {
  NonFiniteCounts candidate;
  NonFiniteCounts reference;
  // Positions where the two disagree about NaN / +inf / -inf (the gate's subject).
  int64_t position_mismatches = 0;
  std::vector<ElementDiff> first_mismatches;  // up to 5, in index order
  // With allow_nan: positions left out because either value was not finite.
  int64_t excluded = 0;
};

// Where along one axis the mismatches (or, for whole-tensor rules, the squared error)
// sit. Axes longer than kMaxAxisBuckets are grouped into equal index ranges.
struct AxisShare {
  int64_t begin = 0;  // index range [begin, end)
  int64_t end = 0;
  double amount = 0;  // mismatches, or squared error
  double fraction = 0;
};
struct AxisBreakdown {
  int axis = 0;
  int64_t size = 0;
  int64_t bucket = 1;           // indices per range
  int64_t indices_touched = 0;  // ranges holding any of the amount
  std::vector<AxisShare> top;   // largest first, at most 3
};

struct CompareReport {
  Rule rule;
  Shape shape;
  DType candidate_dtype = DType::kF32;
  DType reference_dtype = DType::kF32;
  int64_t numel = 0;

  Metrics metrics;
  NonFiniteReport nonfinite;

  // Per-element verdicts. Defined for allclose, flashmla, lowprec_multiple and exact;
  // cos_diff judges the whole tensor only.
  bool mismatch_defined = false;
  int64_t mismatches = 0;
  double mismatch_fraction = 0;
  int64_t nonfinite_mismatches = 0;  // mismatches at which either value is NaN/inf

  // lowprec_multiple: max |lowprec - ref| and the resulting bound k*that + atol.
  double lowprec_max_abs = 0;
  double threshold = 0;
  // The cos_diff the rule judged (FlashMLA's is taken over float32-cast values).
  double rule_cos_diff = 0;

  // cos_diff with row_rel_l2: each row's (all axes but the last fixed) relative L2 error
  // ||a_i - r_i||_2 / ||r_i||_2 over its compared positions; a row whose reference is all
  // zero has 0 if the candidate's row is zero too, else +inf.
  struct RowErrors {
    bool defined = false;
    int64_t rows = 0;
    int64_t over = 0;                // rows above the bound
    double worst = 0;                // the largest relative error
    std::vector<int64_t> worst_row;  // its indices (all axes but the last)
  } row_errors;

  std::vector<ElementDiff> worst_abs;  // top 5 by |a - r|, ties by lower index
  std::vector<ElementDiff> worst_rel;  // top 5 by rel
  // What breakdown counts: "mismatches" or "squared error".
  std::string breakdown_of;
  std::vector<AxisBreakdown> breakdown;

  bool passed = false;
  std::vector<std::string> failures;  // one line per failed condition
};

inline constexpr int kWorstElements = 5;
inline constexpr int64_t kMaxAxisBuckets = 4096;

// Shapes must be equal (no broadcasting); dtypes may differ except for rule exact.
// `lowprec` may be null unless the rule is lowprec_multiple.
Result<CompareReport> CompareTensors(const Tensor& candidate, const Tensor& reference,
                                     const Tensor* lowprec, const RuleRequest& request);

}  // namespace av
