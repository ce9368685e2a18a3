// kChecks: every check of the eight items, in report order (doc/report.md, "Items and
// checks", lists the same rows; checklist_table_test.cc holds the two together).
#include "report/checklist_table.h"

#include <iterator>

#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

constexpr std::string_view kItemTitles[kItemCount] = {
    "Numerical correctness",
    "Masks and boundaries",
    "Shared memory and registers",
    "GEMM tile scheduling",
    "Split-k",
    "Attention interface",
    "Fallback",
    "Evidence",
};

constexpr CheckDef kChecks[] = {
    // 1 numerical correctness (evidence/numerics.json)
    {"1.sweep_complete", "the evidence holds the whole sweep (no filter, shard or missing shard)",
     1, &JudgeSweepComplete},
    {"1.base_cases", "every base case within tolerance", 1, &JudgeBaseCases},
    {"1.dtypes", "FP16/BF16/FP8 coverage", 1, &JudgeDtypes},
    {"1.softmax_stability", "softmax stability (large logits)", 1, &JudgeSoftmaxStability},
    {"1.invariance", "determinism and accumulation order (reruns, permutations, seeds)", 1,
     &JudgeInvariance},
    {"1.config_unchanged", "the package's own tolerances, shapes and [policy] not loosened", 1,
     &JudgeConfigUnchanged},
    {"1.junit_agrees", "pytest's JUnit verdicts agree with numerics.json", 1, &JudgeJUnitAgrees},
    {"1.agent_questions", "the agent's high-severity questions answered", 1, &JudgeAgentQuestions},
    // 2 masks and boundaries: one row per category (checklist_masks.cc)
    {"2.causal", "causal mask", 2, &JudgeMaskCategory, kCausal},
    {"2.causal_alignment", "causal with s_q > 1 and s_q != s_k (bottom-right alignment)", 2,
     &JudgeMaskCategory, kCausalAlignment},
    {"2.window", "sliding window", 2, &JudgeMaskCategory, kWindow},
    {"2.varlen", "variable-length batches (layout varlen)", 2, &JudgeMaskCategory, kVarlen},
    {"2.padding", "key padding (lengths shorter than s_k)", 2, &JudgeMaskCategory, kPadding},
    {"2.paged", "paged KV cache (layout paged)", 2, &JudgeMaskCategory, kPaged},
    {"2.partial_block", "s_k not a multiple of the 64-key block", 2, &JudgeMaskCategory,
     kPartialBlock},
    {"2.block_edges", "s_k one key either side of a block edge (64m-1, 64m+1)", 2,
     &JudgeMaskCategory, kBlockEdges},
    {"2.invalid_indices", "sparse indices out of range or -1", 2, &JudgeMaskCategory,
     kInvalidIndices},
    {"2.coverage", "mask and boundary coverage", 2, &JudgeMaskCoverage},
    {"2.agent_questions", "the agent's high-severity questions answered", 2, &JudgeAgentQuestions},
    // 3 shared memory and registers (evidence/resources.json): the gates by their name
    {"3.build", "compile evidence (ptxas -v)", 3, &JudgeBuild},
    {"3.head_builds", "head_builds", 3, &JudgeGate},
    {"3.registers_max", "registers_max", 3, &JudgeGate},
    {"3.no_new_spills", "no_new_spills", 3, &JudgeGate},
    {"3.smem_within_cap", "smem_within_cap", 3, &JudgeSmemGate},
    {"3.occupancy_not_lower", "occupancy_not_lower", 3, &JudgeGate},
    {"3.bank_conflicts", "shared-memory bank conflicts", 3, &JudgeBankConflicts},
    {"3.agent_questions", "the agent's high-severity questions answered", 3, &JudgeAgentQuestions},
    // 4 GEMM tile scheduling
    {"4.unaligned_gemm", "GEMM shapes off the 128 tile (boundary guards)", 4, &JudgeUnalignedGemm},
    {"4.perf", "time and throughput before and after, same shapes", 4, &JudgePerf},
    {"4.agent_questions", "the agent's high-severity questions answered", 4, &JudgeAgentQuestions},
    // 5 split-k
    {"5.num_splits", "num_splits invariance at several sequence lengths", 5, &JudgeNumSplits},
    {"5.agent_questions", "the agent's high-severity questions answered", 5, &JudgeAgentQuestions},
    // 6 attention interface
    {"6.padded_strides", "padded strides (rows longer than the data)", 6, &JudgePaddedStrides},
    {"6.output_contract", "output names, shapes and dtypes", 6, &JudgeOutputContract},
    {"6.agent_questions", "the agent's high-severity questions answered", 6, &JudgeAgentQuestions},
    // 7 fallback
    {"7.path_recorded", "the chosen kernel path is recorded", 7, &JudgePathRecorded},
    {"7.paths_exercised", "more than one path exercised (the old path can still be selected)", 7,
     &JudgePathsExercised},
    {"7.fallback_kept", "no fallback removed without evidence", 7, &JudgeFallbackKept},
    {"7.agent_questions", "the agent's high-severity questions answered", 7, &JudgeAgentQuestions},
    // 8 evidence: judged last, over the checks above
    {"8.files", "cited files exist and match their sha256", 8, &JudgeFiles},
    {"8.evidence_bound", "every evidence file is what its stage wrote in its latest run", 8,
     &JudgeEvidenceBound},
    {"8.review", "the diff was reviewed", 8, &JudgeReviewed},
    {"8.findings_verifiable", "every finding names the command that verifies it", 8,
     &JudgeFindingsVerifiable},
    {"8.agent_review", "the agent review ran, its findings held to evidence", 8, &JudgeAgentReview},
    {"8.conclusions_cited", "every conclusion cites evidence", 8, &JudgeConclusionsCited},
};

}  // namespace

std::span<const CheckDef> Checks() { return kChecks; }

const CheckDef* FindCheckDef(std::string_view id) {
  for (const CheckDef& def : kChecks) {
    if (def.id == id) return &def;
  }
  return nullptr;
}

std::string_view ItemTitle(int item) {
  return item >= 1 && item <= kItemCount ? kItemTitles[item - 1] : std::string_view("?");
}

}  // namespace av::checklist
