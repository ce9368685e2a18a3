#include "numerics/rules.h"

#include <algorithm>
#include <cmath>

namespace av {
namespace {

struct RuleInfo {
  RuleKind kind;
  std::string_view name;
};

constexpr RuleInfo kRules[] = {
    {RuleKind::kAllclose, "allclose"}, {RuleKind::kFlashMla, "flashmla"},
    {RuleKind::kCosDiff, "cos_diff"},  {RuleKind::kLowprecMultiple, "lowprec_multiple"},
    {RuleKind::kExact, "exact"},
};

// FlashMLA's check_is_allclose signature defaults (abs_tol, rel_tol, cos_diff_tol).
// Its decode tests pass tighter per-output values (out: 8e-4, 2.01/128, 5e-6).
constexpr double kFlashMlaAtol = 1e-5;
constexpr double kFlashMlaRtol = 1e-2;
constexpr double kFlashMlaCosTol = 1e-7;
// DeepGEMM's FP8 GEMM tests assert calc_diff < 1e-3.
constexpr double kDeepGemmCosTol = 1e-3;
// flash-attention's forward tests: k = 2, no atol.
constexpr double kFlashAttnK = 2.0;

Status CheckTolerance(const char* flag, double value) {
  if (!std::isfinite(value) || value < 0) {
    return InvalidInput(std::string("--") + flag + " must be a finite number >= 0, got " +
                        std::to_string(value));
  }
  return Status::Ok();
}

}  // namespace

std::string_view RuleName(RuleKind kind) {
  for (const auto& r : kRules) {
    if (r.kind == kind) return r.name;
  }
  return "?";
}

std::optional<RuleKind> ParseRuleName(std::string_view name) {
  for (const auto& r : kRules) {
    if (r.name == name) return r.kind;
  }
  return std::nullopt;
}

std::string AllRuleNames() {
  std::string s;
  for (const auto& r : kRules) {
    if (!s.empty()) s += ", ";
    s += r.name;
  }
  return s;
}

TorchTolerance TorchDefaultTolerance(DType dtype) {
  // torch/testing/_comparison.py _DTYPE_PRECISIONS.
  switch (dtype) {
    case DType::kF16:
      return {1e-3, 1e-5};
    case DType::kBF16:
      return {1.6e-2, 1e-5};
    case DType::kF32:
      return {1.3e-6, 1e-5};
    case DType::kF64:
      return {1e-7, 1e-7};
    default:
      return {0.0, 0.0};
  }
}

Result<Rule> ResolveRule(const RuleRequest& request, DType candidate, DType reference,
                         bool have_lowprec) {
  // A tolerance the rule does not read is an error, not a no-op: a mistyped rule must
  // not silently drop the bound its author meant to impose.
  struct Uses {
    bool atol, rtol, cos, k;
  };
  Uses uses{};
  switch (request.kind) {
    case RuleKind::kAllclose:
      uses = {true, true, false, false};
      break;
    case RuleKind::kFlashMla:
      uses = {true, true, true, false};
      break;
    case RuleKind::kCosDiff:
      uses = {false, false, true, false};
      break;
    case RuleKind::kLowprecMultiple:
      uses = {true, false, false, true};
      break;
    case RuleKind::kExact:
      uses = {false, false, false, false};
      break;
  }
  const std::string rule_name(RuleName(request.kind));
  if (request.atol && !uses.atol) return InvalidInput("rule " + rule_name + " takes no --atol");
  if (request.rtol && !uses.rtol) return InvalidInput("rule " + rule_name + " takes no --rtol");
  if (request.cos_tol && !uses.cos) return InvalidInput("rule " + rule_name + " takes no --cos");
  if (request.k && !uses.k) return InvalidInput("rule " + rule_name + " takes no --k");
  if (request.row_rel_l2 && request.kind != RuleKind::kCosDiff) {
    return InvalidInput("rule " + rule_name + " takes no --row-rel-l2 (only cos_diff does)");
  }

  Rule rule;
  rule.kind = request.kind;
  rule.allow_nan = request.allow_nan;
  rule.equal_nan = request.equal_nan;
  std::string defaults;
  auto take = [&](const std::optional<double>& given, double fallback, const char* what) {
    if (given) return *given;
    if (!defaults.empty()) defaults += ", ";
    defaults += what;
    return fallback;
  };
  switch (request.kind) {
    case RuleKind::kAllclose: {
      // torch picks the larger default of the two dtypes.
      TorchTolerance c = TorchDefaultTolerance(candidate);
      TorchTolerance r = TorchDefaultTolerance(reference);
      rule.rtol = take(request.rtol, std::max(c.rtol, r.rtol), "rtol");
      rule.atol = take(request.atol, std::max(c.atol, r.atol), "atol");
      if (!defaults.empty()) {
        defaults = "torch.testing defaults for " + std::string(DTypeName(candidate)) + "/" +
                   std::string(DTypeName(reference)) + " (" + defaults + ")";
      }
      break;
    }
    case RuleKind::kFlashMla:
      rule.atol = take(request.atol, kFlashMlaAtol, "atol");
      rule.rtol = take(request.rtol, kFlashMlaRtol, "rtol");
      rule.cos_tol = take(request.cos_tol, kFlashMlaCosTol, "cos");
      if (!defaults.empty()) defaults = "FlashMLA check_is_allclose defaults (" + defaults + ")";
      break;
    case RuleKind::kCosDiff:
      rule.cos_tol = take(request.cos_tol, kDeepGemmCosTol, "cos");
      if (!defaults.empty()) defaults = "DeepGEMM FP8 GEMM test threshold (" + defaults + ")";
      break;
    case RuleKind::kLowprecMultiple:
      if (!have_lowprec) {
        return InvalidInput(
            "rule lowprec_multiple needs the low-precision reference: pass --lowprec-ref");
      }
      rule.k = take(request.k, kFlashAttnK, "k");
      rule.atol = take(request.atol, 0.0, "atol");
      if (!defaults.empty()) defaults = "flash-attention forward test (" + defaults + ")";
      break;
    case RuleKind::kExact:
      if (candidate != reference) {
        return InvalidInput("rule exact compares bits and needs equal dtypes, got " +
                            std::string(DTypeName(candidate)) + " and " +
                            std::string(DTypeName(reference)));
      }
      break;
  }
  rule.defaults_source = defaults;
  AV_RETURN_IF_ERROR(CheckTolerance("atol", rule.atol));
  AV_RETURN_IF_ERROR(CheckTolerance("rtol", rule.rtol));
  AV_RETURN_IF_ERROR(CheckTolerance("cos", rule.cos_tol));
  AV_RETURN_IF_ERROR(CheckTolerance("k", rule.k));
  if (request.row_rel_l2) {
    AV_RETURN_IF_ERROR(CheckTolerance("row-rel-l2", *request.row_rel_l2));
    rule.row_rel_l2 = request.row_rel_l2;
  }
  if (request.equal_nan && request.kind != RuleKind::kAllclose) {
    return InvalidInput("--equal-nan applies to rule allclose only (torch's equal_nan)");
  }
  return rule;
}

}  // namespace av
