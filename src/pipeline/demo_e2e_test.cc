// The main job end to end on examples/splitk_decode: a real git repository with the
// before, refactor and fix commits, `attnverify run` as a real process, the real
// reports. The refactor must be rejected for the right reasons (the mask bug localised
// to rows i < s_q - 1; with nvcc, the shared-memory overflow with exact bytes); refactor +
// fix must be accepted when nvcc can produce the compile evidence.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/process.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

const json* FindCheck(const json& report, int item, const std::string& id) {
  for (const json& i : report["items"]) {
    if (i["number"] != item) continue;
    for (const json& c : i["checks"]) {
      if (c["id"] == id) return &c;
    }
  }
  return nullptr;
}

std::string ItemStatus(const json& report, int item) {
  for (const json& i : report["items"]) {
    if (i["number"] == item) return i["status"];
  }
  return "";
}

class DemoEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string ex = SourceDir() + "/examples/splitk_decode";
    repo_ = dir_.File("repo");
    const std::string git =
        "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "
        "-c core.hooksPath=/dev/null";
    auto r =
        RunShell("cp -r " + ex + "/repo " + repo_ + " && cd " + repo_ + " && " + git +
                 " init -q -b main && " + git + " add -A && " + git + " commit -qm before && " +
                 git + " apply " + ex + "/refactor.patch && " + git + " commit -qam refactor");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    fix_ =
        "cd " + repo_ + " && " + git + " apply " + ex + "/fix.patch && " + git + " commit -qam fix";
    git_ = git;
  }

  json Run(const std::string& base, int* exit_code) {
    auto r = RunShell("cd " + repo_ + " && " + ATTNVERIFY_BINARY +
                      " run --config attention-verify/attnverify.toml --base " + base);
    *exit_code = r.exit_code;
    output_ = r.output;
    Result<std::string> text =
        ReadFileToString(repo_ + "/attention-verify/reports/acceptance.json");
    if (!text.ok()) {
      ADD_FAILURE() << "no acceptance.json:\n" << r.output;
      return json::object();
    }
    return json::parse(*text);
  }

  TempDir dir_;
  std::string repo_, fix_, output_, git_;
};

TEST_F(DemoEndToEnd, RefactorIsRejectedForTheRightReasonsAndTheFixIsAccepted) {
  // Where `attnverify build` looks (doc/formats/attnverify-toml-build.md): $CUDA_HOME/bin,
  // $CUDA_PATH/bin, then PATH.
  bool have_nvcc = !FindExecutable("nvcc").empty();
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* dir = std::getenv(var);
    if (dir != nullptr && *dir != 0)
      have_nvcc |= RunShell(std::string("test -x ") + dir + "/bin/nvcc").exit_code == 0;
  }
  int rc = -1;
  json report = Run("HEAD~1", &rc);
  ASSERT_TRUE(report.contains("items")) << output_;
  EXPECT_EQ(rc, 1) << output_;
  EXPECT_EQ(report["verdict"], "rejected");
  EXPECT_EQ(ItemStatus(report, 2), "FAIL");
  const json* alignment = FindCheck(report, 2, "2.causal_alignment");
  ASSERT_NE(alignment, nullptr);
  EXPECT_EQ((*alignment)["status"], "FAIL");
  EXPECT_NE(alignment->dump().find("query rows i < s_q - 1"), std::string::npos)
      << alignment->dump(1);
  EXPECT_EQ(ItemStatus(report, 5), "PASS");  // the bug is not a split-k bug: splits agree
  const json* perf = FindCheck(report, 4, "4.perf");
  ASSERT_NE(perf, nullptr);
  EXPECT_EQ((*perf)["status"], "MISSING");
  EXPECT_NE((*perf)["missing_command"].get<std::string>().find("ncu"), std::string::npos);
  // The reviewer points at the tile constant and the mask function, with lines.
  Result<std::string> review = ReadFileToString(repo_ + "/attention-verify/evidence/review.json");
  ASSERT_TRUE(review.ok());
  json findings = json::parse(*review)["findings"];
  bool tile = false, mask = false;
  for (const json& f : findings) {
    tile |= f["rule"] == "tile.constant_changed" && f["file"] == "src/flash_mla/splitk_decode.h" &&
            f["line"] > 0;
    mask |= f["rule"] == "mask.expression_changed" &&
            f["file"] == "src/flash_mla/splitk_decode.h" && f["line"] > 0;
  }
  EXPECT_TRUE(tile) << findings.dump(1);
  EXPECT_TRUE(mask) << findings.dump(1);
  if (have_nvcc) {
    const json* smem = FindCheck(report, 3, "3.smem_within_cap");
    ASSERT_NE(smem, nullptr);
    EXPECT_EQ((*smem)["status"], "FAIL");
    EXPECT_NE(smem->dump().find("352768 bytes"), std::string::npos) << smem->dump(1);
  } else {
    EXPECT_EQ(ItemStatus(report, 3), "MISSING");
  }
  EXPECT_EQ(RunShell("cd " + repo_ + " && " + ATTNVERIFY_BINARY +
                     " verify-package --config attention-verify/attnverify.toml")
                .exit_code,
            0);
  // A report made on one machine must read right on another: acceptance.md after `run`
  // carried this machine's absolute config path in its verify lines.
  for (const char* name : {"acceptance.md", "acceptance.json", "acceptance.sarif"}) {
    Result<std::string> text = ReadFileToString(repo_ + "/attention-verify/reports/" + name);
    ASSERT_TRUE(text.ok()) << name;
    EXPECT_EQ(text->find(dir_.path()), std::string::npos)
        << name << " names this machine's folder " << dir_.path();
    // run.json recorded its own argv as "attnverify run run --config ...".
    EXPECT_EQ(text->find("attnverify run run"), std::string::npos) << name;
  }
  // Code scanning sees the rejection: the FAIL items are errors in the SARIF.
  Result<std::string> sarif = ReadFileToString(repo_ + "/attention-verify/reports/acceptance.sarif");
  ASSERT_TRUE(sarif.ok());
  EXPECT_NE(sarif->find("checklist/2.causal_alignment"), std::string::npos);

  ASSERT_EQ(RunShell(fix_).exit_code, 0);
  report = Run("HEAD~2", &rc);
  ASSERT_TRUE(report.contains("items")) << output_;
  for (int item : {1, 2, 5, 6, 7, 8})
    EXPECT_EQ(ItemStatus(report, item), "PASS") << "item " << item << "\n" << output_;
  if (have_nvcc) {
    EXPECT_EQ(rc, 0) << output_;
    EXPECT_EQ(report["verdict"], "accepted");
  } else {
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(report["verdict"], "incomplete");
  }
}

