#include "compile/build_config.h"

#include <gtest/gtest.h>

#include <tuple>

#include "compile/int_expr.h"

namespace av {
namespace {

constexpr const char* kFull = R"(
[review]             # another command's table: ignored here
reviewer = "builtin"

[build]
root = "csrc"
sources = ["flash_fwd.cu", "combine.cu"]
flags = ["-O3", "-std=c++17", "-Iinclude"]
archs = ["sm_90a", "arch=compute_80,code=sm_80"]
nvcc = "/usr/local/cuda/bin/nvcc"
timeout_s = 1200
block_size = 128
constants = { kBlockM = 64, kHeadDim = 576 }

[[build.kernel]]
name = "flash_fwd_splitkv_mla_kernel"
block_size = 256
dynamic_smem = "kBlockM * kHeadDim * 2 + 1024"

[[build.kernel]]
name = "combine<64>"
dynamic_smem = 4096

[build.gates]
no_new_spills = false
max_registers = 168
)";

TEST(BuildConfig, ParsesEveryKey) {
  auto c = ParseBuildConfig(kFull, "/repo/attention-verify/attnverify.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->root, "/repo/attention-verify/csrc");
  EXPECT_EQ(c->sources, (std::vector<std::string>{"flash_fwd.cu", "combine.cu"}));
  EXPECT_EQ(c->flags.size(), 3u);
  EXPECT_EQ(c->archs[1], "arch=compute_80,code=sm_80");
  EXPECT_EQ(c->nvcc, "/usr/local/cuda/bin/nvcc");
  EXPECT_EQ(c->timeout_s, 1200);
  EXPECT_EQ(c->block_size, 128);
  ASSERT_EQ(c->kernels.size(), 2u);
  EXPECT_EQ(c->kernels[0].block_size, 256);
  EXPECT_EQ(c->kernels[0].dynamic_smem_bytes, 64 * 576 * 2 + 1024);
  EXPECT_EQ(c->kernels[0].dynamic_smem_expr, "kBlockM * kHeadDim * 2 + 1024");
  EXPECT_EQ(c->kernels[0].line, 15);
  EXPECT_EQ(c->kernels[1].dynamic_smem_bytes, 4096);
  EXPECT_FALSE(c->gates.no_new_spills);
  EXPECT_TRUE(c->gates.smem_within_cap);
  EXPECT_EQ(c->gates.max_registers, 168);
}

TEST(BuildConfig, DefaultsWithoutABuildTable) {
  auto c = ParseBuildConfig("[report]\nformats = [\"md\"]\n", "/x/attnverify.toml");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->root, "/x");
  EXPECT_TRUE(c->sources.empty());
  EXPECT_TRUE(c->gates.no_new_spills);
  EXPECT_TRUE(c->gates.occupancy_not_lower);
  EXPECT_EQ(c->gates.max_registers, 255);
  EXPECT_FALSE(c->block_size.has_value());
}

TEST(BuildConfig, ValueErrorsNameTheKeyAndWhatWasGiven) {
  auto err = [](const std::string& toml) {
    auto c = ParseBuildConfig(toml, "attnverify.toml");
    return c.ok() ? std::string() : c.status().message();
  };
  EXPECT_EQ(err("[build]\nblock_size = 2048\n"),
            "attnverify.toml:2:14: \"block_size\" must be an integer in 1..1024, got 2048");
  EXPECT_EQ(err("[build]\ntimeout_s = \"1h\"\n"),
            "attnverify.toml:2:13: \"timeout_s\" must be an integer in 1..86400");
  EXPECT_EQ(err("[build.constants]\nkBlockN = 1.5\n"),
            "attnverify.toml:2:11: \"kBlockN\" must be an integer");
  EXPECT_EQ(err("[build]\nsources = [\"a.cu\", \"\"]\n"),
            "attnverify.toml:2:20: \"sources\" must hold non-empty strings");
  EXPECT_EQ(err("[build]\nnvcc = \"\"\n"),
            "attnverify.toml:2:8: \"nvcc\" must be a non-empty string");
}

TEST(BuildConfig, UnknownKeysInsideBuildAreErrorsWithLineAndColumn) {
  auto c =
      ParseBuildConfig("[build]\nsources = [\"a.cu\"]\nsoruces = [\"b.cu\"]\n", "attnverify.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("attnverify.toml:3:"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find("unknown key \"soruces\" in [build]"), std::string::npos);
  auto g = ParseBuildConfig("[build.gates]\nno_spills = true\n", "attnverify.toml");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("[build.gates]"), std::string::npos);
  auto k = ParseBuildConfig("[[build.kernel]]\nname = \"k\"\nthreads = 128\n", "attnverify.toml");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("\"threads\""), std::string::npos);
}

