// The proof of issue 4's sweep: the C++ example candidate (examples/candidates/cpp) passes
// every default sweep over 5 seeds with no false alarm, and each planted bug — one a real
// kernel has had — fails the sweep that exercises it, with the evidence (a hint, a reason,
// the case that caught it) a kernel engineer would look for. Real processes, real files.
// Slow (label it so): CpuCandidate.PassesEveryDefaultSweepOverFiveSeeds (the whole default
// sweep five times). Each mutant runs only the cases that exercise it (its filter), ~0.3-7 s;
// bench/detection.py runs every mutant over the whole default sweep, seeds 0-4, and measures
// hint precision.
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

json RunSweep(const std::string& toml, int* exit_code, const std::string& filter = "") {
  testing::CommandResult r = RunShell(std::string(ATTNVERIFY_BINARY) + " numerics --config " +
                                      toml + (filter.empty() ? "" : " --filter '" + filter + "'"));
  *exit_code = r.exit_code;
  // A filtered run writes beside the full sweep's evidence (doc/run.md).
  Result<std::string> text = ReadFileToString(
      std::filesystem::path(toml).parent_path() /
      (filter.empty() ? "evidence/numerics.json" : "evidence/numerics.filtered.json"));
  if (!text.ok()) {
    ADD_FAILURE() << "no numerics.json; output:\n" << r.output;
    return json::object();
  }
  return json::parse(*text);
}

// A filter that selects nothing used to write "verdict": "pass" over 0 cases.
TEST(NumericsRegression, AFilterThatMatchesNoCaseIsAnErrorNotAPass) {
  TempDir dir;
  std::string toml = WritePackage(dir, {0}, {"fp8_gemm"}, "");
  testing::CommandResult r = RunShell(std::string(ATTNVERIFY_BINARY) + " numerics --config " +
                                      toml + " --filter 'no_such_case_anywhere'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no case to run: --filter \"no_such_case_anywhere\" matches none of"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.File("evidence/numerics.json")));
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
  // The cases run (a --filter regular expression; empty: the whole sweep): the ones that
  // exercise the bug, so the suite stays fast. bench/detection.py runs every mutant over
  // the whole default sweep and seeds 0-4.
  const char* filter = "";
};

// Every failing case's id, reason and hints, one per line.
std::string WhatFailed(const json& run) {
  std::string out;
  for (const json& c : run["cases"]) {
    if (c["verdict"] == "pass") continue;
    out += c["id"].get<std::string>() + ": " + c["reason"].get<std::string>() + "\n";
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
  json run =
      RunSweep(WritePackage(dir, {0}, GetParam().sweeps, GetParam().bug), &rc, GetParam().filter);
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
        Mutant{"read_past_length",
               {"mla_decode"},
               "key length is not a multiple of 64",
               "b=15\\..*\\.s0$"},
        Mutant{"combine_no_max", {"mla_decode"}, "entirely NaN", "large_logits.*\\.s0$"},
        Mutant{"lse_log2", {"mla_decode"}, "1 / ln 2", "b=2\\.h_q=16\\.lengths=full\\..*\\.s0$"},
        Mutant{"splits_bf16",
               {"mla_decode"},
               "fail abs < atol or rel < rtol",
               "b=2\\.h_q=64\\.lengths=full\\.s_k=140\\.s_q=2\\.bf16\\.s0"},
        Mutant{"gemm_no_tail_n",
               {"fp8_gemm"},
               "the tail tile is missing or wrong",
               "n=576\\..*\\.s0$"},
        Mutant{"scales_per_128_rows",
               {"fp8_gemm"},
               "per-token scales look applied per 128 rows",
               "m=129\\..*\\.s0$"},
        // Caught only by h_q = 126 / 128 (a second 64-head block).
        Mutant{
            "heads_over_64", {"mla_decode"}, "errors in heads >= 64 only", "h_q=12[68]\\..*\\.s0$"},
        Mutant{"softmax_scale_dv",
               {"mla_decode"},
               "o: errors everywhere",
               "b=2\\.h_q=16\\.lengths=full\\..*\\.s0$"},
        Mutant{"v_wrong_channels",
               {"mla_decode"},
               "o: errors everywhere",
               "b=2\\.h_q=16\\.lengths=full\\..*\\.s0$"},
        // Caught only by the page size 16 cases.
        Mutant{"page_size_64", {"mla_decode"}, ".page_size=16.", "\\.s0$"},
        // Caught only by the non-causal large-logit case.
        Mutant{"softmax_no_max", {"attention_masks"}, "generator=large_logits.s_k=128.s_q=64.bf16"},
        Mutant{"alibi_slopes",
               {"mla_decode"},
               "errors everywhere",
               "b=2\\.h_q=16\\.lengths=full\\..*\\.s0$"},
        Mutant{
            "causal_s_q", {"mla_decode"}, "the causal mask is misaligned", "causal=true.*\\.s0$"},
        Mutant{"empty_lse_zero", {"mla_decode"}, "lse: all", "half_empty.*\\.s0$"},
        Mutant{"partial_block_skipped",
               {"mla_decode"},
               "key length is not a multiple of 64",
               "b=15\\..*\\.s0$"},
        Mutant{"window_right_off_by_one", {"attention_masks"}, "the right window edge is off"},
        Mutant{"varlen_k_offset", {"attention_layouts"}, "layout=varlen", "layout=varlen.*\\.s0$"},
        Mutant{"gemm_no_tail_k", {"fp8_gemm"}, "k=448", "\\.s0$"},
        Mutant{"scale_k_block_off", {"fp8_gemm"}, "d: cos_diff", "m=128\\..*\\.s0$"},
        Mutant{"sparse_index_clamp", {"sparse"}, "indices=mixed"}),
    [](const ::testing::TestParamInfo<Mutant>& info) { return std::string(info.param.bug); });

}  // namespace
}  // namespace av
