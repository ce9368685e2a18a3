// [candidate] adapter: a library adapter of the Python package by name, expanded to the
// command that runs it; exclusive with command; unknown names list the known ones; the
// argv it expands to is what numerics.json records.
#include "sweep/numerics_config.h"

#include <gtest/gtest.h>

#include "reference/tile_registers.h"
#include "sweep/numerics_report.h"
#include "sweep/numerics_run.h"

namespace av {
namespace {

TEST(CandidateAdapterConfig, ExpandsToThePythonModuleCommand) {
  for (const char* name : {"flash_mla", "deep_gemm", "flash_attn", "torch_sdpa"}) {
    Result<NumericsConfig> c = ParseNumericsConfig(
        std::string("[candidate]\nadapter = \"") + name + "\"\ntimeout_s = 30\n", "pkg/a.toml");
    ASSERT_TRUE(c.ok()) << name << ": " << c.status().message();
    EXPECT_TRUE(c->has_candidate);
    EXPECT_EQ(c->candidate.adapter, name);
    EXPECT_EQ(
        c->candidate.command,
        (std::vector<std::string>{
            "python3", "-m", std::string("attnverify_candidate.adapters.") + name, "{cases}"}));
    EXPECT_EQ(c->candidate.mode, CandidateMode::kAllCases);
    EXPECT_EQ(c->candidate.timeout_s, 30);
  }
}

TEST(CandidateAdapterConfig, AdapterAndCommandTogetherIsAnErrorNamingFileAndBothKeys) {
  Result<NumericsConfig> c = ParseNumericsConfig(
      "[candidate]\ncommand = [\"run\", \"{cases}\"]\nadapter = \"torch_sdpa\"\n", "pkg/a.toml");
  ASSERT_FALSE(c.ok());
  const std::string& m = c.status().message();
  EXPECT_NE(m.find("pkg/a.toml:3"), std::string::npos) << m;
  EXPECT_NE(m.find("\"adapter\""), std::string::npos) << m;
  EXPECT_NE(m.find("\"command\""), std::string::npos) << m;
}

TEST(CandidateAdapterConfig, AnUnknownAdapterListsTheKnownOnes) {
  Result<NumericsConfig> c =
      ParseNumericsConfig("[candidate]\nadapter = \"flash_mla3\"\n", "pkg/a.toml");
  ASSERT_FALSE(c.ok());
  const std::string& m = c.status().message();
  EXPECT_NE(m.find("pkg/a.toml:2"), std::string::npos) << m;
  EXPECT_NE(m.find("unknown adapter \"flash_mla3\""), std::string::npos) << m;
  EXPECT_NE(m.find("flash_mla, deep_gemm, flash_attn, torch_sdpa"), std::string::npos) << m;
  EXPECT_FALSE(ParseNumericsConfig("[candidate]\nadapter = 3\n", "pkg/a.toml").ok());
}

TEST(CandidateAdapterConfig, NeitherCommandNorAdapterIsAnError) {
  Result<NumericsConfig> c = ParseNumericsConfig("[candidate]\ntimeout_s = 5\n", "pkg/a.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("\"adapter\""), std::string::npos) << c.status().message();
}

TEST(CandidateAdapterConfig, TheEvidenceRecordsTheArgvTheAdapterRuns) {
  Result<NumericsConfig> c =
      ParseNumericsConfig("[candidate]\nadapter = \"flash_attn\"\n", "pkg/a.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  NumericsRecord r = NumericsRunToRecord(NumericsRun{}, *c, Provenance{});
  EXPECT_EQ(r.config.candidate_argv,
            (std::vector<std::string>{"python3", "-m", "attnverify_candidate.adapters.flash_attn",
                                      "{cases}"}));
}

// [numerics] fast_tiles: on by default; false keeps the attention family on the float64
// FMA kernels, and numerics.json's config.fast_kernels says which ran.
TEST(NumericsFastTilesConfig, DefaultOnFalseTurnsThemOffAndTheEvidenceSaysSo) {
  Result<NumericsConfig> on = ParseNumericsConfig("[numerics]\nreference = \"fast\"\n", "a.toml");
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_TRUE(on->reference.fast_tiles);
  const std::string on_kernels =
      NumericsRunToRecord(NumericsRun{}, *on, Provenance{}).config.fast_kernels;
  EXPECT_EQ(on_kernels.find("amx-bf16-tiles") != std::string::npos, CpuHasAmxBf16()) << on_kernels;
  Result<NumericsConfig> off =
      ParseNumericsConfig("[numerics]\nreference = \"fast\"\nfast_tiles = false\n", "a.toml");
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_FALSE(off->reference.fast_tiles);
  const std::string kernels =
      NumericsRunToRecord(NumericsRun{}, *off, Provenance{}).config.fast_kernels;
  EXPECT_EQ(kernels.find("tiles"), std::string::npos) << kernels;
  EXPECT_EQ(kernels.rfind("attention float64: ", 0), 0u) << kernels;
  Result<NumericsConfig> bad = ParseNumericsConfig("[numerics]\nfast_tiles = \"no\"\n", "a.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a.toml:2"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace av
