// Failure attribution in the checklist: one kernel bug fails the one check it is a case of,
// and the other checks its cases sit in pass with a note (or fail when something else
// explains their failures). The rest of the engine: checklist_test.cc.
#include <gtest/gtest.h>

#include "report/checklist.h"
#include "report/checklist_internal.h"
#include "report/checklist_test_util.h"

namespace av {
namespace {

using report_testing::Case;
using report_testing::Compute;
using report_testing::FindCheck;
using report_testing::Numerics;

// The demo's shape: one mask bug (causal, s_q > 1) fails every case of 2.causal_alignment;
// the same cases also sit in 2.padding, 2.partial_block and padded strides.
std::string MaskBugCase(const std::string& id, const std::string& params) {
  const std::string hint =
      "all 12 errors in query rows i < s_q - 1 (not the last query row of each sequence): the "
      "causal "
      "mask is misaligned for s_q > 1 (row i must see keys j <= i + s_k - s_q, bottom-right "
      "aligned)";
  return R"({"id": ")" + id +
         R"(", "op": "mla_decode", "dtype": "bf16", "verdict": "fail", "reason": "o: off",
             "params": )" +
         params + R"(, "outputs": [
               {"name": "o", "passed": false, "compare": {"metrics": {"max_abs": 2.0}, "failures": ["12 of 64 fail"]}},
               {"name": "lse", "passed": false, "compare": {"metrics": {"max_abs": 1.0}, "failures": ["3 of 8 fail"]}}],
             "localisation": {"hints": ["o: )" +
         hint + R"(", "lse: )" + hint + R"("]}})";
}

std::vector<std::string> MaskBugSweep() {
  std::vector<std::string> cases;
  for (int sk : {64, 128, 140}) {
    for (int sq : {2, 4}) {
      cases.push_back(MaskBugCase("bug.s_k=" + std::to_string(sk) + ".s_q=" + std::to_string(sq),
                                  R"({"causal": true, "lengths": "random", "s_q": )" +
                                      std::to_string(sq) + R"(, "s_k": )" + std::to_string(sk) +
                                      "}"));
    }
    cases.push_back(Case(
        "ok.s_k=" + std::to_string(sk), "mla_decode",
        R"({"causal": true, "lengths": "random", "s_q": 1, "s_k": )" + std::to_string(sk) + "}",
        true));
  }
  cases.push_back(MaskBugCase(
      "bug.padded",
      R"({"causal": true, "lengths": "random", "padded": true, "s_q": 2, "s_k": 300})"));
  return cases;
}

TEST(ChecklistAttributionTest, OneMaskBugFailsOneCheckAndTheOthersPassWithANote) {
  Evidence ev;
  ev.numerics = Numerics(MaskBugSweep());
  ChecklistReport r = Compute(ev);
  const Check* align = FindCheck(r, "2.causal_alignment");
  ASSERT_NE(align, nullptr);
  EXPECT_EQ(align->status, CheckStatus::kFail);
  EXPECT_EQ(align->summary, "all 7 cases failed");
  // It names the checks whose failures it explains, and lists 5 cases, one line each.
  ASSERT_FALSE(align->details.empty());
  EXPECT_EQ(align->details[0].rfind("explains the failures of ", 0), 0u) << align->details[0];
  EXPECT_NE(align->details[0].find("2.padding"), std::string::npos) << align->details[0];
  EXPECT_NE(align->details[0].find("6.padded_strides"), std::string::npos) << align->details[0];
  ASSERT_EQ(align->details.size(), 7u);  // explains-line, 5 cases, "... and 2 more"
  EXPECT_EQ(align->details[6], "... and 2 more in evidence/numerics.json");
  EXPECT_EQ(align->details[1].rfind("bug.", 0), 0u) << align->details[1];
  EXPECT_NE(align->details[1].find(": o, lse: all errors in query rows i < s_q - 1"),
            std::string::npos)
      << align->details[1];
  EXPECT_EQ(align->citations.size(), 5u);

  const Check* padding = FindCheck(r, "2.padding");
  EXPECT_EQ(padding->status, CheckStatus::kPass);
  EXPECT_EQ(
      padding->summary,
      "3 key-padding cases pass (e.g. ok.s_k=64); its 7 failures are all causal s_q > 1 cases, see "
      "2.causal_alignment");
  EXPECT_EQ(padding->attributed_to, std::vector<std::string>{"2.causal_alignment"});
  EXPECT_TRUE(padding->details.empty());
  EXPECT_EQ(FindCheck(r, "2.partial_block")->status, CheckStatus::kPass);
  EXPECT_EQ(FindCheck(r, "2.block_edges")->status,
            CheckStatus::kMissing);  // no s_k = 64m+-1 case judged

  // Item 6: the padded case failed from the mask bug; no padded case passed: MISSING, not FAIL.
  const Check* padded = FindCheck(r, "6.padded_strides");
  EXPECT_EQ(padded->status, CheckStatus::kMissing);
  EXPECT_NE(padded->summary.find("its 1 failure is a causal s_q > 1 case, see 2.causal_alignment"),
            std::string::npos)
      << padded->summary;
  EXPECT_NE(r.items[5].status, CheckStatus::kFail);

  // Item 1 still fails (cases failed), names the attribution, details at most 3 cases.
  const Check* base = FindCheck(r, "1.base_cases");
  EXPECT_EQ(base->status, CheckStatus::kFail);
  EXPECT_NE(base->summary.find("7 of 10 base cases failed, all attributed to 2.causal_alignment"),
            std::string::npos)
      << base->summary;
  EXPECT_EQ(base->citations.size(), 3u);
  EXPECT_EQ(base->details.back(), "... and 4 more failing cases in evidence/numerics.json");
  int hint_lines = 0;
  for (const std::string& d : base->details) hint_lines += d.find(": hint: ") != std::string::npos;
  EXPECT_EQ(hint_lines, 3);  // o and lse merged: one hint line per case
  EXPECT_EQ(FindCheck(r, "1.dtypes")->status, CheckStatus::kPass);
  EXPECT_EQ(r.items[0].status, CheckStatus::kFail);
  EXPECT_EQ(r.items[1].status, CheckStatus::kFail);
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistAttributionTest, ACategoryFailingOnCasesNotExplainedElsewhereStillFails) {
  std::vector<std::string> cases = MaskBugSweep();
  // A padding failure with s_q = 1: the mask bug cannot explain it.
  cases.push_back(Case("pad.own", "mla_decode",
                       R"({"causal": false, "lengths": "half_empty", "s_q": 1, "s_k": 128})",
                       false));
  Evidence ev;
  ev.numerics = Numerics(cases);
  ChecklistReport r = Compute(ev);
  const Check* padding = FindCheck(r, "2.padding");
  EXPECT_EQ(padding->status, CheckStatus::kFail);
  EXPECT_NE(padding->summary.find("7 of them attributed to other checks, 1 not"), std::string::npos)
      << padding->summary;
  ASSERT_EQ(padding->details.size(), 1u);  // only its own failure is listed
  EXPECT_EQ(padding->details[0].rfind("pad.own: ", 0), 0u) << padding->details[0];
  EXPECT_TRUE(padding->attributed_to.empty());
  EXPECT_EQ(FindCheck(r, "2.causal_alignment")->status, CheckStatus::kFail);
  EXPECT_NE(FindCheck(r, "1.base_cases")->summary.find("(7 attributed to 2.causal_alignment)"),
            std::string::npos);
}

