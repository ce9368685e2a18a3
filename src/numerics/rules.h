// Comparison rules: how each anchor project decides "close enough", with its exact
// arithmetic and default tolerances (doc/compare.md gives them with their sources).
//   allclose          torch.testing.assert_close: |a-e| <= atol + rtol*|e| in float64;
//                     defaults per dtype, the larger of the two tensors' dtypes.
//   flashmla          FlashMLA tests/kernelkit/compare.py check_is_allclose.
//   cos_diff          DeepGEMM deep_gemm/testing/numeric.py calc_diff < threshold; with
//                     row_rel_l2 also every row's relative L2 error (our addition: the
//                     cosine alone cannot see a wrong output scale).
//   lowprec_multiple  flash-attention tests: max|a-r| <= k * max|lowprec-r| + atol.
//   exact             bitwise equality (same dtype required).
// Plain data; safe to share between threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "tensor/dtype.h"

namespace av {

enum class RuleKind { kAllclose, kFlashMla, kCosDiff, kLowprecMultiple, kExact };

std::string_view RuleName(RuleKind kind);
std::optional<RuleKind> ParseRuleName(std::string_view name);
// "allclose, flashmla, cos_diff, lowprec_multiple, exact" (for help and errors).
std::string AllRuleNames();

// What the user asked for; unset tolerances take the rule's defaults.
struct RuleRequest {
  RuleKind kind = RuleKind::kAllclose;
  std::optional<double> atol;
  std::optional<double> rtol;
  std::optional<double> cos_tol;
  std::optional<double> k;
  // cos_diff only: also require ||a_i - r_i||_2 <= row_rel_l2 * ||r_i||_2 for every row i
  // (the last axis), unset = no row bound. doc/compare.md derives the fp8_gemm value.
  std::optional<double> row_rel_l2;
  // Gate off: positions where either tensor is NaN or +-inf are left out of the
  // comparison (and counted) instead of having to match.
  bool allow_nan = false;
  // allclose only: torch's equal_nan=True (NaN == NaN at the same position).
  bool equal_nan = false;
};

// A request with every tolerance fixed, and where each default came from.
struct Rule {
  RuleKind kind = RuleKind::kAllclose;
  double atol = 0;
  double rtol = 0;
  double cos_tol = 0;
  double k = 0;
  std::optional<double> row_rel_l2;  // cos_diff's row bound; never defaulted
  bool allow_nan = false;
  bool equal_nan = false;
  std::string defaults_source;  // e.g. "torch.testing defaults for bf16"; empty if all given
};

// torch.testing._comparison default (rtol, atol) for one dtype; (0, 0) where torch has
// none (fp8, integers, bool), which makes allclose an exact comparison, as in torch.
struct TorchTolerance {
  double rtol;
  double atol;
};
TorchTolerance TorchDefaultTolerance(DType dtype);

// Fills defaults from the candidate's and reference's dtypes and checks the values
// (non-negative, finite). Errors name the flag at fault.
Result<Rule> ResolveRule(const RuleRequest& request, DType candidate, DType reference,
                         bool have_lowprec);

}  // namespace av
