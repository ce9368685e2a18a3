// Evidence narrower than the sweep it names (issue 34 B): a merge with a missing shard, a
// filtered run, an unmerged shard, fewer cases than the sweep holds. No check that cites
// such a numerics.json passes (its PASSes are MISSING, saying why); its FAILs stand; the
// report says so at the top; and a package can never be ACCEPTED on it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/checklist_test_util.h"

namespace av {
namespace {

using report_testing::Case;
using report_testing::Compute;
using report_testing::FindCheck;

// One sparse attention case is all item 6 needs to PASS (6.output_contract): the
// smallest package that can be ACCEPTED with [policy] required = [6].
const std::string kPassing = Case("sp", "sparse_attention", R"({"indices": "mixed"})", true);
const std::string kFailing = Case("sp2", "sparse_attention", R"({"indices": "mixed"})", false);

// A numerics.json as attnverify writes it (schema /2): `extra` holds its shard, filter,
// summary and verdict members.
NumericsEvidence Numerics2(const std::vector<std::string>& cases, const std::string& extra) {
  std::string text = R"({"schema": "attnverify.numerics/2", )" + extra + R"(, "cases": [)";
  for (size_t i = 0; i < cases.size(); ++i) text += (i ? "," : "") + cases[i];
  text += "]}";
  Result<NumericsEvidence> n = ParseNumericsEvidence(text, "evidence/numerics.json");
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? *n : NumericsEvidence{};
}

Evidence With(NumericsEvidence n) {
  Evidence ev;
  ev.numerics = std::move(n);
  return ev;
}

const char* kOnly6 = "[policy]\nrequired = [6]\n";

TEST(ChecklistNarrowed, TheWholeSweepPassesAndIsAccepted) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing}, R"("summary": {"cases_total": 1}, "verdict": "pass")")), kOnly6);
  EXPECT_EQ(r.verdict, ReportVerdict::kAccepted) << r.verdict_reason;
  const Check* c = FindCheck(r, "1.sweep_complete");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kPass) << c->summary;
  EXPECT_TRUE(r.warnings.empty());
}

// The Slurm finding: `merge --allow-missing` wrote verdict fail with shard 2/4 missing,
// and the report accepted it with the items the sweep answers required.
TEST(ChecklistNarrowed, PartialMergeIsNeverAccepted) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing},
                     R"("shard": {"index": 0, "count": 1, "missing": [2], "merged_from": [
                          {"path": "evidence/numerics.json.shard0of4", "sha256": "", "index": 0,
                           "count": 4}]},
                        "summary": {"cases_total": 4}, "verdict": "fail")")),
      kOnly6);
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted) << r.verdict_reason;
  const Check* contract = FindCheck(r, "6.output_contract");
  ASSERT_NE(contract, nullptr);
  EXPECT_EQ(contract->status, CheckStatus::kMissing);
  EXPECT_NE(contract->summary.find("shard(s) 2/4 are missing"), std::string::npos)
      << contract->summary;
  EXPECT_NE(contract->missing_command.find("attnverify numerics"), std::string::npos);
  EXPECT_EQ(r.items[5].status, CheckStatus::kMissing);
  EXPECT_NE(r.items[5].reason.find("narrowed sweep"), std::string::npos) << r.items[5].reason;
  const Check* sweep = FindCheck(r, "1.sweep_complete");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(sweep->status, CheckStatus::kMissing);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("holds 1 of the 4 cases"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("6.output_contract"), std::string::npos) << r.warnings[0];
}

// The newcomer's finding: a one-case `--filter` run in numerics.json's place.
TEST(ChecklistNarrowed, FilteredEvidenceIsNeverAPass) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing},
                     R"("filter": "sp", "summary": {"cases_total": 1}, "verdict": "pass")")),
      kOnly6);
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
  const Check* sweep = FindCheck(r, "1.sweep_complete");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(sweep->status, CheckStatus::kMissing);
  EXPECT_NE(sweep->summary.find("--filter \"sp\""), std::string::npos) << sweep->summary;
  EXPECT_EQ(FindCheck(r, "6.output_contract")->status, CheckStatus::kMissing);
}

TEST(ChecklistNarrowed, FailuresOnNarrowedEvidenceStillCount) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing, kFailing},
                     R"("summary": {"cases_total": 9}, "verdict": "fail")")));
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected) << r.verdict_reason;
  const Check* base = FindCheck(r, "1.base_cases");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->status, CheckStatus::kFail);
  ASSERT_FALSE(base->details.empty());
  EXPECT_NE(base->details.back().find("judged on a narrowed sweep"), std::string::npos)
      << base->details.back();
}

TEST(ChecklistNarrowed, AnUnmergedShardIsNarrowed) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing}, R"("shard": {"index": 1, "count": 2},
                                    "summary": {"cases_total": 1}, "verdict": "pass")")),
      kOnly6);
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
  EXPECT_NE(FindCheck(r, "1.sweep_complete")->summary.find("shard 1/2 of the sweep, not merged"),
            std::string::npos);
}

