// End to end: `attnverify report --junit FILE` (the real binary) on a copy of the fixture
// package: pytest's JUnit file is cross-checked (1.junit_agrees in acceptance.json); a
// hostile one (a DOCTYPE with an external entity) is exit 2 naming FILE:LINE, and the
// reports written before are kept.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

testing::CommandResult RunAv(const std::string& args) {
  return testing::RunShell(std::string(ATTNVERIFY_BINARY) + " " + args);
}

TEST(ReportJUnitCliTest, JUnitFileIsCrossCheckedAndAHostileOneIsRefused) {
  testing::TempDir dir;
  const std::string pkg = dir.File("attention-verify");
  fs::copy(testing::SourceDir() + "/testdata/report/package", pkg, fs::copy_options::recursive);
  const std::string junit = testing::SourceDir() + "/testdata/report/junit/pass/pytest.xml";
  auto r = RunAv("report --config " + pkg + "/attnverify.toml --formats json --junit " + junit);
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the fixture package is rejected on its own
  Result<std::string> text = ReadFileToString(pkg + "/reports/acceptance.json");
  ASSERT_TRUE(text.ok());
  nlohmann::json j = nlohmann::json::parse(*text);
  bool found = false;
  for (const auto& c : j["items"][0]["checks"]) {
    if (c["id"] != "1.junit_agrees") continue;
    found = true;
    // The fixture's numerics.json is another sweep: its cases are not the JUnit file's.
    EXPECT_EQ(c["status"], "MISSING") << c.dump();
    EXPECT_NE(c["details"][0].get<std::string>().find("is not in evidence/numerics.json"),
              std::string::npos)
        << c.dump();
  }
  EXPECT_TRUE(found);

  ASSERT_TRUE(WriteFileAtomically(dir.File("evil.xml"),
                                  "<?xml version=\"1.0\"?>\n<!DOCTYPE t [<!ENTITY x SYSTEM "
                                  "\"file:///etc/passwd\">]>\n<testsuites>&x;</testsuites>\n")
                  .ok());
  auto bad = RunAv("report --config " + pkg + "/attnverify.toml --junit " + dir.File("evil.xml"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("evil.xml:2: a DOCTYPE"), std::string::npos) << bad.output;
  EXPECT_EQ(*ReadFileToString(pkg + "/reports/acceptance.json"), *text);  // nothing overwritten

  auto absent = RunAv("report --config " + pkg + "/attnverify.toml --junit " + dir.File("no.xml"));
  EXPECT_EQ(absent.exit_code, 2) << absent.output;
  EXPECT_NE(absent.output.find("no.xml: no such JUnit file"), std::string::npos) << absent.output;
}

}  // namespace
}  // namespace av
