// The checklist engine over hand-built evidence: each item in each status, the verdict
// rule, waivers and the run record. Attribution: checklist_attribution_test.cc; the
// parsers: evidence_test.cc.
#include "report/checklist.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "core/file.h"
#include "core/sha256.h"
#include "report/checklist_internal.h"
#include "report/checklist_test_util.h"
#include "report/report_config.h"
#include "testing/test_util.h"

namespace av {
namespace {

using report_testing::Case;
using report_testing::Compute;
using report_testing::Config;
using report_testing::FindCheck;
using report_testing::kConfig;
using report_testing::Numerics;

TEST(ChecklistTest, SlidingWindowMissingEvenThoughAHundredOtherCasesPassed) {
  std::vector<std::string> cases;
  for (int i = 0; i < 100; ++i) {
    cases.push_back(Case("attn." + std::to_string(i), "attention",
                         R"({"s_q": 5, "s_k": )" + std::to_string(33 + i) + R"(, "causal": )" +
                             (i % 2 ? "true" : "false") + "}",
                         true));
  }
  Evidence ev;
  ev.numerics = Numerics(cases);
  ChecklistReport r = Compute(ev);
  const Check* window = FindCheck(r, "2.window");
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->status, CheckStatus::kMissing);
  EXPECT_NE(window->summary.find("no case exercised sliding window"), std::string::npos)
      << window->summary;
  EXPECT_EQ(window->missing_command,
            "attnverify numerics --config attention-verify/attnverify.toml");
  EXPECT_EQ(FindCheck(r, "2.causal")->status, CheckStatus::kPass);
  EXPECT_EQ(r.items[1].status, CheckStatus::kMissing);
  EXPECT_EQ(r.items[0].status, CheckStatus::kMissing);  // softmax stability: no large_logits case
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kPass);
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete);
  EXPECT_EQ(VerdictExitCode(r), 1);
}

