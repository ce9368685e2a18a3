#include "sweep/group_checks.h"

#include <algorithm>
#include <cstdio>

#include "core/format.h"
#include "sweep/invariance.h"

namespace av {
namespace {

std::string CheckName(VariantKind kind) {
  switch (kind) {
    case VariantKind::kNumSplits:
      return "num_splits";
    case VariantKind::kRerun:
      return "determinism";
    case VariantKind::kBatchPermutation:
      return "batch_permutation";
    case VariantKind::kPageTablePermutation:
      return "page_table_permutation";
    case VariantKind::kSeed:
      return "seed_dependence";
    case VariantKind::kBase:
      break;
  }
  return "base";
}

}  // namespace

GroupState::Tally& GroupState::At(const std::string& check, const std::string& group) {
  for (auto& [name, t] : tallies_) {
    if (name == check) return t;
  }
  tallies_.emplace_back(check, Tally{});
  tallies_.back().second.cases.push_back(group);
  return tallies_.back().second;
}

void GroupState::Missing(const CaseSpec& spec) {
  if (spec.kind == VariantKind::kBase) return;
  Tally& t = At(CheckName(spec.kind), spec.group_id());
  t.cases.push_back(spec.id);
  t.failed = true;
  t.problems.push_back(spec.variant + " produced no outputs");
}

void GroupState::Compare(CaseResult& r, const NamedTensors& cand) {
  const std::string check = CheckName(r.spec.kind);
  Tally& t = At(check, r.spec.group_id());
  t.cases.push_back(r.spec.id);
  if (!have_out) {
    t.failed = true;
    t.problems.push_back("the base case produced no outputs to compare " + r.spec.variant +
                         " with");
    return;
  }
  Result<std::vector<OutputDiff>> diffs = DiffOutputs(base_out, cand);
  if (!diffs.ok()) {
    t.failed = true;
    t.problems.push_back(r.spec.variant + ": " + diffs.status().message());
    return;
  }
  const bool bitwise = r.spec.kind == VariantKind::kRerun;
  std::string tol;
  int64_t shared = 0;
  for (const OutputDiff& d : *diffs) {
    t.max_abs_diff = std::max(t.max_abs_diff, d.max_abs_diff);
    shared += d.nonfinite_shared;
    tol += (tol.empty() ? "" : "; ") + d.name + ": " +
           (bitwise ? std::string("bitwise")
                    : "|diff| <= " + FormatG(d.bound, 3) + " (rounding bound at max|" + d.name +
                          "| " + FormatG(d.max_abs, 3) + ")");
    bool bad =
        d.nonfinite_mismatches > 0 || (bitwise ? !d.bitwise_equal : d.max_abs_diff > d.bound);
    if (!bad) continue;
    std::string what = r.spec.variant + ": " + d.name + " differs from the base run" +
                       (d.nonfinite_mismatches
                            ? " at " + std::to_string(d.nonfinite_mismatches) + " NaN/inf positions"
                            : " by up to " + FormatG(d.max_abs_diff, 3) +
                                  (bitwise ? " (reruns must be bitwise identical)"
                                           : " (bound " + FormatG(d.bound, 3) + ")"));
    t.failed = true;
    t.problems.push_back(what);
    r.verdict = CaseVerdict::kFail;
    if (r.reason.empty()) r.reason = "invariance " + check + ": " + what;
  }
  t.nonfinite_shared = std::max(t.nonfinite_shared, shared);
  if (t.tolerance.empty()) t.tolerance = tol;
}

void GroupState::Seed(const CaseSpec& spec, const NamedTensors& cand,
                      const NamedTensors& seed_ref) {
  Tally& t = At("seed_dependence", spec.group_id());
  t.cases.push_back(spec.id);
  t.tolerance = "outputs must change with the seed";
  if (!have_out) return;
  Result<std::vector<OutputDiff>> diffs = DiffOutputs(base_out, cand);
  if (!diffs.ok()) return;
  bool same = true;
  for (const OutputDiff& d : *diffs) {
    same &= d.bitwise_equal;
    t.max_abs_diff = std::max(t.max_abs_diff, d.max_abs_diff);
  }
  if (!same) return;
  t.flagged = true;
  bool ref_same = false;
  if (have_ref) {
    Result<std::vector<OutputDiff>> rd = DiffOutputs(ref, seed_ref);
    ref_same = rd.ok() && std::all_of(rd->begin(), rd->end(),
                                      [](const OutputDiff& d) { return d.bitwise_equal; });
  }
  t.problems.push_back(
      "the candidate's outputs for " + spec.variant + " are bitwise identical to the base seed's" +
      (ref_same ? " (so is the reference: these inputs cannot tell a candidate from a constant)"
                : " although the reference changed"));
}

std::vector<InvarianceCheckResult> GroupState::Results(const std::string& group,
                                                       bool has_variants) const {
  std::vector<InvarianceCheckResult> out;
  for (const char* check : {"num_splits", "determinism", "batch_permutation",
                            "page_table_permutation", "seed_dependence"}) {
    for (const auto& [name, t] : tallies_) {
      if (name != check) continue;
      InvarianceCheckResult r;
      r.check = name;
      r.group = group;
      r.cases = t.cases;
      r.verdict = t.failed    ? InvarianceVerdict::kFail
                  : t.flagged ? InvarianceVerdict::kFlagged
                              : InvarianceVerdict::kPass;
      r.max_abs_diff = t.max_abs_diff;
      r.tolerance = t.tolerance;
      if (!t.problems.empty()) {
        for (const std::string& p : t.problems) r.detail += (r.detail.empty() ? "" : "; ") + p;
      } else if (name == "determinism") {
        r.detail =
            std::to_string(t.cases.size() - 1) + " reruns are bitwise identical to the base run";
      } else if (name == "seed_dependence") {
        r.detail = "the candidate's outputs change with the seed";
      } else {
        r.detail = std::to_string(t.cases.size() - 1) +
                   " variant(s) agree with the base run within rounding (max |diff| " +
                   FormatG(t.max_abs_diff, 3) + ")";
      }
      if (t.nonfinite_shared > 0 && name != "seed_dependence" && !t.failed) {
        // A NaN output is still an output: its NaN positions are what is compared.
        r.detail += "; NaN/inf positions compared: the same " + std::to_string(t.nonfinite_shared) +
                    " in every run";
      }
      out.push_back(std::move(r));
    }
  }
  if (have_ref) {
    std::string flat = DescribeNearZeroVariance(ref);
    if (!flat.empty() || has_variants) {
      InvarianceCheckResult r;
      r.check = "reference_variance";
      r.group = group;
      r.cases = {group};
      r.verdict = flat.empty() ? InvarianceVerdict::kPass : InvarianceVerdict::kFlagged;
      r.tolerance = "standard deviation > 1e-6 x |mean| for every output";
      r.detail = flat.empty() ? "every reference output varies"
                              : flat + ": a candidate that returns a constant would pass this case";
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace av
