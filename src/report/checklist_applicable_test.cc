// N/A: a check that does not apply to the change (item 4's GEMM shapes for a change with no
// GEMM op swept and no GEMM code changed; item 7's second path for a one-path candidate
// whose change selects no path differently) reads N/A with its evidence cited and does not
// hold the verdict back. A check that may apply and has no evidence stays MISSING.
#include <gtest/gtest.h>

#include "core/sha256.h"
#include "report/checklist.h"
#include "report/checklist_test_util.h"

namespace av {
namespace {

using report_testing::Case;
using report_testing::Compute;
using report_testing::FindCheck;
using report_testing::Numerics;

std::string Attention(const std::string& id, const std::string& params = R"({"s_k": 64})") {
  return Case(id, "attention", params, true,
              R"(, "candidate": {"metadata": {"kernel_path": "fwd"}})");
}

ReviewEvidence Review(const std::string& findings, const std::string& diffs) {
  Result<ReviewEvidence> r = ParseReviewEvidence(
      R"({"schema": "attnverify.review/1", "reviewer": "builtin", "diffs": )" + diffs +
          R"(, "findings": )" + findings + "}",
      "evidence/review.json");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : ReviewEvidence{};
}

// slice.json as the report holds it: the file and its components' changed files.
void Slice(Evidence* ev, const std::vector<std::pair<std::string, std::string>>& files) {
  EvidenceFile f;
  f.path = "evidence/slice.json";
  f.sha256 = Sha256Hex("slice");
  ev->slice = f;
  ev->slice_components.clear();
  for (const auto& [component, path] : files) {
    SliceComponentRecord* c = nullptr;
    for (SliceComponentRecord& x : ev->slice_components) {
      if (x.name == component) c = &x;
    }
    if (c == nullptr) {
      ev->slice_components.push_back({component, {}, "diff/" + component + ".diff", "", 0, {}});
      c = &ev->slice_components.back();
    }
    SliceFileRecord r;
    r.path = r.new_path = r.old_path = path;
    r.status = "modified";
    c->files.push_back(r);
  }
}

constexpr const char* kAttentionDiff =
    R"([{"component": "main_attention", "path": "diff/main_attention.diff", "sha256": "aa", "files": 1, "kind": "attention"}])";

TEST(ChecklistApplicable, GemmShapesDoNotApplyToAnAttentionOnlyChange) {
  Evidence ev;
  ev.numerics = Numerics({Attention("a"), Attention("b", R"({"s_k": 65})")});
  ev.review = Review("[]", kAttentionDiff);
  Slice(&ev, {{"main_attention", "src/main_attention/fwd.cu"}});
  ChecklistReport r = Compute(ev);
  const Check* gemm = FindCheck(r, "4.unaligned_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->status, CheckStatus::kNotApplicable) << gemm->summary;
  EXPECT_NE(gemm->summary.find("no GEMM op in the sweep and no GEMM code in the change"),
            std::string::npos)
      << gemm->summary;
  // It cites what shows it: the sweep and the changed files.
  ASSERT_EQ(gemm->citations.size(), 2u);
  EXPECT_EQ(gemm->citations[0].file, "evidence/numerics.json");
  EXPECT_EQ(gemm->citations[1].file, "evidence/slice.json");
  // 4.perf is optional offline, so the item is N/A and does not block the default policy.
  EXPECT_EQ(r.items[3].status, CheckStatus::kNotApplicable) << r.items[3].reason;
  EXPECT_EQ(std::string(CheckStatusName(r.items[3].status)), "N/A");
}

TEST(ChecklistApplicable, GemmCodeInTheChangeOrNoEvidenceOfItKeepsItMissing) {
  Evidence ev;
  ev.numerics = Numerics({Attention("a")});
  ev.review = Review("[]", kAttentionDiff);
  // A GEMM file among the changed ones: the check applies, and nothing judged it.
  Slice(&ev, {{"main_attention", "src/main_attention/fwd.cu"},
              {"kernels", "csrc/deep_gemm/fp8_gemm.cuh"}});
  const Check* gemm = FindCheck(Compute(ev), "4.unaligned_gemm");
  EXPECT_EQ(gemm->status, CheckStatus::kMissing);
  EXPECT_NE(gemm->summary.find("csrc/deep_gemm/fp8_gemm.cuh (component kernels) is GEMM code"),
            std::string::npos)
      << gemm->summary;
  // A component the package calls GEMM, whatever its paths say.
  ev.review = Review("[]",
                     R"([{"component": "mm", "path": "diff/mm.diff", "sha256": "aa", "files": 1, "kind": "gemm"}])");
  Slice(&ev, {{"mm", "src/kernel.cu"}});
  EXPECT_EQ(FindCheck(Compute(ev), "4.unaligned_gemm")->status, CheckStatus::kMissing);
  // Undecidable: no slice.json, no review.json, or no changed file at all.
  ev.review = Review("[]", kAttentionDiff);
  Slice(&ev, {});
  EXPECT_EQ(FindCheck(Compute(ev), "4.unaligned_gemm")->status, CheckStatus::kMissing);
  ev.slice.reset();
  EXPECT_EQ(FindCheck(Compute(ev), "4.unaligned_gemm")->status, CheckStatus::kMissing);
  Slice(&ev, {{"main_attention", "src/main_attention/fwd.cu"}});
  ev.review.reset();
  EXPECT_EQ(FindCheck(Compute(ev), "4.unaligned_gemm")->status, CheckStatus::kMissing);
}

TEST(ChecklistApplicable, SkippedGemmCasesMeanTheCheckApplies) {
  Evidence ev;
  ev.numerics = Numerics({Attention("a")});
  ev.numerics->skipped.push_back({"g.m=3", "fp8_gemm", "the test handles attention only"});
  ev.review = Review("[]", kAttentionDiff);
  Slice(&ev, {{"main_attention", "src/main_attention/fwd.cu"}});
  const Check* gemm = FindCheck(Compute(ev), "4.unaligned_gemm");
  EXPECT_EQ(gemm->status, CheckStatus::kMissing);
  EXPECT_NE(gemm->summary.find("skipped every GEMM case"), std::string::npos) << gemm->summary;
}

TEST(ChecklistApplicable, ASecondPathIsNotNeededWhenTheChangeSelectsNoPath) {
  Evidence ev;
  ev.numerics = Numerics({Attention("a"), Attention("b")});
  ev.review = Review("[]", kAttentionDiff);
  ChecklistReport r = Compute(ev);
  const Check* paths = FindCheck(r, "7.paths_exercised");
  EXPECT_EQ(paths->status, CheckStatus::kNotApplicable) << paths->summary;
  EXPECT_EQ(paths->citations.size(), 2u);
  // Item 7 still passes on what it has: the path recorded, no fallback removed.
  EXPECT_EQ(r.items[6].status, CheckStatus::kPass) << r.items[6].reason;
  EXPECT_NE(r.items[6].reason.find("1 not applicable"), std::string::npos) << r.items[6].reason;
  // A change that touches a fallback: one path is not enough.
  ev.review = Review(
      R"([{"id": "F7", "rule": "fallback.removed", "severity": "error", "file": "a.cu", "line": 9, "checklist_item": 7,
           "title": "legacy path removed", "verify": "attnverify numerics --config c"}])",
      kAttentionDiff);
  paths = FindCheck(Compute(ev), "7.paths_exercised");
  EXPECT_EQ(paths->status, CheckStatus::kMissing);
  EXPECT_NE(paths->summary.find("touches a fallback (F7)"), std::string::npos) << paths->summary;
  // No review: nothing shows the change leaves path selection alone.
  ev.review.reset();
  EXPECT_EQ(FindCheck(Compute(ev), "7.paths_exercised")->status, CheckStatus::kMissing);
}

TEST(ChecklistApplicable, NotApplicableItemsDoNotBlockButNeverAcceptAlone) {
  Evidence ev;
  ev.numerics = Numerics({Attention("a"), Attention("b", R"({"s_k": 65, "padded": true})")});
  ev.review = Review("[]", kAttentionDiff);
  Slice(&ev, {{"main_attention", "src/main_attention/fwd.cu"}});
  // Required: item 4 (N/A) and item 6 (passes on the cases' outputs).
  ChecklistReport r = Compute(ev, "[policy]\nrequired = [4, 6]\n");
  ASSERT_EQ(r.items[3].status, CheckStatus::kNotApplicable);
  ASSERT_EQ(r.items[5].status, CheckStatus::kPass) << r.items[5].reason;
  EXPECT_EQ(r.verdict, ReportVerdict::kAccepted) << r.verdict_reason;
  EXPECT_NE(r.verdict_reason.find("item 4 not applicable"), std::string::npos) << r.verdict_reason;
  // Only N/A items required: nothing passed on its evidence, so nothing is accepted.
  r = Compute(ev, "[policy]\nrequired = [4]\n");
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete) << r.verdict_reason;
}

}  // namespace
}  // namespace av