TEST(ChecklistTest, NumericsFailureCitesTheWorstCaseWithCoordinatesAndHints) {
  std::string loc = R"(, "localisation": {"hints": ["errors only in rows i < s_q - 1"],
      "worst": [{"output": "o", "coords": {"batch": 0, "row": 3}, "candidate": 9.0, "reference": 1.0, "abs_err": 8.0}]})";
  Evidence ev;
  ev.numerics = Numerics(
      {Case("mild", "attention", R"({"s_q": 4, "s_k": 64})", false),
       R"({"id": "bad", "op": "attention", "dtype": "bf16", "verdict": "fail", "reason": "o: off",
                              "params": {"s_q": 4, "s_k": 64, "causal": true},
                              "outputs": [{"name": "o", "tolerance": "$.ops.attention.o.bf16", "passed": false,
                                           "compare": {"rule": {"name": "allclose"}, "metrics": {"max_abs": 8.0},
                                                       "failures": ["8 > atol"]}}])" +
           loc + "}",
       Case("fine", "attention", R"({"s_q": 4, "s_k": 64})", true)});
  ChecklistReport r = Compute(ev);
  const Check* base = FindCheck(r, "1.base_cases");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->status, CheckStatus::kFail);
  EXPECT_NE(base->summary.find("2 of 3 base cases failed"), std::string::npos) << base->summary;
  EXPECT_NE(base->summary.find("; worst: bad"), std::string::npos) << base->summary;
  ASSERT_FALSE(base->citations.empty());
  EXPECT_EQ(base->citations[0].subject, "bad");
  EXPECT_EQ(base->citations[0].file, "evidence/numerics.json");
  EXPECT_EQ(base->citations[0].sha256, ev.numerics->file.sha256);
  EXPECT_EQ(base->citations[0].command,
            "attnverify numerics --config attention-verify/attnverify.toml");
  ASSERT_GE(base->details.size(), 2u);
  EXPECT_EQ(base->details[0],
            "bad: o worst |err| 8 at [batch=0, row=3]: candidate 9, reference 1; rule allclose "
            "($.ops.attention.o.bf16): 8 > atol");
  EXPECT_EQ(base->details[1], "bad: hint: errors only in rows i < s_q - 1");
  EXPECT_EQ(r.items[0].status, CheckStatus::kFail);
  // "bad" is the only causal case, and causal with s_q > 1: the narrower check fails with
  // it; 2.causal has no passing case of its own to show.
  EXPECT_EQ(FindCheck(r, "2.causal_alignment")->status, CheckStatus::kFail);
  EXPECT_EQ(FindCheck(r, "2.causal")->status, CheckStatus::kMissing);
  EXPECT_EQ(FindCheck(r, "2.causal")->attributed_to,
            std::vector<std::string>{"2.causal_alignment"});
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistTest, ReferenceErrorIsUnjudgedNotAFailure) {
  Evidence ev;
  ev.numerics = Numerics(
      {Case("ok", "attention", R"({"s_k": 64})", true),
       R"({"id": "err", "op": "attention", "dtype": "bf16", "verdict": "error", "params": {"s_k": 65},
                              "reason": "reference: out of memory", "outputs": []})"});
  ChecklistReport r = Compute(ev);
  const Check* base = FindCheck(r, "1.base_cases");
  EXPECT_EQ(base->status, CheckStatus::kMissing);
  EXPECT_NE(base->summary.find(
                "1 of 2 base cases could not be judged (err: error: reference: out of memory)"),
            std::string::npos)
      << base->summary;
  EXPECT_EQ(FindCheck(r, "2.block_edges")->status, CheckStatus::kMissing);  // s_k 65 was not judged
  EXPECT_NE(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistTest, FindingsAreListedUnderTheirItemAndRelatedItems) {
  Evidence ev;
  Result<ReviewEvidence> review = ParseReviewEvidence(
      R"({"findings": [{"id": "F1", "rule": "tile.constant_changed", "severity": "warning", "file": "a.h", "line": 14,
                        "checklist_item": 4, "related_items": [3], "verify": "attnverify build"}]})",
      "evidence/review.json");
  ASSERT_TRUE(review.ok()) << review.status().message();
  ev.review = *review;
  ChecklistReport r = Compute(ev);
  ASSERT_EQ(r.items[3].findings.size(), 1u);
  ASSERT_EQ(r.items[2].findings.size(), 1u);
  EXPECT_TRUE(r.items[0].findings.empty());
  EXPECT_FALSE(ParseReviewEvidence(
                   R"({"findings": [{"rule": "x", "severity": "note", "related_items": [9]}]})",
                   "evidence/review.json")
                   .ok());
}

TEST(ChecklistTest, NoNumericsIsMissingWithTheCommand) {
  ChecklistReport r = Compute(Evidence{});
  EXPECT_EQ(r.items[0].status, CheckStatus::kMissing);
  EXPECT_EQ(FindCheck(r, "1.base_cases")->missing_command,
            "attnverify numerics --config attention-verify/attnverify.toml");
  EXPECT_EQ(FindCheck(r, "3.build")->missing_command,
            "attnverify build --config attention-verify/attnverify.toml --base HEAD~1");
  EXPECT_EQ(FindCheck(r, "8.review")->missing_command,
            "attnverify review --config attention-verify/attnverify.toml");
  for (const ItemResult& item : r.items)
    EXPECT_EQ(item.status, CheckStatus::kMissing) << item.number;
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete);
}

ResourcesEvidence Resources(const std::string& status, const std::string& gates,
                            const std::string& kernels = "[]") {
  std::string text = R"({"schema": "attnverify.resources/1", "status": ")" + status +
                     R"(", "missing_reason": "nvcc not found on PATH", "base": null, "kernels": )" +
                     kernels + R"(, "gates": )" + gates + "}";
  Result<ResourcesEvidence> r = ParseResourcesEvidence(text, "evidence/resources.json");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return *r;
}

