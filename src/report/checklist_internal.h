// Shared pieces of the checklist engine (internal to report/): the Context every judge
// reads, the helpers the judges share (checklist_internal.cc), and the judges of the
// check table (checklist_table.cc): item 1 in checklist_numerics.cc, item 2 in
// checklist_masks.cc, item 3 in checklist_resources.cc, items 4-7 in checklist_kernel.cc,
// item 8 in checklist_evidence.cc. checklist.cc runs them as named steps.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/gates.h"
#include "report/checklist.h"
#include "report/checklist_table.h"

namespace av::checklist {

// Where a failing base case's failure is explained (doc/report.md, "Attribution"): the
// mask check whose category fails on every case, and/or that the case's localisation
// hint names. That check FAILs with the case; other checks holding it do not.
struct ReportAttribution {
  std::string check_id;  // the id of a row of the check table
  std::string cases;     // what its cases are, for notes: "causal s_q > 1 cases"
  // "every one of its 18 cases fails; the hints say the causal mask is misaligned"
  std::string why;
};

struct Context {
  const Evidence& ev;
  const ReportConfig& cfg;
  // The commands that produce each stage's evidence, naming the config as cfg.path.
  std::string numerics_cmd, build_cmd, review_cmd, slice_cmd, run_cmd, profile_cmd,
      bank_conflicts_cmd;
  std::map<const NumericsCase*, ReportAttribution> attribution;  // failing base cases only
  std::vector<EvidenceBinding> bindings;  // every evidence file read, used or refused
  // Set before item 8 is judged: the evidence files read, and the checks of items 1-7
  // whose PASS/FAIL cited nothing (turned into MISSING).
  std::vector<EvidenceFile> files;
  std::vector<std::string> uncited;
  // evidence/agent_review.json as read (nullopt: absent) and its surviving findings, each
  // with its ledger row and command log (checklist_agent_questions.cc).
  std::optional<std::string> agent_text;
  std::vector<AgentQuestion> agent_questions;
};

// The commands of a context over `ev` (cfg.path: the config as commands name it); the
// attribution and the bindings are set by ComputeChecklist.
Context MakeContext(const Evidence& ev, const ReportConfig& cfg);

// ---- commands (checklist_commands.cc) ----
// (Quoting is core/shell_quote.h's ShellQuote and ShellJoin.)
// The config path the report's commands name (doc/report.md, "Commands").
std::string DisplayConfig(const Evidence& ev, const ReportConfig& cfg);
// A stage's recorded argv as the report shows it: "attnverify" for the binary, and a
// --config that names this package's attnverify.toml replaced by `display`.
std::string StageCommand(const StageEntry& e, const ReportConfig& cfg, const std::string& display);

// ---- binding (checklist_binding.cc) ----
// The evidence the checklist may judge: every file bound to its stage's entry in
// evidence/run.json is kept, every other one is removed (as if absent), with what it
// cites; `bindings` gets one row per file read. `commands` supplies the re-run commands.
Evidence BindEvidence(const Evidence& ev, const Context& commands,
                      std::vector<EvidenceBinding>* bindings);
const EvidenceBinding* BindingOf(const Context& ctx, const std::string& stage);
// Why a stage's file is absent for the checklist: "evidence/resources.json is not used:
// <why>" when it was refused, else "no FILE in the package[: what run.json says]".
std::string AbsentNote(const Context& ctx, const std::string& stage, const std::string& file);

Citation Cite(const EvidenceFile& f, std::string subject = "");
Check MakeCheck(const CheckDef& def, CheckStatus status, std::string summary);
Check Missing(const CheckDef& def, std::string summary, std::string command);

// Parameter lookup: params (shapes.json values) first, then op_params (strings).
std::optional<int64_t> IntParam(const NumericsCase& c, const char* key);
bool BoolParam(const NumericsCase& c, const char* key);
std::string StrParam(const NumericsCase& c, const char* key);

// "o worst |err| 2.48 at [b=0, row=1, head=1, channel=21]: candidate -2.81, reference -0.33;
// rule lowprec_multiple ($.ops.attention.o.bf16): <failure>" for each failed output.
std::vector<std::string> DescribeFailure(const NumericsCase& c);

bool IsSoftmaxOp(const std::string& op);
// Cases whose variant is "base" (invariance variants are judged by 1.invariance, 5.num_splits).
std::vector<const NumericsCase*> BaseCases(const NumericsEvidence& n);
// The largest error among a case's failed outputs (+inf when it failed before comparing).
double Severity(const NumericsCase& c);
void SortWorstFirst(std::vector<const NumericsCase*>* cases);
// Up to `limit` failing cases, worst first: failure lines, localisation hints, citations.
void AddFailures(const Context& ctx, std::vector<const NumericsCase*> failing, size_t limit,
                 Check* check);
std::string Plural(size_t n, const char* one, const char* many);  // "1 case", "3 cases"
// "a, b, c"
std::string JoinList(const std::vector<std::string>& items);
Check NoNumerics(const Context& ctx, const CheckDef& def);
// Why a stage's evidence is absent according to evidence/run.json ("the build stage failed:
// exit 2: ... (log logs/run-build.log)", "build skipped: no [build] table ..."); "" when
// run.json does not say.
std::string StageNote(const Context& ctx, const std::string& stage);

// The attribution of every failing base case (computed once, in MakeContext).
std::map<const NumericsCase*, ReportAttribution> AttributeFailures(const NumericsEvidence& n);
const ReportAttribution* AttributionOf(const Context& ctx, const NumericsCase* c);
// A case's localisation hints with identical o and lse lines merged:
// "o, lse: all errors in query rows i < s_q - 1 ...".
std::vector<std::string> MergedHints(const NumericsCase& c);
// Up to 5 failing cases, worst first, one line each (id: first hint, else first failure
// line), then "... and N more"; cites the cases listed.
void ListFailures(const Context& ctx, std::vector<const NumericsCase*> failing, Check* check);
// The failing cases of check `self_id` that are attributed to another check.
std::vector<const NumericsCase*> AttributedElsewhere(
    const Context& ctx, std::string_view self_id, const std::vector<const NumericsCase*>& failing);
// A check whose every failure is attributed elsewhere: PASS with a note when `passing`
// holds cases, else MISSING (nothing shows the category works). `noun`: "padding cases".
Check ExplainedElsewhere(const Context& ctx, const CheckDef& def, const std::string& noun,
                         const std::vector<const NumericsCase*>& passing,
                         const std::vector<const NumericsCase*>& failing, const std::string& how);
std::vector<Finding> FindingsOf(const Context& ctx, int item);

// Numerics coverage per (op, mask category) and (op, dtype), for the HTML grid.
std::vector<CoverageCell> ComputeCoverage(const Context& ctx);

// The mask and boundary categories of item 2, one row of the check table each (its arg).
enum MaskCategory : int {
  kCausal,
  kCausalAlignment,
  kWindow,
  kVarlen,
  kPadding,
  kPaged,
  kPartialBlock,
  kBlockEdges,
  kInvalidIndices,
  kMaskCategoryCount
};

// ---- the judges of the check table (checklist_table.cc lists which row uses which) ----
// Item 1 (checklist_numerics.cc).
// Why numerics.json is narrower than the sweep it names (a filter, a shard, a merge with
// missing shards, fewer cases than summary.cases_total, a verdict of fail its cases do not
// explain): "evidence/numerics.json is narrower than its sweep: ..."; "" when it is not.
std::string NarrowedNumerics(const NumericsEvidence& n);
// On narrowed numerics evidence no check of items 1-7 that cites it passes: each PASS
// becomes MISSING saying why, each FAIL stays FAIL with a note, and `warnings` gets one
// line for the whole report (doc/report.md, "A narrower sweep").
void DemoteNarrowedPasses(const Context& ctx, std::vector<Check>* checks,
                          std::vector<std::string>* warnings);
// 1.sweep_complete: PASS when numerics.json holds the whole sweep, else MISSING.
std::optional<Check> JudgeSweepComplete(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeBaseCases(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeDtypes(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeSoftmaxStability(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeInvariance(const Context& ctx, const CheckDef& def);
// review.json's config_changes: FAIL when the package's own config was loosened.
std::optional<Check> JudgeConfigUnchanged(const Context& ctx, const CheckDef& def);
// pytest's JUnit XML against numerics.json, case by case (checklist_junit.cc).
std::optional<Check> JudgeJUnitAgrees(const Context& ctx, const CheckDef& def);
// Which tolerances file (and its sha256) judged the cases, shown under item 1.
std::vector<std::string> NumericsNotes(const Context& ctx);
// Item 2 (checklist_masks.cc): one judge for every mask category (def.arg picks it).
std::optional<Check> JudgeMaskCategory(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeMaskCoverage(const Context& ctx, const CheckDef& def);
// Item 3 (checklist_resources.cc).
// The build's warnings and unmatched [[build.kernel]] entries, shown under item 3.
std::vector<std::string> BuildNotes(const Context& ctx);
// What numerics.json's containment holds against the candidate (no sandbox, processes it
// left, timeouts, package changes, warnings), shown under item 8 (checklist_evidence.cc).
std::vector<std::string> ContainmentNotes(const Context& ctx);
std::optional<Check> JudgeBuild(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeGate(const Context& ctx, const CheckDef& def);  // "3.<gate>"
// smem_within_cap: the gate, plus ptxas's overflow per kernel when it failed.
std::optional<Check> JudgeSmemGate(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeBankConflicts(const Context& ctx, const CheckDef& def);
// Items 4-7 (checklist_kernel.cc).
std::optional<Check> JudgeUnalignedGemm(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgePerf(const Context& ctx, const CheckDef& def);
// The perf gates over evidence/perf.json (checklist_perf.cc); empty without it.
profile::PerfVerdict PerfVerdictOf(const Context& ctx);
// One bar per matched kernel and shape with a time on both sides, for the writers.
std::vector<PerfBar> PerfBars(const Context& ctx);
std::optional<Check> JudgeNumSplits(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgePaddedStrides(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeOutputContract(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgePathRecorded(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgePathsExercised(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeFallbackKept(const Context& ctx, const CheckDef& def);
// Item 8 (checklist_evidence.cc), judged after items 1-7 (it reads ctx.files, ctx.uncited).
std::optional<Check> JudgeFiles(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeEvidenceBound(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeReviewed(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeFindingsVerifiable(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeAgentReview(const Context& ctx,
                                      const CheckDef& def);  // checklist_agent.cc
// ---- the agent's findings (checklist_agent_questions.cc) ----
// Reads evidence/agent_review.json, evidence/token_ledger.csv and logs/agent-cmd-*.log of
// the package (cfg.package_dir) into ctx->agent_text and ctx->agent_questions; nothing
// when the package has no agent review. A file that does not parse gives no questions
// (8.agent_review says what is wrong with it).
void LoadAgentQuestions(Context* ctx);
// The item an agent question is listed under: its own when 1..7, else 8.
int AgentQuestionItem(const AgentQuestion& q);
// N.agent_questions (N = def.item): MISSING while a high-severity agent question on item N
// is open, with its command; nullopt when none is (resolved questions are listed only).
std::optional<Check> JudgeAgentQuestions(const Context& ctx, const CheckDef& def);
std::optional<Check> JudgeConclusionsCited(const Context& ctx, const CheckDef& def);

}  // namespace av::checklist
