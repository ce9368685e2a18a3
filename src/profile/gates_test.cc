// Base/head pairs that pass and fail each gate, a kernel missing on one side, renames, and
// perf.json written and read back.
#include "profile/gates.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/file.h"
#include "profile/perf_model.h"
#include "testing/test_util.h"

namespace av::profile {
namespace {

KernelProfile Kernel(const std::string& label, const std::string& name, std::vector<double> ns,
                     std::map<std::string, double> extra = {}) {
  KernelProfile k;
  k.label = label;
  k.shape = "decode";
  k.tool = "ncu";
  k.name = NormaliseKernelName(name);
  k.source_sha256 = label;
  for (size_t i = 0; i < ns.size(); ++i) {
    Launch l;
    l.id = std::to_string(i);
    l.figures[fig::kDuration] = {ns[i], "ns", std::to_string(ns[i]), "ns"};
    for (const auto& [n, v] : extra) l.figures[n] = {v, "", std::to_string(v), ""};
    k.launches.push_back(l);
  }
  return k;
}

const GateResult* Find(const PerfVerdict& v, const std::string& gate) {
  for (const GateResult& g : v.gates) {
    if (g.gate == gate) return &g;
  }
  return nullptr;
}

PerfVerdict Judge(std::vector<KernelProfile> ks, ProfileConfig cfg = {}, CompileSmem smem = {}) {
  return JudgePerfDoc(PerfDoc{std::move(ks)}, cfg, smem, "ncu --launch-count 5 ...");
}

TEST(ProfileGates, TimePassesWithinBudgetAndFailsPastIt) {
  std::vector<double> base = {1000, 1002, 998, 1001, 999};
  auto same = Judge({Kernel("base", "k", base), Kernel("head", "k", {1001, 999, 1000, 1003, 998})});
  ASSERT_NE(Find(same, "time"), nullptr);
  EXPECT_EQ(Find(same, "time")->status, CheckStatus::kPass) << Find(same, "time")->summary;
  auto slow =
      Judge({Kernel("base", "k", base), Kernel("head", "k", {1100, 1102, 1098, 1101, 1099})});
  EXPECT_EQ(Find(slow, "time")->status, CheckStatus::kFail);
  EXPECT_NE(Find(slow, "time")->summary.find("slower than the 3.0% budget"), std::string::npos);
  ASSERT_TRUE(slow.pairs[0].ratio.has_value());
  EXPECT_NEAR(slow.pairs[0].ratio->ratio, 1.1, 1e-9);
  EXPECT_TRUE(slow.pairs[0].ratio->bootstrap);
}

TEST(ProfileGates, NoisyTimesThatCannotExcludeASlowdownFail) {
  auto v = Judge({Kernel("base", "k", {1000, 800, 1200}), Kernel("head", "k", {1000, 1300, 900})});
  EXPECT_EQ(Find(v, "time")->status, CheckStatus::kFail);
  EXPECT_NE(Find(v, "time")->summary.find("collect more launches"), std::string::npos);
}

TEST(ProfileGates, FewerThanThreeLaunchesIsMissingWithTheCommand) {
  auto v = Judge({Kernel("base", "k", {1000, 1000}), Kernel("head", "k", {900, 900, 900})});
  EXPECT_EQ(Find(v, "time")->status, CheckStatus::kMissing);
  EXPECT_NE(Find(v, "time")->command.find("--launch-count 5"), std::string::npos);
}

TEST(ProfileGates, KernelMissingOnOneSideIsMissingNotPass) {
  auto v =
      Judge({Kernel("base", "old_kernel", {1, 1, 1}), Kernel("head", "new_kernel", {1, 1, 1})});
  ASSERT_EQ(v.gates.size(), 2u);
  for (const GateResult& g : v.gates) {
    EXPECT_EQ(g.gate, "matched");
    EXPECT_EQ(g.status, CheckStatus::kMissing);
  }
  ProfileConfig cfg;
  cfg.match = {{"old_.*", "new_.*"}};
  auto renamed = Judge(
      {Kernel("base", "old_kernel", {1, 1, 1}), Kernel("head", "new_kernel", {1, 1, 1})}, cfg);
  ASSERT_EQ(renamed.pairs.size(), 1u);
  EXPECT_EQ(renamed.pairs[0].how, "match");
  EXPECT_EQ(Find(renamed, "time")->status, CheckStatus::kPass);
}

TEST(ProfileGates, ShortNameMatchesOnlyWhenUniqueOnBothSides) {
  std::vector<double> t = {1000, 1000, 1000};
  // ncu printed the kernel without template arguments; one instance on each side pairs.
  auto one = Judge({Kernel("base", "void ns::k<(int)64>(int)", t), Kernel("head", "k", t)});
  ASSERT_EQ(one.pairs.size(), 1u);
  EXPECT_EQ(one.pairs[0].how, "short name");
  // Two base instances: which one the head's "k" is cannot be told, so neither pairs.
  auto two =
      Judge({Kernel("base", "k<64>", t), Kernel("base", "k<128>", t), Kernel("head", "k", t)});
  EXPECT_EQ(two.pairs.size(), 3u);
}

TEST(ProfileGates, OccupancyRegistersAndBankConflicts) {
  std::vector<double> t = {1000, 1000, 1000};
  auto ok = Judge(
      {Kernel("base", "k", t, {{fig::kAchievedOcc, 50}, {fig::kRegisters, 96}, {fig::kBankLd, 10}}),
       Kernel("head", "k", t,
              {{fig::kAchievedOcc, 49.5}, {fig::kRegisters, 96}, {fig::kBankLd, 10}})});
  EXPECT_EQ(Find(ok, "occupancy")->status, CheckStatus::kPass);
  EXPECT_EQ(Find(ok, "registers")->status, CheckStatus::kPass);
  EXPECT_EQ(Find(ok, "bank_conflicts")->status, CheckStatus::kPass);
  auto bad = Judge({Kernel("base", "k", t,
                           {{fig::kAchievedOcc, 50},
                            {fig::kRegisters, 96},
                            {fig::kTheoreticalOcc, 50},
                            {fig::kBankLd, 10}}),
                    Kernel("head", "k", t,
                           {{fig::kAchievedOcc, 40},
                            {fig::kRegisters, 168},
                            {fig::kTheoreticalOcc, 25},
                            {fig::kBankLd, 4000}})});
  EXPECT_EQ(Find(bad, "occupancy")->status, CheckStatus::kFail);
  EXPECT_EQ(Find(bad, "registers")->status, CheckStatus::kFail);
  EXPECT_NE(Find(bad, "registers")->summary.find("past the occupancy cliff"), std::string::npos);
  EXPECT_EQ(Find(bad, "bank_conflicts")->status, CheckStatus::kFail);
  auto below_cliff =
      Judge({Kernel("base", "k", t, {{fig::kRegisters, 96}, {fig::kTheoreticalOcc, 50}}),
             Kernel("head", "k", t, {{fig::kRegisters, 104}, {fig::kTheoreticalOcc, 50}})});
  EXPECT_EQ(Find(below_cliff, "registers")->status, CheckStatus::kPass);
}

TEST(ProfileGates, SmemAgainstCompileEvidence) {
  std::vector<double> t = {1000, 1000, 1000};
  std::vector<KernelProfile> ks = {Kernel("base", "k", t, {{fig::kSmemStatic, 16384}}),
                                   Kernel("head", "k", t, {{fig::kSmemStatic, 16384}})};
  EXPECT_EQ(Find(Judge(ks), "smem"), nullptr);  // no compile evidence: no gate
  EXPECT_EQ(Find(Judge(ks, {}, {{"head", {{"k", 16384}}}}), "smem")->status, CheckStatus::kPass);
  const GateResult* g = Find(Judge(ks, {}, {{"head", {{"k", 8192}}}}), "smem");
  EXPECT_EQ(g->status, CheckStatus::kFail);
  EXPECT_NE(g->summary.find("different build"), std::string::npos);
}

TEST(ProfileGates, PlausibilityAgainstThePeakTable) {
  std::vector<double> t = {1000, 1000, 1000};
  ProfileConfig h200;
  h200.gpu = "H200";  // 4800 GB/s = 4800 byte/ns
  auto fine =
      Judge({Kernel("base", "k", t), Kernel("head", "k", t, {{fig::kDramRead, 2e6}})}, h200);
  EXPECT_EQ(Find(fine, "plausible")->status, CheckStatus::kPass);
  auto fast =
      Judge({Kernel("base", "k", t), Kernel("head", "k", t, {{fig::kDramRead, 9e6}})}, h200);
  EXPECT_EQ(Find(fast, "plausible")->status, CheckStatus::kFail);
  auto unknown = Judge({Kernel("base", "k", t), Kernel("head", "k", t, {{fig::kDramRead, 9e6}})});
  EXPECT_EQ(Find(unknown, "plausible")->status, CheckStatus::kMissing);
}

TEST(ProfileGates, SummaryOnlySidesUseTheNormalApproximation) {
  KernelProfile b = Kernel("base", "k", {}), h = Kernel("head", "k", {});
  b.summary = Summary{768, 0, 5540, 5536, 5472, 5632, 27.3};
  h.summary = Summary{768, 0, 5540, 5530, 5472, 5632, 27.3};
  auto v = Judge({b, h});
  EXPECT_EQ(Find(v, "time")->status, CheckStatus::kPass) << Find(v, "time")->summary;
  EXPECT_FALSE(v.pairs[0].ratio->bootstrap);
}

TEST(ProfilePerfJson, WrittenReadBackAndReimportReplaces) {
  av::testing::TempDir dir;
  std::string path = dir.File("perf.json");
  KernelProfile k = Kernel("head", "void ns::k<(int)1>(int)", {1, 2, 3}, {{fig::kRegisters, 64}});
  k.summary = Summary{3, 6, 2, 2, 1, 3, 1};
  ASSERT_TRUE(AppendPerfJson(path, {k}).ok());
  ASSERT_TRUE(AppendPerfJson(path, {k}).ok());  // the same file again: replaced, not doubled
  auto doc = ReadPerfJson(path);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->kernels.size(), 1u);
  EXPECT_EQ(doc->kernels[0].name.key, "k<1>");
  EXPECT_EQ(doc->kernels[0].launches.size(), 3u);
  EXPECT_EQ(doc->kernels[0].launches[2].Find(fig::kRegisters)->value, 64);
  EXPECT_EQ(doc->kernels[0].summary->med_ns, 2);
  EXPECT_EQ(RenderPerfJson(*doc), RenderPerfJson(PerfDoc{{k}}));
}

TEST(ProfilePerfJson, BadFileIsAnErrorWithItsPathAndIsKept) {
  av::testing::TempDir dir;
  std::string path = dir.File("perf.json");
  std::ofstream(path) << R"({"schema":"attnverify.perf/1","kernels":[{"label":"side"}]})";
  Status s = AppendPerfJson(path, {Kernel("head", "k", {1})});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("$.kernels[0].label"), std::string::npos) << s.message();
  auto text = ReadFileToString(path);
  EXPECT_NE(text->find("side"), std::string::npos);
}

}  // namespace
}  // namespace av::profile
