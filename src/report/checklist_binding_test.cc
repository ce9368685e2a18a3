// Evidence bound to its run: the checklist refuses (MISSING with the reason, never PASS or
// FAIL) every evidence file that evidence/run.json does not record as its stage's latest
// output. The end-to-end regressions with real processes: pipeline/run_binding_e2e_test.cc.
#include <gtest/gtest.h>

#include "core/sha256.h"
#include "report/checklist.h"
#include "report/checklist_test_util.h"

namespace av {
namespace {

using report_testing::Bound;
using report_testing::Case;
using report_testing::Config;
using report_testing::FindCheck;
using report_testing::Numerics;

// A package whose numerics pass: item 1 PASS when its evidence is used.
Evidence PassingNumerics() {
  Evidence ev;
  ev.numerics = Numerics({Case("a", "attention", R"({"s_k": 64})", true)});
  return Bound(ev);
}

ChecklistReport Judge(const Evidence& ev) { return ComputeChecklist(ev, Config(), "0.1.0"); }

StageEntry& NumericsStage(Evidence* ev) {
  return const_cast<StageEntry&>(*ev->run->ledger.Stage("numerics"));
}

TEST(ChecklistBindingTest, BoundEvidenceIsUsedAndSaysWhichRunItCameFrom) {
  ChecklistReport r = Judge(PassingNumerics());
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kPass);
  ASSERT_EQ(r.bindings.size(), 1u);
  EXPECT_TRUE(r.bindings[0].used);
  EXPECT_EQ(r.bindings[0].run_id, "test-run");
  ASSERT_FALSE(r.items[0].evidence_runs.empty());
  EXPECT_EQ(r.items[0].evidence_runs[0], "evidence/numerics.json: run test-run (numerics stage)");
  EXPECT_EQ(FindCheck(r, "8.evidence_bound")->status, CheckStatus::kPass);
}

void ExpectRefused(const ChecklistReport& r, const std::string& why) {
  const Check* base = FindCheck(r, "1.base_cases");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->status, CheckStatus::kMissing);
  EXPECT_EQ(base->summary.rfind("evidence/numerics.json is not used: ", 0), 0u) << base->summary;
  EXPECT_NE(base->summary.find(why), std::string::npos) << base->summary;
  for (const ItemResult& item : r.items) {
    if (item.number == 8) continue;
    EXPECT_NE(item.status, CheckStatus::kPass) << item.number;
    EXPECT_NE(item.status, CheckStatus::kFail) << item.number;
  }
  const Check* bound = FindCheck(r, "8.evidence_bound");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->status, CheckStatus::kMissing);
  ASSERT_EQ(bound->details.size(), 1u);
  EXPECT_NE(bound->details[0].find(why), std::string::npos) << bound->details[0];
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
  // Read and shown, not used.
  bool listed = false;
  for (const EvidenceFile& f : r.evidence)
    listed |= f.path == "evidence/numerics.json" && !f.refused.empty();
  EXPECT_TRUE(listed);
}

TEST(ChecklistBindingTest, StageRecordedAsErrorRefusesTheFileItLeftBehind) {
  Evidence ev = PassingNumerics();
  NumericsStage(&ev).status = StageStatus::kError;
  NumericsStage(&ev).reason = "killed by signal 9";
  NumericsStage(&ev).log = "logs/run-numerics.log";
  ExpectRefused(Judge(ev),
                "the latest numerics stage (run test-run) failed: killed by signal 9 "
                "(log logs/run-numerics.log)");
}

TEST(ChecklistBindingTest, SkippedStageRefusesTheFileOfAnEarlierRun) {
  Evidence ev = PassingNumerics();
  NumericsStage(&ev).status = StageStatus::kSkipped;
  NumericsStage(&ev).reason = "no [candidate] table in attnverify.toml";
  NumericsStage(&ev).run_id = "run-2";
  ExpectRefused(Judge(ev), "was skipped (no [candidate] table in attnverify.toml)");
}

TEST(ChecklistBindingTest, ChangedFileIsRefused) {
  Evidence ev = PassingNumerics();
  NumericsStage(&ev).outputs[0].sha256 = std::string(64, '0');
  ExpectRefused(Judge(ev), "changed after the latest numerics stage (run test-run) wrote it");
}

TEST(ChecklistBindingTest, FileOfAnotherRunIsRefused) {
  Evidence ev = PassingNumerics();
  NumericsStage(&ev).run_id = "run-2";
  ExpectRefused(Judge(ev), "it comes from run test-run, but the latest numerics stage (run run-2)");
}

TEST(ChecklistBindingTest, FileTheStageDidNotWriteIsRefused) {
  Evidence ev = PassingNumerics();
  NumericsStage(&ev).outputs.clear();
  ExpectRefused(Judge(ev), "did not write evidence/numerics.json");
}

