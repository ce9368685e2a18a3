// The invariance checks of one group (a base case and its variants) while its members
// finish: the base case's outputs and reference are held (the only tensors kept across
// cases), each variant is compared with the base run (num_splits and permutations within
// RoundingBound, reruns bitwise, seeds must change the outputs), and Results() turns the
// tallies into numerics.json "invariance" entries (doc/formats/numerics-json.md).
// One instance per group; used by one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/buffer.h"
#include "reference/ref_ops.h"
#include "sweep/case_result.h"

namespace av {

class GroupState {
 public:
  bool have_out = false, have_ref = false;
  NamedTensors base_out, ref;
  // The base case's comparison with the reference, when it passed: a variant with the
  // same inputs (or permuted back onto them) whose outputs are the base's bytes has the
  // same comparison, which it takes over instead of repeating.
  std::optional<std::vector<OutputVerdict>> base_pass;
  std::optional<NamedTensors> lowprec;
  std::string reference_impl;
  // The base case's inputs as checked after its run, kept only while its reruns and
  // num_splits variants (which get a copy of these bytes) are still to be written.
  std::shared_ptr<const Buffer> base_inputs;

  // A variant with no outputs (its case already failed): its check cannot pass.
  void Missing(const CaseSpec& spec);
  // num_splits, reruns (bitwise) and permutations (rounding bound) against the base run;
  // a variant over its bound fails as a case too.
  void Compare(CaseResult& r, const NamedTensors& cand);
  // A seed variant: a candidate whose outputs do not move with the seed is flagged.
  void Seed(const CaseSpec& spec, const NamedTensors& cand, const NamedTensors& seed_ref);
  // One entry per check in a fixed order, then reference_variance (written when flagged
  // or when the group has variants).
  std::vector<InvarianceCheckResult> Results(const std::string& group, bool has_variants) const;

 private:
  struct Tally {
    std::vector<std::string> cases;
    double max_abs_diff = 0;
    bool failed = false, flagged = false;
    int64_t nonfinite_shared = 0;  // NaN/inf positions both runs share (most of a variant)
    std::string tolerance;
    std::vector<std::string> problems;
  };
  Tally& At(const std::string& check, const std::string& group);
  std::vector<std::pair<std::string, Tally>> tallies_;
};

}  // namespace av