TEST(ChecklistTest, SharedMemoryOverflowFailsWithPtxasBytesPerKernel) {
  Evidence ev;
  ev.resources = Resources(
      "rejected",
      R"([{"gate": "smem_within_cap", "enabled": true, "skipped": false, "passed": false, "rule": "smem <= cap",
           "failures": ["k sm_90a: 294912 > 232448"]},
          {"gate": "occupancy_not_lower", "enabled": true, "skipped": true, "passed": true, "rule": "needs --base"}])",
      R"([{"kernel": "splitk<128>", "arch": "sm_90a", "change": "head", "base": null,
           "head": {"total_smem_bytes": 294912, "smem_cap_bytes": 232448,
                    "ptxas_overflow": {"bytes": 294912, "max_bytes": 232448}}}])");
  ChecklistReport r = Compute(ev);
  const Check* smem = FindCheck(r, "3.smem_within_cap");
  ASSERT_NE(smem, nullptr);
  EXPECT_EQ(smem->status, CheckStatus::kFail);
  EXPECT_NE(
      std::find(
          smem->details.begin(), smem->details.end(),
          "splitk<128> (sm_90a): ptxas: uses too much shared data (294912 bytes, 232448 max)"),
      smem->details.end());
  EXPECT_EQ(smem->citations.back().subject, "splitk<128> @ sm_90a");
  EXPECT_EQ(smem->citations.back().sha256, ev.resources->file.sha256);
  EXPECT_EQ(FindCheck(r, "3.occupancy_not_lower")->status, CheckStatus::kMissing);
  const Check* bank = FindCheck(r, "3.bank_conflicts");
  EXPECT_FALSE(bank->required);
  EXPECT_NE(bank->missing_command.find("--metrics l1tex__data_bank_conflicts"), std::string::npos);
  EXPECT_EQ(r.items[2].status, CheckStatus::kFail);
}

// Newcomer turn 3: item 3's one-line reason was the gate's rule ("static + dynamic shared
// memory <= the opt-in cap ...") while the failing fact ("over by 120320 bytes") was
// further down.
TEST(ChecklistTest, FailingGateItemReasonIsTheFailureNotTheRule) {
  Evidence ev;
  ev.resources = Resources(
      "rejected",
      R"([{"gate": "smem_within_cap", "enabled": true, "status": "fail", "rule": "smem <= cap",
           "failures": ["k on sm_90a: over by 120320 bytes", "j on sm_90a: over by 8 bytes"]}])",
      "[]");
  ChecklistReport r = Compute(ev);
  const Check* smem = FindCheck(r, "3.smem_within_cap");
  ASSERT_NE(smem, nullptr);
  EXPECT_EQ(smem->summary, "k on sm_90a: over by 120320 bytes (and 1 more)");
  EXPECT_NE(r.items[2].reason.find("k on sm_90a: over by 120320 bytes"), std::string::npos)
      << r.items[2].reason;
  EXPECT_EQ(r.items[2].reason.find("smem <= cap"), std::string::npos) << r.items[2].reason;
}

TEST(ChecklistTest, NoNvccIsMissingNotFailing) {
  Evidence ev;
  ev.resources = Resources("missing", "[]");
  ChecklistReport r = Compute(ev);
  const Check* build = FindCheck(r, "3.build");
  EXPECT_EQ(build->status, CheckStatus::kMissing);
  EXPECT_NE(build->summary.find("nvcc not found on PATH"), std::string::npos);
  EXPECT_EQ(r.items[2].status, CheckStatus::kMissing);
}

TEST(ChecklistTest, GemmPerfIsMissingWithTheNcuCommandAndRequiredOnlyWithGpuEvidence) {
  Evidence ev;
  ev.numerics = Numerics({Case("fp8.m=3", "fp8_gemm", R"({"m": 3, "n": 130, "k": 200})", true)});
  ChecklistReport r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "4.unaligned_gemm")->status, CheckStatus::kPass);
  const Check* perf = FindCheck(r, "4.perf");
  EXPECT_EQ(perf->status, CheckStatus::kMissing);
  EXPECT_NE(perf->missing_command.find("ncu --csv --page raw --launch-count 5"), std::string::npos);
  EXPECT_NE(perf->missing_command.find("attnverify profile --import ncu_head.csv --label head"),
            std::string::npos);
  EXPECT_NE(perf->missing_command.find("attnverify profile --run"), std::string::npos);
  // GPU-only: not required unless the package says a GPU host produces the evidence.
  EXPECT_FALSE(perf->required);
  EXPECT_EQ(r.items[3].status, CheckStatus::kPass);
  r = Compute(ev, "[policy]\ngpu_evidence = true\n");
  EXPECT_TRUE(FindCheck(r, "4.perf")->required);
  EXPECT_TRUE(FindCheck(r, "3.bank_conflicts")->required);
  EXPECT_EQ(r.items[3].status, CheckStatus::kMissing);
}

