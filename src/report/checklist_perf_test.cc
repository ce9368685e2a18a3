// Items 3 and 4 from evidence/perf.json: judged when present, MISSING with the command when
// absent or short of launches, FAIL on a slower head; the writers show the table and chart.
#include <gtest/gtest.h>

#include "profile/perf_model.h"
#include "report/checklist_test_util.h"
#include "report/report_writers.h"

namespace av {
namespace {

using report_testing::Compute;
using report_testing::FindCheck;

profile::KernelProfile Kernel(const std::string& label, std::vector<double> ns,
                              double bank_conflicts = -1, double occupancy = -1) {
  profile::KernelProfile k;
  k.label = label;
  k.shape = "b16";
  k.tool = "ncu";
  k.name = profile::NormaliseKernelName("void flash::splitk_kernel<(int)64>(Params)");
  k.source_sha256 = label;
  for (size_t i = 0; i < ns.size(); ++i) {
    profile::Launch l;
    l.figures[profile::fig::kDuration] = {ns[i], "ns", "", "ns"};
    if (bank_conflicts >= 0) l.figures[profile::fig::kBankLd] = {bank_conflicts, "", "", ""};
    if (occupancy >= 0) l.figures[profile::fig::kAchievedOcc] = {occupancy, "%", "", "%"};
    k.launches.push_back(l);
  }
  return k;
}

Evidence WithPerf(std::vector<profile::KernelProfile> kernels) {
  Evidence ev;
  ev.perf_doc = profile::PerfDoc{std::move(kernels)};
  ev.perf = EvidenceFile{};
  ev.perf->path = "evidence/perf.json";
  ev.perf->sha256 = "ab12";
  return ev;
}

TEST(ChecklistPerf, FasterHeadPassesItem4WithTheTableAndChart) {
  ChecklistReport r = Compute(WithPerf({Kernel("base", {1000, 1001, 999, 1000, 1002}, 10, 50),
                                        Kernel("head", {970, 971, 969, 970, 972}, 10, 50)}));
  const Check* perf = FindCheck(r, "4.perf");
  EXPECT_EQ(perf->status, CheckStatus::kPass) << perf->summary;
  ASSERT_FALSE(perf->citations.empty());
  EXPECT_EQ(perf->citations[0].file, "evidence/perf.json");
  const Check* bank = FindCheck(r, "3.bank_conflicts");
  EXPECT_EQ(bank->status, CheckStatus::kPass) << bank->summary;
  bool occupancy_cited = false;
  for (const std::string& d : bank->details)
    occupancy_cited |= d.find("achieved occupancy 50.00%") != std::string::npos;
  EXPECT_TRUE(occupancy_cited);
  EXPECT_EQ(perf->details.back().rfind("imported from head: ", 0), 0u) << perf->details.back();
  ASSERT_EQ(r.perf.size(), 1u);
  EXPECT_EQ(r.perf[0].status, CheckStatus::kPass);
  EXPECT_NE(WriteAcceptanceMarkdown(r).find("| `splitk_kernel<64>` | b16 | 1.000 (0.999"),
            std::string::npos)
      << WriteAcceptanceMarkdown(r);
  EXPECT_NE(WriteAcceptanceHtml(r).find("aria-label=\"median time per kernel"), std::string::npos);
  EXPECT_EQ(AcceptanceToJson(r)["perf"][0]["time_gate"], "pass");
}

TEST(ChecklistPerf, SlowerHeadFailsAndMoreBankConflictsFailItem3) {
  ChecklistReport r = Compute(
      WithPerf({Kernel("base", {1000, 1001, 999}, 10), Kernel("head", {1200, 1201, 1199}, 500)}),
      "[policy]\ngpu_evidence = true\n");
  EXPECT_EQ(FindCheck(r, "4.perf")->status, CheckStatus::kFail);
  EXPECT_EQ(FindCheck(r, "3.bank_conflicts")->status, CheckStatus::kFail);
  EXPECT_EQ(r.items[3].status, CheckStatus::kFail);
}

TEST(ChecklistPerf, FewerThanThreeLaunchesIsMissingWithTheLaunchCount) {
  ChecklistReport r = Compute(WithPerf({Kernel("base", {1000, 1001}), Kernel("head", {990, 991})}));
  const Check* perf = FindCheck(r, "4.perf");
  EXPECT_EQ(perf->status, CheckStatus::kMissing);
  EXPECT_NE(perf->missing_command.find("--launch-count 5"), std::string::npos)
      << perf->missing_command;
  EXPECT_EQ(FindCheck(r, "3.bank_conflicts")->status, CheckStatus::kMissing);
}

TEST(ChecklistPerf, KernelOnOneSideOnlyIsMissingNeverPass) {
  ChecklistReport r = Compute(WithPerf({Kernel("head", {990, 991, 992})}));
  EXPECT_EQ(FindCheck(r, "4.perf")->status, CheckStatus::kMissing);
}

}  // namespace
}  // namespace av
