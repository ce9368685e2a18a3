// Control characters from files under review (a kernel name in a timing export, the
// [report] title) are shown as escapes, never sent to the terminal or written raw into
// acceptance.md: a kernel named "k\x1b[2J" cleared the screen of whoever ran
// `profile --show`. The real binary on real files.
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

TEST(TerminalEscapes, KernelNameWithEscapeIsShownNotObeyedByProfileShow) {
  testing::TempDir dir;
  const std::string perf = dir.File("perf.json");
  for (const char* label : {"base", "head"}) {
    const std::string csv = dir.File(std::string(label) + ".csv");
    std::ofstream(csv) << "kernel,shape,time_ns\n\"k\x1b[2J\",s1,5\n\"k\x1b[2J\",s1,6\n"
                       << "\"k\x1b[2J\",s1,7\n";
    auto r = RunShell(Av("profile --import " + csv + " --label " + label + " --perf " + perf));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  }
  auto r = RunShell(Av("profile --show --perf " + perf));
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("k\\x1b[2J"), std::string::npos) << r.output;
}

TEST(TerminalEscapes, ReportTitleWithEscapeAndScriptIsTextInAcceptanceMd) {
  testing::TempDir dir;
  const std::string pkg = dir.File("attention-verify");
  std::filesystem::create_directories(pkg + "/evidence");
  std::ofstream(pkg + "/attnverify.toml")
      << "[report]\ntitle = \"<script>alert(1)</script>\\u001b[2J\"\n";
  auto r = RunShell("cd " + dir.path() + " && " +
                    Av("report --config attention-verify/attnverify.toml"));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // nothing judged: incomplete
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  Result<std::string> md = ReadFileToString(pkg + "/reports/acceptance.md");
  ASSERT_TRUE(md.ok()) << r.output;
  EXPECT_EQ(md->find('\x1b'), std::string::npos);
  EXPECT_EQ(md->find("<script>"), std::string::npos);
  EXPECT_NE(md->find("&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J"), std::string::npos)
      << md->substr(0, 200);
}

}  // namespace
}  // namespace av