std::string NumSplits(const std::string& group, const std::string& verdict) {
  return R"({"check": "num_splits", "group": ")" + group + R"(", "cases": [")" + group +
         R"(.ns4"], "verdict": ")" + verdict +
         R"(", "max_abs_diff": 0.5, "tolerance": "4 eps", "detail": "d"})";
}

TEST(ChecklistTest, SplitKNeedsInvarianceAtTwoSequenceLengths) {
  auto mla = [](const std::string& id, int sk) {
    return Case(id, "mla_decode", R"({"s_k": )" + std::to_string(sk) + "}", true);
  };
  Evidence ev;
  ev.numerics = Numerics({mla("a", 70)});
  EXPECT_EQ(FindCheck(Compute(ev), "5.num_splits")->status, CheckStatus::kMissing);
  ev.numerics = Numerics({mla("a", 70)}, "[" + NumSplits("a", "pass") + "]");
  const Check one = *FindCheck(Compute(ev), "5.num_splits");
  EXPECT_EQ(one.status, CheckStatus::kMissing);
  EXPECT_NE(one.summary.find("only s_k = 70"), std::string::npos) << one.summary;
  ev.numerics = Numerics({mla("a", 70), mla("b", 140)},
                         "[" + NumSplits("a", "pass") + "," + NumSplits("b", "pass") + "]");
  ChecklistReport two = Compute(ev);
  EXPECT_EQ(FindCheck(two, "5.num_splits")->status, CheckStatus::kPass);
  EXPECT_EQ(two.items[4].status, CheckStatus::kPass);
  ev.numerics = Numerics({mla("a", 70), mla("b", 140)},
                         "[" + NumSplits("a", "pass") + "," + NumSplits("b", "fail") + "]");
  const Check fail = *FindCheck(Compute(ev), "5.num_splits");
  EXPECT_EQ(fail.status, CheckStatus::kFail);
  EXPECT_EQ(fail.citations[0].subject, "b");
}

TEST(ChecklistTest, InterfacePaddedStridesAndOutputShape) {
  Evidence ev;
  ev.numerics = Numerics({Case("p", "attention", R"({"s_k": 64, "padded": true})", true),
                          Case("q", "attention", R"({"s_k": 64})", true)});
  ChecklistReport r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "6.padded_strides")->status, CheckStatus::kPass);
  EXPECT_EQ(FindCheck(r, "6.output_contract")->status, CheckStatus::kPass);
  EXPECT_EQ(r.items[5].status, CheckStatus::kPass);
  ev.numerics = Numerics(
      {R"({"id": "s", "op": "attention", "dtype": "bf16", "verdict": "fail", "params": {"s_k": 64},
                              "reason": "output o has shape [2, 5, 4, 32], expected [2, 5, 4, 64]", "outputs": []})"});
  r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "6.output_contract")->status, CheckStatus::kFail);
  EXPECT_EQ(FindCheck(r, "6.padded_strides")->status, CheckStatus::kMissing);
}

ReviewEvidence Review(const std::string& findings, const std::string& diffs = "[]") {
  std::string text = R"({"schema": "attnverify.review/1", "reviewer": "builtin", "diffs": )" +
                     diffs + R"(, "findings": )" + findings + "}";
  Result<ReviewEvidence> r = ParseReviewEvidence(text, "evidence/review.json");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return *r;
}