// The policy `attnverify init` writes (all eight items required, GPU-only checks
// optional) on this MLA-decode-only package: item 4 (GEMM shapes) does not apply to a
// change with no GEMM op swept and no GEMM code changed, so it reads N/A and the fix is
// accepted without editing [policy] (with nvcc for item 3's compile evidence).
TEST_F(DemoEndToEnd, TheInitPolicyAcceptsTheFixOfAnAttentionOnlyChange) {
  const bool have_nvcc = !FindExecutable("nvcc").empty();
  ASSERT_EQ(RunShell(fix_).exit_code, 0);
  const std::string toml = repo_ + "/attention-verify/attnverify.toml";
  Result<std::string> text = ReadFileToString(toml);
  ASSERT_TRUE(text.ok());
  const std::string old_policy = "required = [1, 2, 3, 5, 6, 7, 8]";
  const size_t at = text->find(old_policy);
  ASSERT_NE(at, std::string::npos) << *text;
  std::string edited = *text;
  edited.replace(at, old_policy.size(), "required = [1, 2, 3, 4, 5, 6, 7, 8]\ngpu_evidence = false");
  ASSERT_TRUE(WriteFileAtomically(toml, edited).ok());
  ASSERT_EQ(RunShell("cd " + repo_ + " && " + git_ + " commit -qam 'init policy'").exit_code, 0);
  int rc = -1;
  json report = Run("HEAD~3", &rc);
  ASSERT_TRUE(report.contains("items")) << output_;
  EXPECT_EQ(ItemStatus(report, 4), "N/A") << output_;
  const json* gemm = FindCheck(report, 4, "4.unaligned_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ((*gemm)["status"], "N/A") << gemm->dump(1);
  EXPECT_EQ((*gemm)["citations"].size(), 2u) << gemm->dump(1);
  for (int item : {1, 2, 5, 6, 7, 8})
    EXPECT_EQ(ItemStatus(report, item), "PASS") << "item " << item << "\n" << output_;
  if (have_nvcc) {
    EXPECT_EQ(rc, 0) << output_;
    EXPECT_EQ(report["verdict"], "accepted") << report["verdict_reason"];
    EXPECT_NE(report["verdict_reason"].get<std::string>().find("item 4 not applicable"),
              std::string::npos)
        << report["verdict_reason"];
  } else {
    EXPECT_EQ(report["verdict"], "incomplete");
    EXPECT_EQ(report["verdict_reason"], "required item 3 lack evidence (MISSING)");
  }
}

}  // namespace
}  // namespace av
