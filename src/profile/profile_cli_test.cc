// `attnverify profile` end to end: the real binary on real files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

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

// A template instantiation's name (hundreds of characters) is cut in the middle to a bounded
// column, and two names that cut alike stay told apart.
TEST(ProfileCli, ShowBoundsLongTemplateNamesAndKeepsThemDistinct) {
  testing::TempDir dir;
  const std::string perf = dir.File("perf.json");
  std::string args;
  for (int i = 0; i < 40; ++i) args += "false, ";
  const std::string a = "void flash::fwd_kernel<Traits<128, 64>, " + args + "true>(Params)";
  const std::string b = "void flash::fwd_kernel<Traits<128, 64>, " + args + "fals>(Params)";
  for (const char* side : {"base", "head"}) {
    std::string csv = "kernel,shape,time_ns\n";
    for (int i = 0; i < 3; ++i) csv += "\"" + a + "\",s,1000\n\"" + b + "\",s,1000\n";
    const std::string f = Write(dir, std::string(side) + ".csv", csv);
    ASSERT_EQ(RunShell(Av("profile --import " + f + " --label " + side + " --perf " + perf)).exit_code,
              0);
  }
  auto r = RunShell(Av("profile --show --perf " + perf));
  std::vector<std::string> time_lines;
  size_t start = 0;
  while (start < r.output.size()) {
    size_t end = r.output.find('\n', start);
    const std::string line = r.output.substr(start, end - start);
    start = end == std::string::npos ? r.output.size() : end + 1;
    if (line.rfind("pass    time", 0) != 0) continue;
    time_lines.push_back(line);
    const size_t kernel = line.find("fwd_kernel"), shape = line.find(" [s]");
    ASSERT_NE(shape, std::string::npos) << line;
    EXPECT_LE(shape - kernel, 80u) << line;  // the name, cut: well under its 300 characters
    EXPECT_NE(line.find("..."), std::string::npos) << line;
  }
  ASSERT_EQ(time_lines.size(), 2u) << r.output;
  EXPECT_NE(time_lines[0].substr(0, time_lines[0].find(" [s]")),
            time_lines[1].substr(0, time_lines[1].find(" [s]")));
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
