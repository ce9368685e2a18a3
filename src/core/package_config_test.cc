// PackageConfig: attnverify.toml parsed and checked once, each module's table handed out
// from that one value, every error naming FILE:LINE.
#include "core/package_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/test_util.h"

namespace av {
namespace {

TEST(PackageConfig, HandsOutEachTableOfOneParse) {
  Result<PackageConfig> c =
      PackageConfig::Parse("[report]\ntitle = \"t\"\n[profile]\nmax_slowdown = 0.05\n", "a.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->path(), "a.toml");
  Result<const toml::table*> report = c->Table("report");
  ASSERT_TRUE(report.ok());
  ASSERT_NE(*report, nullptr);
  EXPECT_EQ((**report)["title"].value<std::string>(), "t");
  Result<const toml::table*> build = c->Table("build");
  ASSERT_TRUE(build.ok());
  EXPECT_EQ(*build, nullptr);  // absent: the module's defaults
  // Copies share the one document.
  PackageConfig copy = *c;
  EXPECT_EQ(&copy.doc(), &c->doc());
}

TEST(PackageConfig, UnknownTablesAndKeysAndNonTablesAreErrorsWithTheLine) {
  Result<PackageConfig> typo =
      PackageConfig::Parse("[report]\n\n[polcy]\nrequired = [1]\n", "p.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message(), "p.toml:3: unknown table [polcy] (did you mean [policy]?)");
  Result<PackageConfig> scalar = PackageConfig::Parse("profile = 3\n", "p.toml");
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  Result<const toml::table*> t = scalar->Table("profile");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().rfind("p.toml:1:", 0), 0u) << t.status().message();
  EXPECT_NE(t.status().message().find("\"profile\" must be a table"), std::string::npos);
  // A table the schema does not list is a bug of the caller, not of the file.
  EXPECT_EQ(scalar->Table("profiles").status().code(), StatusCode::kInternal);
}

TEST(PackageConfig, LoadNamesTheFileInParseErrors) {
  av::testing::TempDir dir;
  const std::string path = dir.File("attnverify.toml");
  std::ofstream(path) << "[report]\ntitle = \n";
  Result<PackageConfig> c = PackageConfig::Load(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message().rfind(path + ":2:", 0), 0u) << c.status().message();
  EXPECT_FALSE(PackageConfig::Load(dir.File("none.toml")).ok());
}

}  // namespace
}  // namespace av