TEST(ChecklistTest, FallbackNeedsTheChosenPathRecordedAndTwoPathsExercised) {
  auto with_path = [](const std::string& id, const std::string& path) {
    return Case(id, "attention", R"({"s_k": 64})", true,
                R"(, "candidate": {"metadata": {"kernel_path": ")" + path + R"("}})");
  };
  const std::string removal =
      R"([{"id": "F7", "rule": "fallback.removed", "severity": "error", "file": "a.cu", "line": 9, "checklist_item": 7,
           "title": "legacy path removed", "verify": "attnverify numerics --config c"}])";
  Evidence ev;
  ev.numerics = Numerics({with_path("a", "tiled"), with_path("b", "tiled")});
  ev.review = Review(removal);
  ChecklistReport r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "7.path_recorded")->status, CheckStatus::kPass);
  EXPECT_EQ(FindCheck(r, "7.paths_exercised")->status, CheckStatus::kMissing);
  const Check* kept = FindCheck(r, "7.fallback_kept");
  EXPECT_EQ(kept->status, CheckStatus::kMissing);
  EXPECT_NE(kept->summary.find("F7 (a.cu:9) legacy path removed"), std::string::npos)
      << kept->summary;
  ASSERT_EQ(r.items[6].findings.size(), 1u);
  ev.numerics = Numerics({with_path("a", "tiled"), with_path("b", "legacy")});
  r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "7.paths_exercised")->status, CheckStatus::kPass);
  EXPECT_EQ(FindCheck(r, "7.fallback_kept")->status, CheckStatus::kPass);
  EXPECT_EQ(r.items[6].status, CheckStatus::kPass);
  ev.numerics = Numerics({Case("a", "attention", R"({"s_k": 64})", true)});
  EXPECT_EQ(FindCheck(Compute(ev), "7.path_recorded")->status, CheckStatus::kMissing);
}

