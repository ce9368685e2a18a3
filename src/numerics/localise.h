// Localisation of a failing output: which elements are out of tolerance (the comparer's
// own per-element verdict, numerics/element_rule.h), named by what they mean (batch,
// query row, head, channel; varlen sequence and position; GEMM m, n), the worst of them,
// a heat grid of error / tolerance, and plain-language hints: the value signature of the
// errors ("candidate = reference x 1.4427") and the patterns that explain where they are
// ("all errors in query rows i < s_q - 1 ..."; numerics/localise_hints.h says when).
// The pieces: localise_coords (coordinates, units), localise_patterns (the catalogue),
// localise_hints (selection), heat_grid, value_signature. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "numerics/element_rule.h"
#include "numerics/heat_grid.h"
#include "numerics/localise_coords.h"
#include "tensor/tensor.h"

namespace av {

struct LocatedElement {
  std::string output;
  std::vector<std::pair<std::string, int64_t>> coords;  // named, in axis order
  double candidate = 0, reference = 0, abs_err = 0;
  double ratio = 0;  // error / tolerance
};

struct Localisation {
  std::string output;
  int64_t elements = 0;
  // Elements out of tolerance: for a per-element rule exactly the compare report's
  // mismatches. cos_diff (a whole-tensor rule) has no per-element verdict: an element
  // counts when (a - r)^2 > cos_tol * (a^2 + r^2 + mean(a^2 + r^2)), its own share of the
  // budget with the mean as a floor for values near 0 (a share of the mean alone would put
  // the "errors" wherever the values are large, not where the bug is).
  int64_t errors = 0;
  std::vector<std::string> hints;
  std::vector<LocatedElement> worst;  // largest ratio first, at most kWorstElements
  HeatGrid heat;
};

// Shapes must be equal and match layout.axes. `tolerance`: ElementToleranceFor(report) of
// the comparison that failed.
Result<Localisation> LocaliseErrors(const std::string& output, const Tensor& candidate,
                                    const Tensor& reference, const ElementTolerance& tolerance,
                                    const LocaliseLayout& layout);

}  // namespace av
