#include "profile/ncu_run.h"

#include <gtest/gtest.h>

namespace av::profile {
namespace {

TEST(ProfileNcuRun, ArgvHasTheGatesMetricsRawPageAndTheBench) {
  ProfileConfig cfg;
  cfg.bench = {"python", "bench_flash_mla.py", "--b", "4"};
  cfg.kernel_regex = "flash_mla";
  cfg.launch_count = 5;
  std::vector<std::string> argv = NcuArgv("/usr/local/cuda/bin/ncu", cfg);
  ASSERT_GE(argv.size(), 14u);
  EXPECT_EQ(argv[0], "/usr/local/cuda/bin/ncu");
  EXPECT_EQ(std::vector<std::string>(argv.begin() + 1, argv.begin() + 6),
            (std::vector<std::string>{"--csv", "--page", "raw", "--print-units", "base"}));
  EXPECT_EQ(argv[6], "--metrics");
  for (const char* m :
       {"gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread", "launch__shared_mem_per_block_static",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}) {
    EXPECT_NE(argv[7].find(m), std::string::npos) << m;
  }
  EXPECT_EQ(argv[8], "--launch-count");
  EXPECT_EQ(argv[9], "5");
  EXPECT_EQ(argv[11], "regex:flash_mla");
  EXPECT_EQ(argv.back(), "4");
}

TEST(ProfileNcuRun, NoBenchIsAnInputError) {
  FakeProcessRunner runner(
      [](const ProcessRequest&) -> Result<ProcessResult> { return MakeExitedResult(0, "", ""); });
  auto r = RunNcu(runner, ProfileConfig{}, ".", ".", "head");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[profile] bench"), std::string::npos);
  EXPECT_TRUE(runner.requests().empty());
}

}  // namespace
}  // namespace av::profile
