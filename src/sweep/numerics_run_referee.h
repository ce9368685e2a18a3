// The oracle as referee of the fast reference in the numerics sweep: which cases the
// float64 oracle re-judges (every case the fast reference fails, every case within a
// margin of its tolerance, and 1 in N by a stable hash of the case id), and the bound
// within which the two references must agree — outside it the run has an internal
// error, never a verdict. Rules and measurements: doc/numerics.md "the oracle as referee".
// Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "numerics/compare.h"
#include "reference/ref_ops.h"
#include "sweep/spilled_tensors.h"

namespace av {

// A passing comparison whose worst element uses at least this fraction of its allowed
// error (error / tolerance, numerics/element_rule.h Ratio; cos_diff: cos_diff / cos_tol)
// is re-judged by the oracle: the fast reference's error could have moved it over.
inline constexpr double kRefereeMargin = 0.5;

// Whether the fast reference is used for `op` when [numerics] reference = "fast". Not for
// sparse_attention: its fast path accumulates in float32 and its LSE is ~1e-4 off on
// large logits (bench/fast_accuracy_bench.cc), so the oracle judges it.
bool FastReferenceJudges(const std::string& op);

// 1 case in n, chosen by FNV-1a (64-bit) of the case id: the same cases on every run and
// machine, whatever the shard or filter. n = 0: none; n = 1: every case.
bool OracleSampled(const std::string& case_id, int n);

// The largest error / allowed error over the elements of one comparison (its rule and
// threshold as the report applied them); 0 for an empty tensor.
double WorstToleranceRatio(const Tensor& candidate, const Tensor& reference,
                           const CompareReport& report);

// The agreement the fast reference owes the oracle on output `name` of `op`, per element:
// |fast - oracle| <= rel * max(1, max |oracle|) with non-finite values identical.
// rel = 2.5e-7 for the float64-accumulating attention family (attention, mla_decode,
// attention_splitk, combine), 1e-5 for the float32 ones (gemm, fp8_gemm, fp8_quant, ...).
double AgreementBound(const std::string& op);

// The fast reference's results as the agreement check reads them: held in memory, or
// spilled to a file while the oracle computed its own (exactly one of the two set).
struct FastResults {
  const NamedTensors* held = nullptr;
  const SpilledTensors* spilled = nullptr;
};

// Ok when every output in `names` agrees within AgreementBound; otherwise an Internal
// status naming the case, the output, the worst element (index, both values) and the
// bound — or saying that spilled results could not be read back as they were written.
Status CheckReferencesAgree(const std::string& case_id, const std::string& op,
                            const FastResults& fast, const NamedTensors& oracle,
                            const std::vector<std::string>& names);
Status CheckReferencesAgree(const std::string& case_id, const std::string& op,
                            const NamedTensors& fast, const NamedTensors& oracle,
                            const std::vector<std::string>& names);

}  // namespace av
