// The build pipeline with a fake ProcessRunner (no nvcc needed), git worktrees with real
// git (hooks and filters must not run), and the command-line behaviour of `attnverify
// build` that needs no compiler. Real-nvcc tests are in build_nvcc_test.cc.
#include "compile/build_evidence.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "compile/nvcc_runner.h"
#include "testing/test_util.h"

namespace av {
namespace {

using av::testing::RunShell;
using av::testing::TempDir;

std::string Testdata(const std::string& p) { return av::testing::SourceDir() + "/testdata/" + p; }

std::string ReadOrEmpty(const std::string& path) {
  auto t = ReadFileToString(path);
  return t.ok() ? *t : "";
}

TEST(BuildNvcc, GencodeAndArgv) {
  EXPECT_EQ(*GencodeFor("sm_90a"), "arch=compute_90a,code=sm_90a");
  EXPECT_EQ(*GencodeFor("compute_80"), "arch=compute_80,code=sm_80");
  EXPECT_EQ(*GencodeFor("arch=compute_90a,code=[sm_90a,compute_90a]"),
            "arch=compute_90a,code=[sm_90a,compute_90a]");
  EXPECT_FALSE(GencodeFor("banana").ok());
  EXPECT_FALSE(GencodeFor("arch=compute_90a").ok());
  EXPECT_EQ(NvccArgv("nvcc", "k.cu", {"-O3"}, "arch=compute_80,code=sm_80", "/tmp/0.o"),
            (std::vector<std::string>{"nvcc", "-c", "-Xptxas", "-v", "-O3", "-gencode",
                                      "arch=compute_80,code=sm_80", "-o", "/tmp/0.o", "k.cu"}));
  EXPECT_EQ(ParseNvccVersion("Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0"),
            "13.0.88");
  EXPECT_EQ(TargetArchs({"sm_80", "arch=compute_90a,code=[sm_90a,compute_90a]", "compute_80"}),
            (std::vector<std::string>{"sm_80", "sm_90a"}));
}

// A fake nvcc: answers each compile with the committed real log for its arch.
Result<ProcessResult> FakeNvcc(const ProcessRequest& req) {
  if (req.argv.size() == 2 && req.argv[1] == "--version") {
    return MakeExitedResult(0, "Cuda compilation tools, release 13.0, V13.0.88\n", "");
  }
  std::string gencode;
  for (size_t i = 0; i + 1 < req.argv.size(); ++i) {
    if (req.argv[i] == "-gencode") gencode = req.argv[i + 1];
  }
  if (gencode == "arch=compute_80,code=sm_80") {
    return MakeExitedResult(255, "", ReadOrEmpty(Testdata("ptxas_log/smem_over_sm80.log")));
  }
  return MakeExitedResult(0, "", ReadOrEmpty(Testdata("ptxas_log/dyn_smem_attr_sm90a.log")));
}

struct Package {
  TempDir dir;
  BuildRequest request;
  Package(const std::string& toml) {
    std::filesystem::copy_file(Testdata("ptxas/kernels/dyn_smem_attr.cu"), dir.File("k.cu"));
    auto c = ParseBuildConfig(toml, dir.File("attnverify.toml"));
    EXPECT_TRUE(c.ok()) << c.status().message();
    request.config = *c;
    request.out_dir = dir.path();
    request.tool_version = "test";
  }
};

TEST(BuildEvidence, CompilesEachSourceForEachTargetInTheRoot) {
  Package p(
      "[build]\nsources = [\"k.cu\"]\nflags = [\"-O3\"]\narchs = [\"sm_80\", \"sm_90a\"]\nnvcc = "
      "\"/bin/true\"\n");
  FakeProcessRunner fake(FakeNvcc);
  auto out = CollectBuildEvidence(fake, p.request);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(fake.requests().size(), 3u);  // --version, then one compile per target
  EXPECT_EQ(fake.requests()[1].cwd, p.dir.path());
  EXPECT_EQ(fake.requests()[1].argv.back(), "k.cu");
  const ResourcesReport& r = out->report;
  EXPECT_EQ(r.nvcc_version, "13.0.88");
  EXPECT_EQ(r.status, ResourcesStatus::kRejected);  // sm_80's 64 KiB static shared memory
  EXPECT_EQ(r.head.exit_codes, (std::vector<int>{255, 0}));
  EXPECT_EQ(r.findings.size(), 2u);  // kDynSmemBytes at lines 15 and 16, undeclared
  std::string log = ReadOrEmpty(p.dir.File("logs/build.log"));
  EXPECT_NE(log.find("uses too much shared data (0x10000 bytes, 0xc000 max)"), std::string::npos);
  auto json = nlohmann::json::parse(ReadOrEmpty(p.dir.File("evidence/resources.json")));
  EXPECT_EQ(json["schema"], "attnverify.resources/2");
  EXPECT_EQ(json["status"], "rejected");
  EXPECT_EQ(json["archs"], nlohmann::json({"sm_80", "sm_90a"}));
}

TEST(BuildEvidence, ArchOverrideReplacesTheConfiguredTargets) {
  Package p("[build]\nsources = [\"k.cu\"]\narchs = [\"sm_80\"]\nnvcc = \"/bin/true\"\n");
  p.request.arch_override = {"sm_90a"};
  FakeProcessRunner fake(FakeNvcc);
  auto out = CollectBuildEvidence(fake, p.request);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(fake.requests().size(), 2u);
  EXPECT_EQ(out->report.status, ResourcesStatus::kIncomplete);  // no base: occupancy_not_lower judged nothing
  EXPECT_EQ(out->report.kernels.size(), 1u);
}

TEST(BuildEvidence, ATimedOutCompileFailsTheBuildGateAndSaysWhy) {
  Package p(
      "[build]\nsources = [\"k.cu\"]\narchs = [\"sm_90a\"]\nnvcc = \"/bin/true\"\ntimeout_s = 5\n");
  FakeProcessRunner fake([](const ProcessRequest& req) -> Result<ProcessResult> {
    if (req.argv[1] == "--version") return MakeExitedResult(0, "", "");
    EXPECT_EQ(req.timeout_ms, 5000);
    ProcessResult r;
    r.timed_out = true;
    r.term_signal = 9;
    r.wall_ms = 5000;
    r.stderr_text = "ptxas info    : 0 bytes gmem\n";
    return r;
  });
  auto out = CollectBuildEvidence(fake, p.request);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->report.status, ResourcesStatus::kRejected);
  EXPECT_EQ(out->report.head.exit_codes, (std::vector<int>{-1}));
  const GateResult& g = out->report.gates.at(0);
  EXPECT_EQ(g.name, "head_builds");
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0], "nvcc k.cu for sm_90a: timed out after 5 s");
}

