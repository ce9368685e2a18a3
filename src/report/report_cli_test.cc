// End to end: the real binary's `report` and `verify-package` on a copy of the fixture
// package in a temp folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

std::string CopyFixture(const testing::TempDir& dir) {
  const std::string pkg = dir.File("attention-verify");
  fs::copy(testing::SourceDir() + "/testdata/report/package", pkg, fs::copy_options::recursive);
  return pkg;
}

testing::CommandResult RunAv(const std::string& args) {
  return testing::RunShell(std::string(ATTNVERIFY_BINARY) + " " + args);
}

TEST(ReportCliTest, WritesReportsAndManifestThenVerifyPackageDetectsChanges) {
  testing::TempDir dir;
  const std::string pkg = CopyFixture(dir);
  auto r = RunAv("report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("verdict: REJECTED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 Shared memory and registers  FAIL"), std::string::npos) << r.output;
  for (const char* f : {"reports/acceptance.md", "reports/acceptance.json",
                        "reports/acceptance.html", "reports/acceptance.sarif", "manifest.json"}) {
    EXPECT_TRUE(fs::exists(pkg + "/" + f)) << f;
  }
  auto manifest = nlohmann::json::parse(*ReadFileToString(pkg + "/manifest.json"));
  EXPECT_EQ(manifest["schema"], "attnverify.manifest/1");
  EXPECT_EQ(manifest["nvcc"]["version"], "13.0.88");  // from resources.json
  bool has_report = false;
  for (const auto& f : manifest["files"]) {
    EXPECT_NE(f["path"], "manifest.json");
    has_report |= f["path"] == "reports/acceptance.md";
  }
  EXPECT_TRUE(has_report);

  auto v = RunAv("verify-package --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  // The work folder (case tensors) is not part of the manifest.
  fs::create_directories(pkg + "/work/cases/x");
  ASSERT_TRUE(WriteFileAtomically(pkg + "/work/cases/x/out.npy", "x").ok());
  EXPECT_EQ(RunAv("verify-package --config " + pkg + "/attnverify.toml").exit_code, 0);

  std::ofstream(pkg + "/evidence/review.json", std::ios::app) << " ";
  fs::remove(pkg + "/logs/build-base.log");
  ASSERT_TRUE(WriteFileAtomically(pkg + "/evidence/extra.json", "{}").ok());
  v = RunAv("verify-package --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(v.exit_code, 1) << v.output;
  EXPECT_NE(v.output.find("changed  evidence/review.json"), std::string::npos) << v.output;
  EXPECT_NE(v.output.find("missing  logs/build-base.log"), std::string::npos) << v.output;
  EXPECT_NE(v.output.find("extra    evidence/extra.json"), std::string::npos) << v.output;
}

TEST(ReportCliTest, FormatsFlagAndBadInputExitTwo) {
  testing::TempDir dir;
  const std::string pkg = CopyFixture(dir);
  auto r = RunAv("report --config " + pkg + "/attnverify.toml --formats md,sarif");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(fs::exists(pkg + "/reports/acceptance.sarif"));
  EXPECT_FALSE(fs::exists(pkg + "/reports/acceptance.html"));
  EXPECT_EQ(RunAv("report --config " + pkg + "/attnverify.toml --formats pdf").exit_code, 2);

  ASSERT_TRUE(WriteFileAtomically(pkg + "/evidence/numerics.json", "{\"cases\": [").ok());
  r = RunAv("report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("evidence/numerics.json:1:12: unexpected end of file"), std::string::npos)
      << r.output;

  ASSERT_TRUE(
      WriteFileAtomically(pkg + "/attnverify.toml", "[policy]\nrequired = [1]\nstrict = true\n")
          .ok());
  r = RunAv("report --config " + pkg + "/attnverify.toml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("attnverify.toml:3:1: unknown key \"strict\" in [policy]"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(RunAv("verify-package --config " + dir.File("nowhere/attnverify.toml")).exit_code, 2);
}

TEST(ReportCliTest, AcceptedPackageExitsZero) {
  testing::TempDir dir;
  fs::create_directories(dir.File("evidence"));
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"), "[policy]\nrequired = [6]\n").ok());
  const std::string numerics =
      R"({"schema": "attnverify.numerics/1", "command": "attnverify numerics", "provenance": {"run_id": "r1"},
                                      "cases": [{"id": "sp", "op": "sparse_attention", "dtype": "bf16", "verdict": "pass",
                                                 "params": {"indices": "mixed"}, "outputs": [{"name": "o", "passed": true}]}]})";
  ASSERT_TRUE(WriteFileAtomically(dir.File("evidence/numerics.json"), numerics).ok());
  // The ledger binds it to its run (without it the report does not use the file).
  ASSERT_TRUE(WriteFileAtomically(
                  dir.File("evidence/run.json"),
                  R"({"schema": "attnverify.run/2", "stages": [{"name": "numerics", "run_id": "r1",
                       "status": "ok", "outputs": [{"path": "evidence/numerics.json", "sha256": ")" +
                      Sha256Hex(numerics) + R"("}]}]})")
                  .ok());
  auto r = RunAv("report --config " + dir.File("attnverify.toml"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verdict: ACCEPTED"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace av