TEST(ChecklistTest, EvidenceItemChecksDigestsAndVerifyCommands) {
  Evidence ev;
  ev.review = Review(
      R"([{"id": "F1", "rule": "r", "severity": "note", "file": "a.cu", "line": 1, "checklist_item": 3, "verify": ""}])",
      R"([{"component": "c", "path": "diff/c.diff", "sha256": "aaaa"}])");
  ev.referenced.push_back({"diff/c.diff", "evidence/review.json $.diffs[0]", std::string(64, 'a'),
                           std::string(64, 'b'), true});
  ChecklistReport r = Compute(ev);
  const Check* files = FindCheck(r, "8.files");
  EXPECT_EQ(files->status, CheckStatus::kFail);
  ASSERT_EQ(files->details.size(), 1u);
  EXPECT_NE(files->details[0].find(
                "diff/c.diff (cited by evidence/review.json $.diffs[0]) has sha256 bbbbbbbbbbbb"),
            std::string::npos);
  EXPECT_EQ(FindCheck(r, "8.findings_verifiable")->status, CheckStatus::kFail);
  EXPECT_EQ(FindCheck(r, "8.review")->status, CheckStatus::kPass);
  EXPECT_EQ(r.items[7].status, CheckStatus::kFail);
  EXPECT_EQ(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistTest, EveryPassOrFailCitesEvidence) {
  Evidence ev;
  ev.numerics = Numerics({Case("a", "attention", R"({"s_k": 64, "causal": true})", true),
                          Case("b", "mla_decode", R"({"s_k": 65})", false)});
  ev.review = Review("[]");
  ChecklistReport r = Compute(ev);
  for (const ItemResult& item : r.items) {
    for (const Check& c : item.checks) {
      if (c.status == CheckStatus::kMissing) {
        EXPECT_FALSE(c.missing_command.empty()) << c.id;
      } else {
        EXPECT_FALSE(c.citations.empty()) << c.id;
        for (const Citation& x : c.citations) EXPECT_EQ(x.sha256.size(), 64u) << c.id;
      }
    }
  }
  EXPECT_EQ(FindCheck(r, "8.conclusions_cited")->status, CheckStatus::kPass);
}

TEST(ChecklistTest, AcceptedWhenEveryRequiredItemPassesAndNothingFails) {
  Evidence ev;
  ev.numerics = Numerics({Case("sp", "sparse_attention", R"({"indices": "mixed"})", true)});
  ChecklistReport r = Compute(ev, "[policy]\nrequired = [6]\n");
  EXPECT_EQ(r.items[5].status, CheckStatus::kPass);
  EXPECT_EQ(r.verdict, ReportVerdict::kAccepted) << r.verdict_reason;
  EXPECT_EQ(VerdictExitCode(r), 0);
  // A FAIL outside the required items still rejects: the evidence says no.
  ev.numerics = Numerics({Case("sp", "sparse_attention", R"({"indices": "mixed"})", true),
                          Case("g", "fp8_gemm", R"({"m": 3})", false)});
  EXPECT_EQ(Compute(ev, "[policy]\nrequired = [6]\n").verdict, ReportVerdict::kRejected);
}

TEST(ChecklistTest, WaiverCoversMissingEvidenceButNeverAFailure) {
  Evidence ev;
  ev.numerics = Numerics({Case("fp8", "fp8_gemm", R"({"m": 3, "n": 130, "k": 200})", true)});
  ChecklistReport r =
      Compute(ev, "[policy]\ngpu_evidence = true\nwaive = { \"4.perf\" = \"no GPU in CI\" }\n");
  const Check* perf = FindCheck(r, "4.perf");
  EXPECT_EQ(perf->waiver, "no GPU in CI");
  EXPECT_FALSE(perf->required);
  EXPECT_EQ(r.items[3].status, CheckStatus::kPass);
  EXPECT_NE(r.items[3].reason.find("1 waived"), std::string::npos);
  ev.numerics = Numerics({Case("fp8", "fp8_gemm", R"({"m": 3, "n": 130, "k": 200})", false)});
  r = Compute(ev, "[policy]\nwaive = { \"4.unaligned_gemm\" = \"x\" }\n");
  EXPECT_EQ(FindCheck(r, "4.unaligned_gemm")->status, CheckStatus::kFail);
  EXPECT_EQ(r.items[3].status, CheckStatus::kFail);
}

ReportRunEvidence RunRecord(
    const std::string& stages,
    const std::string& argv = R"(["attnverify", "run", "--config", "pkg/attnverify.toml"])") {
  Result<ReportRunEvidence> r = ParseRunEvidence(
      R"({"schema": "attnverify.run/2", "argv": )" + argv +
          R"(, "cwd": "/work", "package": "/work/pkg", "config": "attnverify.toml", "stages": )" +
          stages + "}",
      "evidence/run.json");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : ReportRunEvidence{};
}

TEST(ChecklistRunTest, MissingChecksSayWhyTheirStageProducedNothing) {
  Evidence ev;
  ev.run = RunRecord(
      R"([{"name": "slice", "status": "skipped", "reason": "no [slice] or [components] table in attnverify.toml"},
                  {"name": "review", "status": "skipped", "reason": "nothing to review: no [slice] or [components] table"},
                  {"name": "build", "status": "error", "reason": "exit 2: attnverify.toml:3:1: unknown key", "log": "logs/run-build.log"},
                  {"name": "numerics", "status": "skipped", "reason": "no [candidate] table in attnverify.toml"}])");
  ChecklistReport r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "3.build")->summary,
            "no evidence/resources.json in the package: the build stage failed: exit 2: "
            "attnverify.toml:3:1: unknown key "
            "(log logs/run-build.log)");
  EXPECT_EQ(FindCheck(r, "1.base_cases")->summary,
            "no evidence/numerics.json in the package: numerics skipped: no [candidate] table in "
            "attnverify.toml");
  EXPECT_NE(FindCheck(r, "8.review")->summary.find("review skipped: nothing to review"),
            std::string::npos);
  // run.json is evidence: listed, and cited by 8.files.
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].path, "evidence/run.json");
  const Check* files = FindCheck(r, "8.files");
  EXPECT_EQ(files->status, CheckStatus::kPass);
  ASSERT_EQ(files->citations.size(), 1u);
  EXPECT_EQ(files->citations[0].file, "evidence/run.json");
  // Without run.json nothing is claimed about stages.
  ev.run.reset();
  r = Compute(ev);
  EXPECT_EQ(FindCheck(r, "3.build")->summary, "no evidence/resources.json in the package");
}