TEST(BuildEvidence, MissingNvccIsReportedAsMissingEvidence) {
  Package p(
      "[build]\nsources = [\"k.cu\"]\narchs = [\"sm_90a\"]\nnvcc = \"/nonexistent/bin/nvcc\"\n");
  FakeProcessRunner fake(FakeNvcc);
  auto out = CollectBuildEvidence(fake, p.request);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(fake.requests().empty());
  EXPECT_EQ(out->report.status, ResourcesStatus::kMissing);
  EXPECT_NE(out->report.missing_reason.find("/nonexistent/bin/nvcc"), std::string::npos);
  auto json = nlohmann::json::parse(ReadOrEmpty(p.dir.File("evidence/resources.json")));
  EXPECT_EQ(json["status"], "missing");
}

TEST(BuildEvidence, ImportParsesALogWithoutCompiling) {
  Package p("");
  p.request.import_log = Testdata("ptxas_log/smem_over_sm90a.log");
  FakeProcessRunner fake(FakeNvcc);
  auto out = CollectBuildEvidence(fake, p.request);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(fake.requests().empty());
  EXPECT_EQ(out->report.archs, (std::vector<std::string>{"sm_90a"}));
  EXPECT_EQ(out->report.status, ResourcesStatus::kRejected);
  EXPECT_EQ(out->report.head.ref, "imported");
}

TEST(BuildEvidence, BadRequestsAreInputErrors) {
  FakeProcessRunner fake(FakeNvcc);
  Package none("[build]\narchs = [\"sm_90a\"]\n");
  auto a = CollectBuildEvidence(fake, none.request);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("sources is empty"), std::string::npos);
  Package missing("[build]\nsources = [\"nope.cu\"]\narchs = [\"sm_90a\"]\nnvcc = \"/bin/true\"\n");
  auto b = CollectBuildEvidence(fake, missing.request);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("\"nope.cu\" not found"), std::string::npos);
  Package both("");
  both.request.import_log = "x.log";
  both.request.base_ref = "HEAD~1";
  EXPECT_FALSE(CollectBuildEvidence(fake, both.request).ok());
  Package bad_arch("[build]\nsources = [\"k.cu\"]\narchs = [\"banana\"]\n");
  EXPECT_FALSE(CollectBuildEvidence(fake, bad_arch.request).ok());
}

// `attnverify build` itself, where no compiler is needed.
std::string Binary() { return ATTNVERIFY_BINARY; }

// A package folder as `attnverify init` makes it: ROOT/attention-verify/attnverify.toml.
std::string MakePackage(const TempDir& root, const std::string& toml) {
  std::filesystem::create_directories(root.File("attention-verify"));
  EXPECT_TRUE(WriteFileAtomically(root.File("attention-verify/attnverify.toml"), toml).ok());
  return root.File("attention-verify");
}

