#include "agent/evidence_check.h"

#include <gtest/gtest.h>

#include "agent/agent_test_util.h"
#include "agent/rounds.h"

namespace av {
namespace {

using testing::AgentPackageDir;
using testing::MakeAgentPackage;

class EvidenceCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeAgentPackage(&dir_, "http://127.0.0.1:9");
    Result<AgentPackage> p = LoadAgentPackage(dir_.config);
    ASSERT_TRUE(p.ok()) << p.status().message();
    package_ = std::move(*p);
    std::string source;
    Result<PermissionSettings> policy = AgentCommandPolicy(package_, &source);
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    policy_ = std::move(*policy);
    RoundInputs in;
    in.package = &package_;
    in.system = "prompt";
    in.budget_tokens = 60000;
    AgentStagePlan diff = PlanStage("diff_review", in);
    ASSERT_EQ(diff.requests.size(), 2u);
    flashmla_ = diff.requests[1].context;  // deepgemm sorts first without slice.json
    ASSERT_EQ(diff.requests[1].kernel, "flashmla");
    AgentStagePlan perf = PlanStage("perf", in);
    ASSERT_EQ(perf.requests.size(), 1u);
    perf_ = perf.requests[0].context;
    AgentStagePlan log = PlanStage("test_log", in);
    ASSERT_EQ(log.requests.size(), 1u);
    test_log_ = log.requests[0].context;
  }

  AgentFinding Finding(std::string file, int64_t line, std::string evidence,
                       std::string claim = "the split order changed") {
    AgentFinding f;
    f.file = std::move(file);
    f.line = line;
    f.end_line = line;
    f.item = 5;
    f.severity = Severity::kError;
    f.claim = std::move(claim);
    f.evidence = std::move(evidence);
    return f;
  }

  AgentPackageDir dir_;
  AgentPackage package_;
  PermissionSettings policy_;
  RequestContext flashmla_, perf_, test_log_;
};

TEST_F(EvidenceCheckTest, AFindingOnARealDiffLineIsKept) {
  CheckedFinding c = CheckFinding(Finding("src/flash_mla/splitk_decode.h", 63, "diff"), flashmla_,
                                  package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kKept) << c.why;
  // A deleted line is cited on the old side.
  AgentFinding old_side = Finding("src/flash_mla/splitk_decode.h", 62, "diff");
  old_side.side = "old";
  EXPECT_EQ(CheckFinding(old_side, flashmla_, package_, policy_).drop, DropReason::kKept);
}

TEST_F(EvidenceCheckTest, ALineNotInTheDiffIsDropped) {
  CheckedFinding c = CheckFinding(Finding("src/flash_mla/splitk_decode.h", 90, "diff"), flashmla_,
                                  package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kNoSuchLine);
  EXPECT_NE(c.why.find("90"), std::string::npos) << c.why;
  // Old line 62 was deleted: on the new side line 68 does not exist (the hunk ends at 67).
  EXPECT_EQ(CheckFinding(Finding("src/flash_mla/splitk_decode.h", 68, "diff"), flashmla_, package_,
                         policy_)
                .drop,
            DropReason::kNoSuchLine);
  // The other component's file was not in this request.
  EXPECT_EQ(
      CheckFinding(Finding("src/deep_gemm/tile.cuh", 11, "diff"), flashmla_, package_, policy_)
          .drop,
      DropReason::kNoSuchLine);
}

TEST_F(EvidenceCheckTest, ACaseIdThatDoesNotExistIsDropped) {
  CheckedFinding c =
      CheckFinding(Finding("", 0, "evidence/numerics.json#attn.causal.s_q=9.bf16.s0"), test_log_,
                   package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kNoSuchEvidence);
  c = CheckFinding(Finding("", 0, "evidence/numerics.json#attn.causal.s_q=5.s_k=33.bf16.s0"),
                   test_log_, package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kKept) << c.why;
  EXPECT_EQ(CheckFinding(Finding("", 0, "logs/build.log:3"), test_log_, package_, policy_).drop,
            DropReason::kKept);
  EXPECT_EQ(CheckFinding(Finding("", 0, "logs/build.log:40"), test_log_, package_, policy_).drop,
            DropReason::kNoSuchEvidence);
  EXPECT_EQ(CheckFinding(Finding("", 0, "logs/pytest.log"), test_log_, package_, policy_).drop,
            DropReason::kNoSuchEvidence);
  EXPECT_EQ(CheckFinding(Finding("", 0, ""), test_log_, package_, policy_).drop,
            DropReason::kNoSuchEvidence);
  EXPECT_EQ(CheckFinding(Finding("", 0, "../../etc/passwd"), test_log_, package_, policy_).drop,
            DropReason::kNoSuchEvidence);
}

TEST_F(EvidenceCheckTest, ASharedMemoryFigureNotInResourcesJsonIsDropped) {
  AgentFinding f = Finding("", 0, "evidence/resources.json",
                           "shared memory rises to 240000 bytes, over the cap");
  CheckedFinding c = CheckFinding(f, perf_, package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kUnsupportedNumber);
  EXPECT_NE(c.why.find("240000"), std::string::npos);
  // The figures that are there, in any of their units, are kept.
  f.claim = "shared memory rises to 294912 bytes against a 227 KiB cap (0x38c00)";
  c = CheckFinding(f, perf_, package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kKept) << c.why;
  // In any stage: a diff_review claim quoting registers absent from its diff.
  AgentFinding r =
      Finding("src/flash_mla/splitk_decode.h", 63, "diff", "registers rise to 255 at line 63");
  EXPECT_EQ(CheckFinding(r, flashmla_, package_, policy_).drop, DropReason::kUnsupportedNumber);
  r.claim = "register pressure may rise at lines 63-64";
  EXPECT_EQ(CheckFinding(r, flashmla_, package_, policy_).drop, DropReason::kKept);
}

TEST_F(EvidenceCheckTest, ADeniedCommandIsDroppedAndTheFindingKept) {
  AgentFinding f = Finding("src/flash_mla/splitk_decode.h", 63, "diff");
  f.command = "rm -rf build && attnverify numerics";
  CheckedFinding c = CheckFinding(f, flashmla_, package_, policy_);
  EXPECT_EQ(c.drop, DropReason::kKept);
  EXPECT_EQ(c.command_decision, "deny");
  EXPECT_EQ(c.command_dropped, "rm -rf build && attnverify numerics");
  EXPECT_TRUE(c.finding.command.empty());
  EXPECT_NE(c.command_reason.find("rm"), std::string::npos) << c.command_reason;
  f.command = "attnverify numerics --config attention-verify/attnverify.toml --filter causal";
  c = CheckFinding(f, flashmla_, package_, policy_);
  EXPECT_EQ(c.command_decision, "allow") << c.command_reason;
  EXPECT_EQ(c.finding.command, f.command);
}

}  // namespace
}  // namespace av
