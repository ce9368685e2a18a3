// Localisation of a failing output: which elements are out of tolerance, named by what
// they mean (batch, query row, head, channel; varlen sequence and position; GEMM m, n),
// the worst of them, a rows x heads (or m x n) grid of error / tolerance for the
// heatmap, and plain-language hints from a pattern analysis ("all errors in query rows
// i < s_q - 1 ..."). A hint is stated only when (nearly) all errors fall inside its
// pattern and the pattern leaves out enough elements that randomly placed errors would
// have landed outside it (at least 8 expected). Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "numerics/compare.h"
#include "tensor/tensor.h"

namespace av {

// What each axis of an output means.
enum class AxisRole { kBatch, kRow, kHead, kChannel, kToken, kM, kN, kOther };

struct LocaliseLayout {
  std::vector<AxisRole> axes;  // one per axis of the output
  // Per sequence (batch entry, or varlen sequence): query rows and keys. Empty: unknown.
  std::vector<int64_t> q_lens;
  std::vector<int64_t> k_lens;
  bool causal = false;
  int64_t window_left = -1, window_right = -1;  // -1 unbounded
  int64_t h_q = 0, h_kv = 0;                    // 0: unknown (no GQA analysis)
};

// When one element counts as an error, from the rule the comparison used:
// allclose |a-r| <= atol + rtol|r|; flashmla |a-r| < atol or rel < rtol; lowprec_multiple
// |a-r| <= threshold; exact: any difference; cos_diff (a whole-tensor rule): the RMS
// budget sqrt(cos_tol * mean(a^2 + r^2)), the error every element could have with the
// tensor still passing. error / tolerance > 1 is an error; a NaN/inf mismatch is +inf.
struct ElementTolerance {
  RuleKind kind = RuleKind::kAllclose;
  double atol = 0, rtol = 0, threshold = 0, cos_tol = 0;
};
ElementTolerance ElementToleranceFor(const CompareReport& report);

struct LocatedElement {
  std::string output;
  std::vector<std::pair<std::string, int64_t>> coords;  // named, in axis order
  double candidate = 0, reference = 0, abs_err = 0;
  double ratio = 0;  // error / tolerance
};

// Max error / tolerance per cell; long axes are bucketed (cells take the max).
struct HeatGrid {
  std::string row_axis, col_axis;
  int64_t rows = 0, cols = 0;
  int64_t row_bucket = 1, col_bucket = 1;                  // indices per cell
  std::vector<double> ratio;                               // rows * cols, row-major
  std::vector<std::pair<int64_t, std::string>> row_ticks;  // cell row -> label
};

struct Localisation {
  std::string output;
  int64_t elements = 0;
  int64_t errors = 0;
  std::vector<std::string> hints;
  std::vector<LocatedElement> worst;  // largest ratio first, at most kWorstElements
  HeatGrid heat;
};

inline constexpr int64_t kMaxHeatRows = 256;
inline constexpr int64_t kMaxHeatCols = 128;

// Shapes must be equal and match layout.axes.
Result<Localisation> LocaliseErrors(const std::string& output, const Tensor& candidate,
                                    const Tensor& reference, const ElementTolerance& tolerance,
                                    const LocaliseLayout& layout);

}  // namespace av
