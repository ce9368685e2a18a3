#include "compile/arch_limits.h"

#include <gtest/gtest.h>

namespace av {
namespace {

// doc/arch-limits.md and the limits ptxas 13.0 printed (testdata/ptxas/static_smem_limits_nvcc13.0.txt).
TEST(ArchLimits, SharedMemoryLimitsMatchPtxasAndTheProgrammingGuide) {
  struct Row {
    const char* arch;
    int64_t static_limit, optin;
  } rows[] = {
      {"sm_75", 0xc000, 65536},     {"sm_80", 0xc000, 166912},    {"sm_86", 0xc000, 101376},
      {"sm_89", 0xc000, 101376},    {"sm_90", 0xc000, 232448},    {"sm_90a", 0x38c00, 232448},
      {"sm_100a", 0x38c00, 232448}, {"sm_103a", 0x38c00, 232448}, {"sm_100f", 0xc000, 232448},
      {"sm_120", 0xc000, 101376},   {"sm_120a", 0x18c00, 101376}, {"sm_121a", 0x18c00, 101376},
  };
  for (const Row& r : rows) {
    auto a = FindArchLimits(r.arch);
    ASSERT_TRUE(a.has_value()) << r.arch;
    EXPECT_EQ(a->static_smem_limit, r.static_limit) << r.arch;
    EXPECT_EQ(a->max_smem_per_block_optin, r.optin) << r.arch;
    EXPECT_EQ(a->registers_per_sm, 65536);
    EXPECT_EQ(a->max_registers_per_thread, 255);
  }
}

TEST(ArchLimits, WarpsBlocksAndGranularities) {
  auto sm80 = FindArchLimits("sm_80").value();
  EXPECT_EQ(sm80.max_warps_per_sm, 64);
  EXPECT_EQ(sm80.max_blocks_per_sm, 32);
  EXPECT_EQ(sm80.smem_per_sm, 167936);
  EXPECT_EQ(sm80.reserved_smem_per_block, 1024);
  EXPECT_EQ(sm80.smem_allocation_unit, 128);
  auto sm86 = FindArchLimits("sm_86").value();
  EXPECT_EQ(sm86.max_warps_per_sm, 48);
  EXPECT_EQ(sm86.max_blocks_per_sm, 16);
  auto sm75 = FindArchLimits("sm_75").value();
  EXPECT_EQ(sm75.max_warps_per_sm, 32);
  EXPECT_EQ(sm75.smem_allocation_unit, 256);
  EXPECT_EQ(sm75.reserved_smem_per_block, 0);
  EXPECT_EQ(FindArchLimits("sm_89")->max_blocks_per_sm, 24);
  EXPECT_EQ(FindArchLimits("sm_90a")->smem_per_sm, 233472);
}

TEST(ArchLimits, NamesNormalizeAndUnknownArchsAreNotGuessed) {
  EXPECT_EQ(NormalizeArch("compute_90a"), "sm_90a");
  EXPECT_EQ(NormalizeArch("90a"), "sm_90a");
  EXPECT_EQ(NormalizeArch("9.0"), "sm_90");
  EXPECT_EQ(NormalizeArch("sm_100f"), "sm_100f");
  EXPECT_EQ(NormalizeArch("banana"), "banana");
  EXPECT_TRUE(FindArchLimits("compute_80").has_value());
  EXPECT_FALSE(FindArchLimits("sm_110").has_value());
  EXPECT_FALSE(FindArchLimits("sm_53").has_value());
  EXPECT_FALSE(FindArchLimits("").has_value());
}

TEST(ArchLimits, TableIsSortedAndEveryRowConsistent) {
  int prev = 0;
  for (const ArchLimits& a : AllArchLimits()) {
    int cc = a.compute_major * 10 + a.compute_minor;
    EXPECT_GE(cc, prev) << a.arch;
    prev = cc;
    EXPECT_EQ(a.max_warps_per_sm * 32, a.max_threads_per_sm) << a.arch;
    EXPECT_LE(a.static_smem_limit, a.max_smem_per_block_optin) << a.arch;
    EXPECT_LE(a.max_smem_per_block_optin + a.reserved_smem_per_block, a.smem_per_sm) << a.arch;
  }
}

}  // namespace
}  // namespace av