TEST(ChecklistNarrowed, AFailVerdictItsCasesDoNotExplainIsNotAPass) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing}, R"("summary": {"cases_total": 1}, "verdict": "fail")")), kOnly6);
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
  EXPECT_NE(FindCheck(r, "1.sweep_complete")->summary.find("its own verdict is fail"),
            std::string::npos);
}

// Item 1's notes record the sweep's size beside what the file holds.
TEST(ChecklistNarrowed, ItemOneNotesTheSweepsSize) {
  ChecklistReport r = Compute(
      With(Numerics2({kPassing}, R"("summary": {"cases_total": 3}, "verdict": "pass")")));
  bool noted = false;
  for (const std::string& n : r.items[0].notes)
    noted |= n.find("holds 1 of the 3 cases") != std::string::npos;
  EXPECT_TRUE(noted);
}


// Cases the tests skipped (numerics.json "skipped", from the pytest plugin): the sweep is
// narrowed by them, so 1.sweep_complete is MISSING and no verdict is ACCEPTED on them; a
// check none of the skipped cases could count for is judged on what ran, the skips listed;
// a check that could have counted a skipped case never passes.
const std::string kGemmOffTile =
    Case("g", "gemm", R"({"m": 3, "n": 130, "k": 200})", true);
const char* kSkippedAttention =
    R"("skipped": [{"id": "a1", "op": "attention", "reason": "test_gemm skipped it: not gemm"},
                   {"id": "a2", "op": "mla_decode", "reason": "test_gemm skipped it: not gemm"}])";

TEST(ChecklistNarrowed, SkippedCasesNarrowTheSweepAndNeverPassAChecksTheyCouldCountFor) {
  ChecklistReport r = Compute(
      With(Numerics2({kGemmOffTile}, std::string(R"("summary": {"cases_total": 3}, "verdict": "pass", )") +
                                         kSkippedAttention)),
      "[policy]\nrequired = [4]\n");
  const Check* sweep = FindCheck(r, "1.sweep_complete");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(sweep->status, CheckStatus::kMissing);
  EXPECT_NE(sweep->summary.find("the tests skipped 2 cases (attention 1, mla_decode 1), not judged "
                                "(first a1: test_gemm skipped it: not gemm)"),
            std::string::npos)
      << sweep->summary;
  // Every op counts for 1.base_cases: one of three cases is not a pass of the sweep.
  const Check* base = FindCheck(r, "1.base_cases");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->status, CheckStatus::kMissing) << base->summary;
  // No skipped case is a GEMM: the tile check is judged on the GEMM case that ran.
  const Check* gemm = FindCheck(r, "4.unaligned_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->status, CheckStatus::kPass) << gemm->summary;
  bool listed = false;
  for (const std::string& d : gemm->details)
    listed |= d.find("the tests skipped 2 cases") != std::string::npos;
  EXPECT_TRUE(listed);
  // Item 4 alone required: judged on the GEMM cases that ran, it may accept; with item 1
  // required too, the skipped cases keep the package from ACCEPTED.
  EXPECT_EQ(r.verdict, ReportVerdict::kAccepted) << r.verdict_reason;
  r = Compute(With(Numerics2({kGemmOffTile},
                             std::string(R"("summary": {"cases_total": 3}, "verdict": "pass", )") +
                                 kSkippedAttention)),
              "[policy]\nrequired = [1, 4]\n");
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete) << r.verdict_reason;
}

TEST(ChecklistNarrowed, ASkippedGemmCaseKeepsTheTileCheckFromPassing) {
  ChecklistReport r = Compute(
      With(Numerics2({kGemmOffTile},
                     R"("summary": {"cases_total": 2}, "verdict": "pass",
                        "skipped": [{"id": "g2", "op": "fp8_gemm", "reason": "test skipped it"}])")),
      "[policy]\nrequired = [4]\n");
  const Check* gemm = FindCheck(r, "4.unaligned_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->status, CheckStatus::kMissing) << gemm->summary;
  EXPECT_NE(gemm->summary.find("not judged on a narrowed sweep"), std::string::npos) << gemm->summary;
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
}

TEST(ChecklistNarrowed, SkipsBesideAFilterDemoteEveryPass) {
  ChecklistReport r = Compute(
      With(Numerics2({kGemmOffTile}, std::string(R"("filter": "^g", "summary": {"cases_total": 3}, "verdict": "pass", )") +
                                         kSkippedAttention)),
      "[policy]\nrequired = [4]\n");
  const Check* gemm = FindCheck(r, "4.unaligned_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->status, CheckStatus::kMissing) << gemm->summary;
}

TEST(ChecklistNarrowed, ASkippedEntryWithoutAnIdIsAnError) {
  Result<NumericsEvidence> n = ParseNumericsEvidence(
      R"({"schema": "attnverify.numerics/2", "cases": [], "skipped": [{"op": "gemm", "reason": "x"}]})",
      "evidence/numerics.json");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("$.skipped[0].id"), std::string::npos) << n.status().message();
}

}  // namespace
}  // namespace av
