// `attnverify profile` end to end: the real binary on real files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::RunShell;

std::string Av(const std::string& args) {
  return std::string(testing::AttnverifyBinaryPath()) + " " + args;
}

std::string Write(const testing::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.File(name)) << text;
  return dir.File(name);
}

TEST(ProfileCli, ImportBothSidesThenShowPassesAndFails) {
  testing::TempDir dir;
  std::string perf = dir.File("perf.json");
  std::string base = Write(dir, "base.csv", "kernel,shape,time_ns\nk,s,1000\nk,s,1001\nk,s,999\n");
  std::string fast = Write(dir, "head.csv", "kernel,shape,time_ns\nk,s,990\nk,s,991\nk,s,989\n");
  std::string slow = Write(dir, "slow.csv", "kernel,shape,time_ns\nk,s,1200\nk,s,1201\nk,s,1199\n");
  auto r = RunShell(Av("profile --import " + base + " --label base --perf " + perf));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 kernel(s), 3 launch(es)"), std::string::npos) << r.output;
  ASSERT_EQ(RunShell(Av("profile --import " + fast + " --label head --perf " + perf)).exit_code, 0);
  r = RunShell(Av("profile --show --perf " + perf));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pass    time"), std::string::npos) << r.output;
  ASSERT_EQ(RunShell(Av("profile --import " + slow + " --label head --perf " + perf)).exit_code, 0);
  r = RunShell(Av("profile --show --perf " + perf));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the slow head's launches joined the fast one's
}

TEST(ProfileCli, BadExportIsExit2AndPerfJsonIsKept) {
  testing::TempDir dir;
  std::string perf = dir.File("perf.json");
  std::string good = Write(dir, "good.csv", "kernel,shape,time_ns\nk,s,1000\n");
  ASSERT_EQ(RunShell(Av("profile --import " + good + " --label base --perf " + perf)).exit_code, 0);
  auto before = ReadFileToString(perf);
  std::string bad = Write(dir, "bad.csv", "==ERROR== Profiling failed\n");
  auto r = RunShell(Av("profile --import " + bad + " --label head --perf " + perf));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("==ERROR== Profiling failed"), std::string::npos) << r.output;
  EXPECT_EQ(*ReadFileToString(perf), *before);
  EXPECT_EQ(RunShell(Av("profile --import " + good + " --label side --perf " + perf)).exit_code, 2);
}

TEST(ProfileCli, RunWithoutNcuOnPathSaysSoAndExits2) {
  testing::TempDir dir;
  auto r = RunShell("PATH=/nonexistent " + Av("profile --run --perf " + dir.File("perf.json")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("ncu (Nsight Compute) is not on PATH"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace av