TEST(ChecklistBindingTest, UnboundFilesAreShownButNeverJudged) {
  Evidence ev;
  ev.numerics = Numerics({Case("a", "attention", R"({"s_k": 64})", true)});
  ExpectRefused(Judge(ev), "not bound to a run");
  EXPECT_NE(
      FindCheck(Judge(ev), "1.base_cases")
          ->summary.find("re-run `attnverify numerics --config attention-verify/attnverify.toml`"),
      std::string::npos);
  // With a run id but no run.json: nothing records what the stage wrote.
  ev.numerics->file.run_id = "r9";
  ExpectRefused(Judge(ev), "evidence/run.json is missing");
  // An old file (no provenance) the latest stage did not write: not bound.
  Evidence old = PassingNumerics();
  old.numerics->file.run_id.clear();
  NumericsStage(&old).outputs.clear();
  ExpectRefused(Judge(old),
                "not bound to a run: the latest numerics stage (run test-run) did "
                "not write evidence/numerics.json");
  // A first-format run.json has no run ids: it binds nothing.
  Evidence v1 = PassingNumerics();
  v1.numerics->file.run_id.clear();
  NumericsStage(&v1).run_id.clear();
  ExpectRefused(Judge(v1), "not bound to a run: evidence/run.json records no run ids");
}

TEST(ChecklistBindingTest, AFileWithoutProvenanceIsBoundByTheLedgerAlone) {
  // The parent hashed it right after the stage wrote it: that entry is its run.
  Evidence ev = PassingNumerics();
  ev.numerics->file.run_id.clear();
  ChecklistReport r = Judge(ev);
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kPass);
  EXPECT_EQ(r.bindings[0].run_id, "test-run");
}

TEST(ChecklistBindingTest, FailingEvidenceOfAFailedStageIsNotAFail) {
  Evidence ev;
  ev.numerics = Numerics({Case("a", "attention", R"({"s_k": 64})", false)});
  ev = Bound(ev);
  EXPECT_EQ(Judge(ev).verdict, ReportVerdict::kRejected);
  NumericsStage(&ev).status = StageStatus::kError;
  ChecklistReport r = Judge(ev);
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kMissing);
  EXPECT_NE(r.verdict, ReportVerdict::kRejected);
}

TEST(ChecklistBindingTest, WhatARefusedFileCitesIsNotCheckedOrShown) {
  Evidence ev = PassingNumerics();
  ev.referenced.push_back({"config/shapes.json", "evidence/numerics.json $.config.shapes",
                           std::string(64, 'a'), "", false});
  ev.heatmaps.push_back({"evidence/heatmaps/a.svg", "a", "<svg/>"});
  EXPECT_EQ(FindCheck(Judge(ev), "8.files")->status, CheckStatus::kFail);
  NumericsStage(&ev).status = StageStatus::kError;
  ChecklistReport r = Judge(ev);
  EXPECT_NE(FindCheck(r, "8.files")->status, CheckStatus::kFail);
  EXPECT_TRUE(r.heatmaps.empty());
}

TEST(ChecklistBindingTest, EvidenceOfDifferentHeadCommitsIsNeverAccepted) {
  Evidence ev;
  ev.numerics = Numerics({Case("sp", "sparse_attention", R"({"indices": "mixed"})", true)});
  ev.numerics->file.head_commit = "1111111111111111111111111111111111111111";
  ev = Bound(ev);
  const std::string only6 = "[policy]\nrequired = [6]\n";
  EXPECT_EQ(ComputeChecklist(ev, Config(only6), "0.1.0").verdict, ReportVerdict::kAccepted);
  Result<ReviewEvidence> review = ParseReviewEvidence(
      R"({"provenance": {"run_id": "test-run", "head_commit": "2222222222222222222222222222222222222222"},
          "findings": []})",
      "evidence/review.json");
  ASSERT_TRUE(review.ok()) << review.status().message();
  ev.review = *review;
  ev = Bound(ev);
  ChecklistReport r = ComputeChecklist(ev, Config(only6), "0.1.0");
  EXPECT_EQ(r.verdict, ReportVerdict::kIncomplete) << r.verdict_reason;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("evidence from different head commits"), std::string::npos);
  EXPECT_EQ(FindCheck(r, "8.evidence_bound")->status, CheckStatus::kMissing);
}

// ---- the ledger's seal and the judged config (schema/run_seal.h), as `report` sets them ----

// Passing numerics written under `config` (whose bytes had sha256 `config_sha`), bound
// by a ledger whose seal is `seal`, judged against attnverify.toml with sha256 "c0ffee...".
Evidence Trusted(SealState seal, const std::string& config, const std::string& config_sha) {
  Evidence ev = PassingNumerics();
  EvidenceFile& f = ev.numerics->file;
  f.has_provenance = true;
  f.provenance.config = config;
  f.provenance.inputs = {{config, config_sha}, {"config/shapes.json", std::string(64, '5')}};
  RunTrust t;
  t.seal = seal;
  t.note = seal == SealState::kBroken
               ? "evidence/run.json was changed after attnverify sealed it (its seal, key k1, "
                 "does not match its contents)"
           : seal == SealState::kValid ? "sealed with this machine's key k1"
                                       : "sealed with key k2, not with this machine's key k1";
  t.config = "attnverify.toml";
  t.config_sha256 = "c0ffee" + std::string(58, '0');
  ev.run->trust = t;
  return ev;
}