TEST(BuildConfig, BadValuesAreErrors) {
  struct Case {
    const char* toml;
    const char* needle;
  } cases[] = {
      {"[build]\nsources = \"a.cu\"\n", "array of strings"},
      {"[build]\nblock_size = 2048\n", "1..1024"},
      {"[build]\ntimeout_s = \"10\"\n", "integer"},
      {"[[build.kernel]]\nblock_size = 64\n", "needs a \"name\""},
      {"[[build.kernel]]\nname = \"k\"\ndynamic_smem = \"kUnknown * 2\"\n",
       "unknown name 'kUnknown'"},
      {"[[build.kernel]]\nname = \"k\"\ndynamic_smem = -5\n", "negative"},
      {"[build.gates]\nmax_registers = 300\n", "1..255"},
      {"[build]\nsources = [\n", "attnverify.toml:"},  // TOML syntax error
  };
  for (const Case& c : cases) {
    auto r = ParseBuildConfig(c.toml, "attnverify.toml");
    ASSERT_FALSE(r.ok()) << c.toml;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
}

TEST(BuildConfig, KernelMatchingByMangledDemangledShortAndBaseName) {
  BuildConfig c;
  for (auto [name, block, line] : {std::tuple{"flash_mla_fwd", 128, 1},
                                   std::tuple{"flash_mla_fwd<256>", 256, 2}}) {
    KernelLaunchConfig k;
    k.name = name;
    k.block_size = block;
    k.line = line;
    c.kernels.push_back(k);
  }
  const char* mangled = "_Z13flash_mla_fwdILi256EEvPKfPfi";
  const char* demangled = "void flash_mla_fwd<256>(float const*, float*, int)";
  EXPECT_EQ(FindKernelConfig(c, mangled, demangled)->block_size,
            256);  // short name beats base name
  EXPECT_EQ(FindKernelConfig(c, "_Z13flash_mla_fwdILi64EEvPKfPfi",
                             "void flash_mla_fwd<64>(float const*, float*, int)")
                ->block_size,
            128);
  EXPECT_EQ(FindKernelConfig(c, "_Z5otherv", "other()"), nullptr);
}

TEST(BuildConfigExpr, EvaluatesArithmeticWithConstants) {
  IntConstants k = {{"kBlockM", 64}, {"kHeadDim", 576}};
  EXPECT_EQ(*EvaluateIntExpression("kBlockM * kHeadDim * 2 + 1024", k), 74752);
  EXPECT_EQ(*EvaluateIntExpression("(1 + 2) * 3 - -4 % 3", k), 10);
  EXPECT_EQ(*EvaluateIntExpression("0x38c00", k), 232448);
  EXPECT_EQ(*EvaluateIntExpression("200'000u", k), 200000);
  EXPECT_FALSE(EvaluateIntExpression("1 / 0", k).ok());
  EXPECT_FALSE(EvaluateIntExpression("9223372036854775807 + 1", k).ok());
  EXPECT_FALSE(EvaluateIntExpression("(1", k).ok());
  EXPECT_FALSE(EvaluateIntExpression("", k).ok());
  EXPECT_FALSE(
      EvaluateIntExpression(std::string(200, '('), k).ok());  // depth limit, no stack overflow
}

}  // namespace
}  // namespace av
