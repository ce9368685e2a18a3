#include "compile/occupancy.h"

#include <gtest/gtest.h>

// The toolkit's own calculator, when this machine has CUDA: every case below is also
// checked against it (a header-only C++ file, no GPU or runtime needed).
#if defined(__has_include)
#if __has_include(</usr/local/cuda/include/cuda_occupancy.h>)
#include </usr/local/cuda/include/cuda_occupancy.h>
#define ATTNVERIFY_HAVE_CUDA_OCCUPANCY 1
#endif
#endif

namespace av {
namespace {

Occupancy Compute(const char* arch, int block, int regs, int64_t smem, int64_t dyn = 0,
                  int bars = 0) {
  auto limits = FindArchLimits(arch);
  EXPECT_TRUE(limits.has_value()) << arch;
  auto o = ComputeOccupancy(*limits, {block, regs, smem, dyn, bars});
  EXPECT_TRUE(o.ok()) << o.status().message();
  return *o;
}

TEST(Occupancy, SharedMemoryLimitsTileCopyOnSm80) {
  // 16384 static + 1024 reserved = 17408 per block; 167936 / 17408 = 9 blocks.
  Occupancy o = Compute("sm_80", 128, 10, 16384, 0, 1);
  EXPECT_EQ(o.blocks_per_sm, 9);
  EXPECT_EQ(o.warps_per_sm, 36);
  EXPECT_DOUBLE_EQ(o.occupancy, 36.0 / 64.0);
  EXPECT_EQ(o.limiter, OccupancyLimiter::kSharedMemory);
  EXPECT_EQ(o.smem_allocated_per_block, 17408);
}

TEST(Occupancy, RegistersLimitWithWarpGranularity) {
  // Lei Mao's worked example for CC 7.0: 128 threads, 37 registers -> 1184 registers per
  // warp round up to 1280; 16384 per sub-partition / 1280 = 12 warps; 48 warps = 12 blocks.
  Occupancy o = Compute("sm_70", 128, 37, 0);
  EXPECT_EQ(o.blocks_per_sm, 12);
  EXPECT_EQ(o.warps_per_sm, 48);
  EXPECT_EQ(o.limiter, OccupancyLimiter::kRegisters);
  EXPECT_EQ(o.registers_allocated_per_block, 1280 * 4);
}

TEST(Occupancy, WarpSlotsLimitLargeBlocks) {
  Occupancy o = Compute("sm_86", 1024, 16, 0);  // 48 warps per SM, 32 per block
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, OccupancyLimiter::kWarps);
}

TEST(Occupancy, BlockSlotsLimitTinyBlocks) {
  Occupancy o = Compute("sm_90a", 32, 8, 0);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, OccupancyLimiter::kBlocks);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
}

TEST(Occupancy, TooMuchSharedMemoryMeansNoBlockFits) {
  // FlashMLA-like: 200 KiB static + 32 KiB dynamic on sm_90a is over 227 KiB.
  Occupancy o = Compute("sm_90a", 128, 64, 200 * 1024, 32 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.limiter, OccupancyLimiter::kSharedMemory);
  EXPECT_NE(o.reason.find("237568 bytes"), std::string::npos) << o.reason;
  // Exactly the cap fits once.
  Occupancy fit = Compute("sm_90a", 128, 64, 232448);
  EXPECT_EQ(fit.blocks_per_sm, 1);
}

TEST(Occupancy, TooManyRegistersPerBlockMeansNoBlockFits) {
  Occupancy o = Compute("sm_90", 1024, 255, 0);
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.limiter, OccupancyLimiter::kRegisters);
  EXPECT_FALSE(o.reason.empty());
}

TEST(Occupancy, BadBlockSizeIsAnError) {
  auto a = FindArchLimits("sm_80").value();
  EXPECT_FALSE(ComputeOccupancy(a, {0, 10, 0, 0, 0}).ok());
  EXPECT_FALSE(ComputeOccupancy(a, {2048, 10, 0, 0, 0}).ok());
}

#ifdef ATTNVERIFY_HAVE_CUDA_OCCUPANCY
int ToolkitBlocks(const ArchLimits& a, const OccupancyInput& in) {
  cudaOccDeviceProp p;
  p.computeMajor = a.compute_major;
  p.computeMinor = a.compute_minor;
  p.maxThreadsPerBlock = a.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = a.max_registers_per_block;
  p.regsPerMultiprocessor = a.registers_per_sm;
  p.warpSize = 32;
  p.sharedMemPerBlock = a.max_smem_per_block_default;
  p.sharedMemPerMultiprocessor = a.smem_per_sm;
  p.numSms = 1;
  p.sharedMemPerBlockOptin = a.max_smem_per_block_optin;
  p.reservedSharedMemPerBlock = a.reserved_smem_per_block;
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = 1024;
  f.numRegs = in.registers_per_thread;
  f.sharedSizeBytes = in.static_smem_bytes;
  f.partitionedGCConfig = PARTITIONED_GC_OFF;
  f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  f.maxDynamicSharedSizeBytes = a.max_smem_per_block_optin - in.static_smem_bytes;
  f.numBlockBarriers = in.barriers;
  cudaOccDeviceState state;
  cudaOccResult result;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &p, &f, &state, in.block_size,
                                              in.dynamic_smem_bytes) != CUDA_OCC_SUCCESS) {
    return -1;
  }
  return result.activeBlocksPerMultiprocessor;
}
#endif

// Every arch x a grid of block sizes, registers, shared memory and barriers against the
// toolkit's cudaOccMaxActiveBlocksPerMultiprocessor.
TEST(Occupancy, AgreesWithTheToolkitCalculatorEverywhere) {
#ifndef ATTNVERIFY_HAVE_CUDA_OCCUPANCY
  GTEST_SKIP() << "/usr/local/cuda/include/cuda_occupancy.h not found at build time";
#else
  int checked = 0;
  for (const ArchLimits& a : AllArchLimits()) {
    for (int block : {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024}) {
      for (int regs : {8, 24, 32, 37, 64, 96, 128, 168, 255}) {
        for (int64_t smem : {0, 1000, 16384, 49152, 100000, 166912, 232448}) {
          for (int bars : {0, 1, 3}) {
            if (smem > a.max_smem_per_block_optin) continue;
            OccupancyInput in{block, regs, smem, 0, bars};
            auto mine = ComputeOccupancy(a, in);
            ASSERT_TRUE(mine.ok());
            int theirs = ToolkitBlocks(a, in);
            ASSERT_EQ(mine->blocks_per_sm, theirs) << a.arch << " block " << block << " regs "
                                                   << regs << " smem " << smem << " bars " << bars;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
#endif
}

}  // namespace
}  // namespace av
