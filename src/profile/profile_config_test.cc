#include "profile/profile_config.h"

#include <gtest/gtest.h>

namespace av::profile {
namespace {

TEST(ProfileConfigParse, DefaultsWithoutTheTable) {
  auto c = ParseProfileConfig("[build]\nroot = \"..\"\n", "a.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->max_slowdown, 0.03);
  EXPECT_EQ(c->min_launches, 3);
}

TEST(ProfileConfigParse, KeysMatchTableAndErrorsWithTheLine) {
  auto c = ParseProfileConfig(
      "[profile]\nmax_slowdown = 0.05\ngpu = \"H200\"\nbench = [\"python\", \"b.py\"]\n"
      "[profile.match]\n\"flash_mla_fwd.*\" = \"flash_mla_splitk.*\"\n",
      "a.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->max_slowdown, 0.05);
  EXPECT_EQ(c->gpu, "H200");
  ASSERT_EQ(c->match.size(), 1u);
  EXPECT_EQ(c->match[0].second, "flash_mla_splitk.*");
  auto typo = ParseProfileConfig("[profile]\nmax_slowdwn = 0.05\n", "a.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("a.toml:2"), std::string::npos) << typo.status().message();
  auto bad_re = ParseProfileConfig("[profile.match]\n\"(\" = \"x\"\n", "a.toml");
  ASSERT_FALSE(bad_re.ok());
  EXPECT_NE(bad_re.status().message().find("not a regex"), std::string::npos);
  EXPECT_FALSE(ParseProfileConfig("[profile]\nmin_launches = 2\n", "a.toml").ok());
}

}  // namespace
}  // namespace av::profile
