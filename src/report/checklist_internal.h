// Shared pieces of the checklist engine, defined in checklist_internal.cc (checklist.cc
// assembles items and the verdict; checklist_numerics.cc builds items 1-2,
// checklist_kernel.cc items 3-7). Internal to report/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/checklist.h"

namespace av::checklist {

// Where a failing base case's failure is explained (doc/report.md, "Attribution"): the
// mask check whose category fails on every case, and/or that the case's localisation
// hint names. That check FAILs with the case; other checks holding it do not.
struct ReportAttribution {
  std::string check_id;  // "2.causal_alignment"
  std::string cases;     // what its cases are, for notes: "causal s_q > 1 cases"
  std::string
      why;  // "every one of its 18 cases fails; the hints say the causal mask is misaligned"
};

struct Context {
  const Evidence& ev;
  const ReportConfig& cfg;
  std::string numerics_cmd, build_cmd, review_cmd, profile_cmd, bank_conflicts_cmd;
  std::map<const NumericsCase*, ReportAttribution> attribution;  // failing base cases only
};

// Shell-quotes an argument when it needs it.
std::string QuoteArg(const std::string& s);

Context MakeContext(const Evidence& ev, const ReportConfig& cfg);

Citation Cite(const EvidenceFile& f, std::string subject = "");
Check MakeCheck(std::string id, std::string title, CheckStatus status, std::string summary);
Check Missing(std::string id, std::string title, std::string summary, std::string command);

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
Check NoNumerics(const Context& ctx, std::string id, std::string title);
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
    const Context& ctx, const std::string& self_id,
    const std::vector<const NumericsCase*>& failing);
// A check whose every failure is attributed elsewhere: PASS with a note when `passing`
// holds cases, else MISSING (nothing shows the category works). `noun`: "padding cases".
Check ExplainedElsewhere(const Context& ctx, std::string id, std::string title,
                         const std::string& noun, const std::vector<const NumericsCase*>& passing,
                         const std::vector<const NumericsCase*>& failing, const std::string& how);
std::vector<Finding> FindingsOf(const Context& ctx, int item);

// Checks of items 1-7 (item 8 is judged in checklist.cc, over the other seven).
std::vector<Check> NumericsChecks(const Context& ctx);                                   // item 1
std::vector<Check> MaskChecks(const Context& ctx, std::vector<CoverageCell>* coverage);  // item 2
std::vector<Check> ResourceChecks(const Context& ctx);                                   // item 3
std::vector<Check> GemmChecks(const Context& ctx);                                       // item 4
std::vector<Check> SplitKChecks(const Context& ctx);                                     // item 5
std::vector<Check> InterfaceChecks(const Context& ctx);                                  // item 6
std::vector<Check> FallbackChecks(const Context& ctx);                                   // item 7

}  // namespace av::checklist
