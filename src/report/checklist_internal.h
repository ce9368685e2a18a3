// Shared pieces of the checklist engine (checklist.cc assembles items and the verdict;
// checklist_numerics.cc builds items 1-2, checklist_kernel.cc items 3-7). Internal to report/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/checklist.h"

namespace av::checklist {

struct Context {
  const Evidence& ev;
  const ReportConfig& cfg;
  std::string numerics_cmd, build_cmd, review_cmd, profile_cmd, bank_conflicts_cmd;
};

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
void AddFailures(const Context& ctx, std::vector<const NumericsCase*> failing, size_t limit, Check* check);
std::string Plural(size_t n, const char* one, const char* many);  // "1 case", "3 cases"
Check NoNumerics(const Context& ctx, std::string id, std::string title);
std::vector<FindingView> FindingsOf(const Context& ctx, int item);

// Checks of items 1-7 (item 8 is judged in checklist.cc, over the other seven).
std::vector<Check> NumericsChecks(const Context& ctx);      // item 1
std::vector<Check> MaskChecks(const Context& ctx, std::vector<CoverageCell>* coverage);  // item 2
std::vector<Check> ResourceChecks(const Context& ctx);      // item 3
std::vector<Check> GemmChecks(const Context& ctx);          // item 4
std::vector<Check> SplitKChecks(const Context& ctx);        // item 5
std::vector<Check> InterfaceChecks(const Context& ctx);     // item 6
std::vector<Check> FallbackChecks(const Context& ctx);      // item 7

}  // namespace av::checklist