TEST(ChecklistBindingTest, SealedLedgerOfThisPackageIsUsedAndSaysSo) {
  ChecklistReport r =
      Judge(Trusted(SealState::kValid, "attnverify.toml", "c0ffee" + std::string(58, '0')));
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kPass);
  const Check* bound = FindCheck(r, "8.evidence_bound");
  EXPECT_EQ(bound->status, CheckStatus::kPass);
  EXPECT_NE(bound->summary.find("sealed with this machine's key k1"), std::string::npos)
      << bound->summary;
}

TEST(ChecklistBindingTest, LedgerEditedAfterItWasSealedBindsNothing) {
  ExpectRefused(
      Judge(Trusted(SealState::kBroken, "attnverify.toml", "c0ffee" + std::string(58, '0'))),
      "evidence/run.json was changed after attnverify sealed it");
}

TEST(ChecklistBindingTest, EvidenceReplayedFromAnotherConfigIsRefused) {
  // The replay of reward-hacking's replay_evidence+ledger: numerics.json written under
  // another toml (another candidate), bound by an edited, unsealed ledger.
  ChecklistReport r = Judge(Trusted(SealState::kUnauthenticated, "av.evreplay_src.toml",
                                    "c0ffee" + std::string(58, '0')));
  const Check* base = FindCheck(r, "1.base_cases");
  EXPECT_EQ(base->status, CheckStatus::kMissing);
  EXPECT_NE(base->summary.find("written under the config av.evreplay_src.toml, and this report "
                               "judges attnverify.toml"),
            std::string::npos)
      << base->summary;
  const Check* bound = FindCheck(r, "8.evidence_bound");
  EXPECT_EQ(bound->status, CheckStatus::kMissing);
  ASSERT_EQ(bound->details.size(), 2u);  // the file, and why the ledger proves nothing
  EXPECT_NE(bound->details[1].find("cannot be authenticated"), std::string::npos);
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
}

TEST(ChecklistBindingTest, EvidenceWrittenUnderOtherConfigBytesIsRefused) {
  ExpectRefused(Judge(Trusted(SealState::kValid, "attnverify.toml", std::string(64, 'e'))),
                "written under another attnverify.toml (sha256 eeeeeeeeeeee, the package's is "
                "c0ffee000000 now)");
}

TEST(ChecklistBindingTest, UnauthenticatedLedgerIsJudgedButNeverAccepted) {
  // A package judged on a machine without the key that sealed it: the numerics still
  // PASS (no false REJECT), but the binding is not proven, so the verdict is incomplete.
  ChecklistReport r = Judge(
      Trusted(SealState::kUnauthenticated, "attnverify.toml", "c0ffee" + std::string(58, '0')));
  EXPECT_EQ(FindCheck(r, "1.base_cases")->status, CheckStatus::kPass);
  const Check* bound = FindCheck(r, "8.evidence_bound");
  EXPECT_EQ(bound->status, CheckStatus::kMissing);
  EXPECT_NE(bound->summary.find("cannot be authenticated: sealed with key k2"), std::string::npos)
      << bound->summary;
  EXPECT_NE(r.verdict, ReportVerdict::kAccepted);
  EXPECT_NE(r.verdict, ReportVerdict::kRejected);
}

const ItemResult* Item8(const ChecklistReport& r) {
  for (const ItemResult& item : r.items) {
    if (item.number == 8) return &item;
  }
  return nullptr;
}

TEST(ChecklistContainmentTest, WhatTheSandboxSawIsNotedUnderItem8) {
  Evidence ev;
  ev.numerics = Numerics({Case("a", "attention", R"({"s_k": 64})", true),
                          Case("b", "attention", R"({"s_k": 65})", false)});
  ev.numerics->cases[1].reason = "candidate timed out after 8 s";
  ev.numerics->containment = ContainmentRecord{"none", {"evidence/resources.json"}, 2, {}};
  ChecklistReport r = Judge(Bound(ev));
  const ItemResult* item = Item8(r);
  ASSERT_NE(item, nullptr);
  ASSERT_EQ(item->notes.size(), 4u);
  EXPECT_NE(item->notes[0].find("ran without a sandbox"), std::string::npos) << item->notes[0];
  EXPECT_NE(item->notes[1].find("left 2 processes running"), std::string::npos) << item->notes[1];
  EXPECT_NE(item->notes[2].find("past its timeout on 1 case"), std::string::npos) << item->notes[2];
  EXPECT_NE(item->notes[3].find("evidence/resources.json"), std::string::npos) << item->notes[3];
}

TEST(ChecklistContainmentTest, AnHonestRunInTheSandboxAddsNoNote) {
  Evidence ev = PassingNumerics();
  ev.numerics->containment = ContainmentRecord{"bwrap", {}, 0, {}};
  ChecklistReport r = Judge(ev);
  ASSERT_NE(Item8(r), nullptr);
  EXPECT_TRUE(Item8(r)->notes.empty());
}

}  // namespace
}  // namespace av
