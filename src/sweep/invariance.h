// Invariance variants of a base case: the same inputs run again with a knob that must
// not change the result beyond rounding (knobs.num_splits), again unchanged (reruns,
// bitwise), with batch entries or physical pages permuted, or with another seed. This
// file expands variants, transforms their inputs, maps their outputs back to the base
// case's order and measures how far two runs of a group differ. Format:
// doc/formats/shapes-json.md ("invariance"), doc/formats/numerics-json.md. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "reference/ref_ops.h"
#include "sweep/case_builder.h"
#include "sweep/shapes_config.h"

namespace av {

// The variants of `base` that `sweep.invariance` asks for and that apply to it, in
// order: num_splits (list order), reruns, batch_permutation, page_table_permutation,
// seeds. A permutation is left out where it cannot change anything (batch of 1) or the
// layout has none (varlen has no batch axis to permute; only paged layouts have pages).
Result<std::vector<CaseSpec>> ExpandVariants(const SweepSpec& sweep, const CaseSpec& base);

// Whether a variant's inputs are its base case's bytes (num_splits, reruns): such a
// variant gets its own copy of them, written once the base case's outputs are out of
// reach, and shares the base case's reference.
inline bool SameInputBytes(VariantKind kind) {
  return kind == VariantKind::kNumSplits || kind == VariantKind::kRerun;
}

// Entries of the batch axis (b, or m for GEMMs), or 0 when the case has none.
int64_t BatchEntries(const CaseSpec& spec);
bool HasPageTable(const CaseSpec& spec);

// A deterministic permutation of [0, n) that is not the identity for n > 1; position i
// of the variant holds entry perm[i] of the base case.
std::vector<int64_t> VariantPermutation(const CaseSpec& spec, const std::string& what, int64_t n);

// Rewrites a built case's stored inputs for a permutation variant (other variants are
// left alone): batch entries of every per-batch input, or physical pages of the caches
// together with the block table that points at them.
Status ApplyInputVariant(const CaseSpec& spec, BuiltCase* built);

// The inverse for outputs: a batch_permutation variant's outputs in base-case order.
// Other variants are returned unchanged.
Result<NamedTensors> UnpermuteOutputs(const CaseSpec& spec, const NamedTensors& outputs);

// How far two runs of one output may differ when only the order of float32 arithmetic
// changed (num_splits, permutations): 4 eps(dtype) max|x| for 16-bit outputs (each run
// rounds its own float32 result to the dtype: up to one ulp each, twice for a combine),
// and 2^-17 max|x| (64 float32 ulps) for float32 outputs, whose last bits move with the
// summation order: a sum over n terms reordered changes by about sqrt(n) ulps, and 64
// covers n = 4096 keys or splits.
double RoundingBound(DType dtype, double max_abs);

struct OutputDiff {
  std::string name;
  double max_abs_diff = 0;           // over positions where both are finite
  double max_abs = 0;                // max |base| over finite positions
  int64_t nonfinite_mismatches = 0;  // positions where NaN/inf disagree
  int64_t nonfinite_shared = 0;      // positions where both are the same NaN/inf
  bool bitwise_equal = true;         // same dtype, shape and bytes
  double bound = 0;                  // RoundingBound(dtype, max_abs)
};

// Whether two runs' outputs are the same tensors byte for byte: the same names, dtypes,
// shapes and element bytes (strides aside).
bool SameOutputBytes(const NamedTensors& a, const NamedTensors& b);

// Element-wise comparison of two runs of the same case (outputs matched by name).
Result<std::vector<OutputDiff>> DiffOutputs(const NamedTensors& base, const NamedTensors& variant);

// "" when every output of a reference varies; else which output is (near) constant, e.g.
// "reference o is constant (0) over 4096 elements". Near-constant: standard deviation at
// most 1e-6 times the mean magnitude (or no finite value at all).
std::string DescribeNearZeroVariance(const NamedTensors& reference);

}  // namespace av