// H7 through the binary: empty logs imported for head and base exit 1, never "ok".
TEST(BuildCliRegression, H7EmptyImportedLogsAreIncompleteNotOk) {
  TempDir root;
  std::string pkg = MakePackage(root, "[build]\nblock_size = 128\n");
  ASSERT_TRUE(WriteFileAtomically(root.File("empty.log"), "").ok());
  auto r = RunShell("cd '" + root.path() + "' && '" + Binary() +
                    "' build --import empty.log --import-base empty.log");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("verdict: incomplete"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("PASS"), std::string::npos) << r.output;
  auto json = nlohmann::json::parse(ReadOrEmpty(pkg + "/evidence/resources.json"));
  EXPECT_EQ(json["status"], "incomplete");
  for (const auto& g : json["gates"]) {
    EXPECT_EQ(g["status"], "missing") << g.dump();
    EXPECT_EQ(g["skipped"], true);
    EXPECT_EQ(g["passed"], false);
  }
}

// Realworld defects 7 and 8: `build` defaulted to ./attnverify.toml and wrote a stray
// ./evidence/ into the repository; imported logs stayed outside the package, cited by
// paths relative to wherever build ran.
TEST(BuildCliRegression, DefaultConfigIsThePackageAndImportedLogsAreCopiedIntoIt) {
  TempDir root;
  std::string pkg = MakePackage(root, "[build]\nblock_size = 128\n");
  auto r = RunShell("cd '" + root.path() + "' && '" + Binary() + "' build --import '" +
                    Testdata("ptxas_log/multi_two_archs.log") + "' --import-base '" +
                    Testdata("ptxas_log/spill_sm80.log") + "'");
  EXPECT_LT(r.exit_code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(root.File("evidence"))) << "a stray ./evidence";
  EXPECT_FALSE(std::filesystem::exists(root.File("logs")));
  EXPECT_EQ(ReadOrEmpty(pkg + "/logs/build.log"),
            ReadOrEmpty(Testdata("ptxas_log/multi_two_archs.log")));
  EXPECT_EQ(ReadOrEmpty(pkg + "/logs/build-base.log"),
            ReadOrEmpty(Testdata("ptxas_log/spill_sm80.log")));
  auto json = nlohmann::json::parse(ReadOrEmpty(pkg + "/evidence/resources.json"));
  EXPECT_EQ(json["head"]["log"], "logs/build.log");  // package-relative
  EXPECT_EQ(json["base"]["log"], "logs/build-base.log");
  // No package here and no --out: an error, and nothing written.
  TempDir bare;
  auto none = RunShell("cd '" + bare.path() + "' && '" + Binary() + "' build --import '" +
                       Testdata("ptxas_log/multi_two_archs.log") + "'");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("attention-verify/attnverify.toml not found"), std::string::npos)
      << none.output;
  EXPECT_TRUE(std::filesystem::is_empty(bare.path()));
}

// Newcomer turn 3: `[polcy]` was read as nothing and the defaults applied, silently. The
// whole file is checked when any command loads it.
TEST(BuildCliRegression, MisspelledTableIsExitTwoNamingTheLine) {
  TempDir root;
  std::string pkg = MakePackage(root, "[build]\nblock_size = 128\n\n[polcy]\nrequired = [1]\n");
  auto r = RunShell("cd '" + root.path() + "' && '" + Binary() + "' build --import '" +
                    Testdata("ptxas_log/multi_two_archs.log") + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("attention-verify/attnverify.toml:4: unknown table [polcy] (did you "
                          "mean [policy]?)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(pkg + "/evidence/resources.json"));
}

TEST(BuildCli, ImportOfAnOverflowLogExitsOneAndWritesEvidence) {
  TempDir out;
  auto r = RunShell("'" + Binary() + "' build --import '" +
                    Testdata("ptxas_log/smem_over_sm90a.log") + "' --out '" + out.path() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("over by 29696 bytes"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out.File("evidence/resources.json")));
}

TEST(BuildCli, ConfigErrorsExitTwo) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"), "[build]\nsourcez = []\n").ok());
  auto r = RunShell("'" + Binary() + "' build --config '" + dir.File("attnverify.toml") + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("attnverify.toml:2:1: unknown key \"sourcez\""), std::string::npos)
      << r.output;
}

TEST(BuildCli, WithoutNvccTheEvidenceIsReportedMissing) {
  TempDir dir;
  std::filesystem::copy_file(Testdata("ptxas/kernels/multi.cu"), dir.File("multi.cu"));
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"),
                                  "[build]\nsources = [\"multi.cu\"]\narchs = [\"sm_90a\"]\n")
                  .ok());
  auto r = RunShell("cd '" + dir.path() + "' && env -u CUDA_HOME -u CUDA_PATH PATH=/nonexistent '" +
                    Binary() + "' build --config attnverify.toml");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("compile evidence missing: nvcc was not found"), std::string::npos)
      << r.output;
  EXPECT_NE(ReadOrEmpty(dir.File("evidence/resources.json")).find("\"status\": \"missing\""),
            std::string::npos);
}

}  // namespace
}  // namespace av