TEST(ChecklistAttributionTest, PaddedCaseWhoseUnpaddedTwinPassedIsAStrideFailure) {
  Evidence ev;
  // The twin differs only in "padded" and passed, so padding is what broke the case,
  // even though its hint points at the causal mask.
  ev.numerics =
      Numerics({Case("twin", "mla_decode", R"({"causal": true, "s_q": 2, "s_k": 100})", true),
                MaskBugCase("padded", R"({"causal": true, "s_q": 2, "s_k": 100, "padded": true})"),
                Case("other", "mla_decode",
                     R"({"causal": true, "s_q": 1, "s_k": 100, "padded": true})", true)});
  ChecklistReport r = Compute(ev);
  const Check* padded = FindCheck(r, "6.padded_strides");
  EXPECT_EQ(padded->status, CheckStatus::kFail);
  EXPECT_NE(padded->summary.find("1 padded-stride cases failed (1 whose unpadded twin passed)"),
            std::string::npos)
      << padded->summary;
  // With the twin failing the same way, the padded failure is the mask bug's.
  ev.numerics =
      Numerics({MaskBugCase("twin", R"({"causal": true, "s_q": 2, "s_k": 100})"),
                MaskBugCase("padded", R"({"causal": true, "s_q": 2, "s_k": 100, "padded": true})"),
                Case("other", "mla_decode",
                     R"({"causal": true, "s_q": 1, "s_k": 100, "padded": true})", true)});
  r = Compute(ev);
  padded = FindCheck(r, "6.padded_strides");
  EXPECT_EQ(padded->status, CheckStatus::kPass);
  EXPECT_NE(padded->summary.find(
                "1 padded-stride case passes (e.g. other); its 1 failure is a causal s_q > 1 case"),
            std::string::npos)
      << padded->summary;
  EXPECT_EQ(r.items[5].status, CheckStatus::kPass);
}

TEST(ChecklistAttributionTest, MergedHintsKeepDistinctLinesAndCounts) {
  NumericsCase c;
  c.hints = {"o: all 5 errors in rows A",
             "lse: all 2 errors in rows A",
             "o: all 5 errors in batch entries >= 1 only",
             "lse: nearly all errors (9 of 10) in rows B",
             "o: all 4 errors in rows B",
             "free text"};
  std::vector<std::string> m = checklist::MergedHints(c);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0], "o, lse: all errors in rows A");
  EXPECT_EQ(m[1], "o: all 5 errors in batch entries >= 1 only");
  EXPECT_EQ(m[2], "lse, o: nearly all errors in rows B");
  EXPECT_EQ(m[3], "free text");
}

}  // namespace
}  // namespace av