TEST(ChecklistRunTest, RunJsonKeepsArgvAndRejectsBadStages) {
  ReportRunEvidence run = RunRecord(
      R"([{"name": "build", "run_id": "r1", "argv": ["/bin/attnverify", "build", "--config", "a b/x.toml"],
           "status": "ok", "outputs": [{"path": "evidence/resources.json", "sha256": "ab"}]}])");
  ASSERT_NE(run.Stage("build"), nullptr);
  EXPECT_EQ(run.Stage("build")->argv[3], "a b/x.toml");
  ASSERT_NE(run.Stage("build")->Output("evidence/resources.json"), nullptr);
  EXPECT_EQ(run.ledger.argv[3], "pkg/attnverify.toml");
  Result<ReportRunEvidence> bad =
      ParseRunEvidence(R"({"stages": [{"name": 3}]})", "evidence/run.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "evidence/run.json: $.stages[0].name: must be a string, got a number");
  bad =
      ParseRunEvidence(R"({"stages": [{"name": "build", "status": "fine"}]})", "evidence/run.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("$.stages[0].status: must be \"ok\""), std::string::npos)
      << bad.status().message();
  bad = ParseRunEvidence(R"({"schema": "attnverify.numerics/1"})", "evidence/run.json");
  EXPECT_FALSE(bad.ok());
}

TEST(ChecklistRunTest, CommandsNameTheConfigAsTheUserGaveIt) {
  Evidence ev;
  Result<NumericsEvidence> n = ParseNumericsEvidence(
      R"({"provenance": {"run_id": "r1"}, "cases": []})", "evidence/numerics.json");
  ASSERT_TRUE(n.ok());
  ev.numerics = *n;
  ReportConfig cfg = Config();
  cfg.path = "/work/pkg/attnverify.toml";  // as `attnverify run` hands it to the report stage
  cfg.package_dir = "/work/pkg";
  // Only the absolute path is known: it stays.
  ChecklistReport r = ComputeChecklist(ev, cfg, "0.1.0");
  EXPECT_EQ(r.config, "/work/pkg/attnverify.toml");
  EXPECT_EQ(FindCheck(r, "1.base_cases")->missing_command,
            "attnverify numerics --config /work/pkg/attnverify.toml");
  // run.json records that the user typed "pkg/attnverify.toml" in /work for this file:
  // every command uses it, the stage's recorded argv included (its --config element).
  ev.run = RunRecord(
      R"([{"name": "numerics", "run_id": "r1", "status": "ok", "cwd": "/work", "package": "/work/pkg",
                          "argv": ["/usr/bin/attnverify", "numerics", "--config", "/work/pkg/attnverify.toml"],
                          "outputs": [{"path": "evidence/numerics.json", "sha256": ")" +
          ev.numerics->file.sha256 + R"("}]}])",
      R"(["attnverify", "run", "--config", "pkg/attnverify.toml", "--base", "HEAD~2"])");
  r = ComputeChecklist(ev, cfg, "0.1.0");
  EXPECT_EQ(r.config, "pkg/attnverify.toml");
  EXPECT_EQ(FindCheck(r, "1.base_cases")->missing_command,
            "attnverify numerics --config pkg/attnverify.toml");
  EXPECT_EQ(FindCheck(r, "3.build")->missing_command,
            "attnverify build --config pkg/attnverify.toml --base HEAD~1");
  EXPECT_EQ(r.evidence[0].command, "attnverify numerics --config pkg/attnverify.toml");
  // The package moved since (or the record is another machine's): the path typed there
  // means nothing here, so the commands name the config as the report was given it, the
  // recorded stage's too (its --config named the package's file, by the record).
  cfg.path = "/elsewhere/attnverify.toml";
  cfg.package_dir = "/elsewhere";
  r = ComputeChecklist(ev, cfg, "0.1.0");
  EXPECT_EQ(r.config, "/elsewhere/attnverify.toml");
  EXPECT_EQ(r.evidence[0].command, "attnverify numerics --config /elsewhere/attnverify.toml");
}

}  // namespace
}  // namespace av
