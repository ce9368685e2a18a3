// The proof of issue 4's sweep: the C++ example candidate (examples/candidates/cpp) passes
// every default sweep over 5 seeds with no false alarm, and each planted bug — one a real
// kernel has had — fails the sweep that exercises it. Real processes, real files.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using nlohmann::json;
using testing::RunShell;
using testing::SourceDir;
using testing::TempDir;

// The float64 oracle is the reference: the fast float32 path's lse can be ~1e-6 off on
// near-tie inputs whose lse is close to 0, which FlashMLA's lse atol (1e-6) does not allow.
// A package whose sweep is config/shapes.json with `seeds`, limited to `sweeps` (all when
// empty), and whose candidate is cpu_candidate with `bug`.
std::string WritePackage(const TempDir& dir, const std::vector<int>& seeds,
                         const std::vector<std::string>& sweeps, const std::string& bug) {
  Result<std::string> text = ReadFileToString(SourceDir() + "/config/shapes.json");
  EXPECT_TRUE(text.ok());
  json shapes = json::parse(text.ok() ? *text : "{}");
  json kept = json::array();
  for (json& sweep : shapes["sweeps"]) {
    if (!sweeps.empty() && std::find(sweeps.begin(), sweeps.end(), sweep["name"]) == sweeps.end())
      continue;
    sweep["seeds"] = seeds;
    kept.push_back(sweep);
  }
  shapes["sweeps"] = kept;
  EXPECT_TRUE(WriteFileAtomically(dir.File("shapes.json"), shapes.dump(2)).ok());
  std::string command = "[\"" + std::string(ATTNVERIFY_CPU_CANDIDATE) + "\", \"{cases}\"";
  if (!bug.empty()) command += ", \"--bug\", \"" + bug + "\"";
  command += "]";
  EXPECT_TRUE(
      WriteFileAtomically(dir.File("attnverify.toml"),
                          "[numerics]\nshapes = \"shapes.json\"\ntolerances = \"" + SourceDir() +
                              "/config/tolerances.json\"\nreference = \"oracle\"\njobs = 2\n"
                              "[candidate]\ncommand = " +
                              command + "\n")
          .ok());
  return dir.File("attnverify.toml");
}

json RunSweep(const std::string& toml, int* exit_code) {
  testing::CommandResult r =
      RunShell(std::string(ATTNVERIFY_BINARY) + " numerics --config " + toml);
  *exit_code = r.exit_code;
  Result<std::string> text =
      ReadFileToString(std::filesystem::path(toml).parent_path() / "evidence/numerics.json");
  if (!text.ok()) {
    ADD_FAILURE() << "no numerics.json; output:\n" << r.output;
    return json::object();
  }
  return json::parse(*text);
}

TEST(CpuCandidate, PassesEveryDefaultSweepOverFiveSeeds) {
  TempDir dir;
  int rc = -1;
  json run = RunSweep(WritePackage(dir, {0, 1, 2, 3, 4}, {}, ""), &rc);
  ASSERT_TRUE(run.contains("summary"));
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(run["summary"]["failed"], 0);
  EXPECT_GE(run["summary"]["cases_run"].get<int>(), 5 * 100);
  for (const json& c : run["cases"]) {
    EXPECT_EQ(c["verdict"], "pass") << c["id"].dump() << ": " << c["reason"].dump();
  }
}

struct Mutant {
  const char* bug;
  std::vector<std::string> sweeps;
  const char* evidence;  // a failing case's reason or localisation hint must say this
};

// Every failing case's reason and hints, one per line.
std::string WhatFailed(const json& run) {
  std::string out;
  for (const json& c : run["cases"]) {
    if (c["verdict"] == "pass") continue;
    out += c["reason"].get<std::string>() + "\n";
    if (c.contains("localisation")) {
      for (const json& h : c["localisation"]["hints"]) out += h.get<std::string>() + "\n";
    }
  }
  return out;
}

class CpuCandidateMutant : public ::testing::TestWithParam<Mutant> {};

TEST_P(CpuCandidateMutant, FailsTheSweepThatExercisesIt) {
  TempDir dir;
  int rc = -1;
  json run = RunSweep(WritePackage(dir, {0}, GetParam().sweeps, GetParam().bug), &rc);
  ASSERT_TRUE(run.contains("summary"));
  EXPECT_EQ(rc, 1) << GetParam().bug;
  EXPECT_GT(run["summary"]["failed"].get<int>(), 0) << GetParam().bug;
  const std::string what = WhatFailed(run);
  EXPECT_NE(what.find(GetParam().evidence), std::string::npos) << GetParam().bug << ":\n"
                                                               << what.substr(0, 4000);
}

INSTANTIATE_TEST_SUITE_P(
    Bugs, CpuCandidateMutant,
    ::testing::Values(
        Mutant{"causal_top_left", {"attention_masks"}, "the causal mask is misaligned"},
        Mutant{"window_off_by_one", {"attention_masks"}, "the left window edge"},
        Mutant{"gqa_head_mapping", {"attention_masks"}, "the GQA mapping looks wrong"},
        Mutant{"read_past_length", {"mla_decode"}, "key length is not a multiple of 64"},
        Mutant{"combine_no_max", {"mla_decode"}, "entirely NaN"},
        Mutant{"lse_log2", {"mla_decode"}, "1 / ln 2"},
        Mutant{"splits_bf16", {"mla_decode"}, "fail abs < atol or rel < rtol"},
        Mutant{"gemm_no_tail_n", {"fp8_gemm"}, "the tail tile is missing or wrong"},
        Mutant{"scales_per_128_rows", {"fp8_gemm"}, "per-token scales look applied per 128 rows"}),
    [](const ::testing::TestParamInfo<Mutant>& info) { return std::string(info.param.bug); });

}  // namespace
}  // namespace av
