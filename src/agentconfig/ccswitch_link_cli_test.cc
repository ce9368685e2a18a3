// End to end: `attnverify agent-config ccswitch-link` prints CC Switch's import link with the
// key taken from the environment at that moment, writes no file, and refuses without a key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/scoped_env.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::Av;
using testing::RunShell;
using testing::ScopedEnv;
using testing::TempDir;

size_t FileCount(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

TEST(CcSwitchLinkCli, PrintsTheLinkWithTheKeyOfTheEnvironmentAndWritesNothing) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("repo/attention-verify"));
  std::ofstream(dir.File("repo/attention-verify/attnverify.toml"))
      << "[provider]\nname = \"taotoken\"\nbase_url = \"https://taotoken.net/api\"\n"
         "api = \"anthropic-messages\"\nkey_env = \"TAOTOKEN_API_KEY\"\n"
         "models = { default = \"m1\", fast = \"m2\", review = \"m3\" }\n";
  const size_t before = FileCount(dir.File("repo"));
  {
    auto r = RunShell("cd '" + dir.File("repo") + "' && env -u TAOTOKEN_API_KEY " +
                      Av("agent-config ccswitch-link"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("$TAOTOKEN_API_KEY is not set"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("ccswitch://"), std::string::npos) << r.output;
  }
  const std::string key = std::string("tt-") + "fake-link-" + "0123456789";
  ScopedEnv k("TAOTOKEN_API_KEY", key);
  auto r = RunShell("cd '" + dir.File("repo") + "' && " + Av("agent-config ccswitch-link"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("ccswitch://v1/import?resource=provider&app=claude&name=taotoken", 0),
            0u)
      << r.output;
  EXPECT_NE(r.output.find("&apiKey=" + key + "&"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("&endpoint=https%3A%2F%2Ftaotoken.net%2Fapi&"), std::string::npos);
  EXPECT_EQ(FileCount(dir.File("repo")), before);  // the key reached no file
}

}  // namespace
}  // namespace av
