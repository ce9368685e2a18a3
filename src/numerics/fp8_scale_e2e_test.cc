// A wrong FP8 GEMM epilogue scale must fail the default package (finding fp8_scale_3pct:
// with DeepGEMM's calc_diff < 1e-3 alone, d x 1.03 passed all 24 fp8_gemm cases). The
// cheat is cpu_candidate's fp8 GEMM with its output multiplied by 1.01 or 1.03
// (--bug epilogue_scale_1pct / _3pct), run by `attnverify numerics` over the default
// fp8_gemm sweep with the shipped config/tolerances.json; the same candidate without the
// bug passes the same sweep.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

// config/shapes.json's fp8_gemm sweep with `seeds`, and cpu_candidate with `bug`.
std::string WriteFp8Package(const TempDir& dir, const std::vector<int>& seeds,
                            const std::string& bug) {
  Result<std::string> text = ReadFileToString(SourceDir() + "/config/shapes.json");
  EXPECT_TRUE(text.ok());
  json shapes = json::parse(text.ok() ? *text : "{}");
  json kept = json::array();
  for (json& sweep : shapes["sweeps"]) {
    if (sweep["name"] != "fp8_gemm") continue;
    sweep["seeds"] = seeds;
    kept.push_back(sweep);
  }
  EXPECT_EQ(kept.size(), 1u);
  shapes["sweeps"] = kept;
  EXPECT_TRUE(WriteFileAtomically(dir.File("shapes.json"), shapes.dump(2)).ok());
  std::string command = "[\"" + std::string(ATTNVERIFY_CPU_CANDIDATE) + "\", \"{cases}\"";
  if (!bug.empty()) command += ", \"--bug\", \"" + bug + "\"";
  command += "]";
  EXPECT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"),
                                  "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"" +
                                      SourceDir() +
                                      "/config/tolerances.json\"\njobs = 2\n"
                                      "[candidate]\ncommand = " +
                                      command + "\n")
                  .ok());
  return dir.File("attnverify.toml");
}

json RunNumerics(const TempDir& dir, const std::string& toml, int* exit_code) {
  testing::CommandResult r =
      RunShell(std::string(ATTNVERIFY_BINARY) + " numerics --config " + toml);
  *exit_code = r.exit_code;
  Result<std::string> text = ReadFileToString(dir.File("evidence/numerics.json"));
  if (!text.ok()) {
    ADD_FAILURE() << "no numerics.json; output:\n" << r.output;
    return json::object();
  }
  return json::parse(*text);
}

class Fp8EpilogueScale : public ::testing::TestWithParam<const char*> {};

TEST_P(Fp8EpilogueScale, FailsEveryFp8GemmCaseOnTheRowBound) {
  TempDir dir;
  int rc = -1;
  json run = RunNumerics(dir, WriteFp8Package(dir, {0, 1}, GetParam()), &rc);
  ASSERT_TRUE(run.contains("cases"));
  EXPECT_EQ(rc, 1);
  EXPECT_GE(run["cases"].size(), 48u);  // 24 shapes x 2 seeds (and any drawn cases)
  for (const json& c : run["cases"]) {
    EXPECT_EQ(c["verdict"], "fail") << c["id"];
    const json& compare = c["outputs"][0]["compare"];
    // DeepGEMM's own criterion is met: only our row bound catches the scale.
    EXPECT_LT(compare["metrics"]["cos_diff"].get<double>(), 1e-3) << c["id"];
    EXPECT_NE(c["reason"].get<std::string>().find("rows have a relative L2 error"),
              std::string::npos)
        << c["id"] << ": " << c["reason"];
  }
}

INSTANTIATE_TEST_SUITE_P(Cheats, Fp8EpilogueScale,
                         ::testing::Values("epilogue_scale_1pct", "epilogue_scale_3pct"));

TEST(Fp8EpilogueScale, TheSameCandidateWithTheRightScalePasses) {
  TempDir dir;
  int rc = -1;
  json run = RunNumerics(dir, WriteFp8Package(dir, {0, 1}, ""), &rc);
  EXPECT_EQ(rc, 0);
  ASSERT_TRUE(run.contains("cases"));
  for (const json& c : run["cases"]) EXPECT_EQ(c["verdict"], "pass") << c["id"] << c["reason"];
}

}  // namespace
}  // namespace av
