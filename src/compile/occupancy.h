// Theoretical occupancy of one kernel on one architecture: resident blocks and warps
// per SM and the resource that limits them, computed the way the CUDA toolkit's own
// cuda_occupancy.h does (cudaOccMaxActiveBlocksPerMultiprocessor with the default cache
// configuration, i.e. the largest shared-memory carveout). Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "compile/arch_limits.h"

namespace av {

struct OccupancyInput {
  int block_size = 0;            // threads per block
  int registers_per_thread = 0;  // ptxas "Used N registers"
  int64_t static_smem_bytes = 0;
  int64_t dynamic_smem_bytes = 0;
  int barriers = 0;  // ptxas "used N barriers"
};

enum class OccupancyLimiter { kNone, kBlocks, kWarps, kRegisters, kSharedMemory, kBarriers };

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double occupancy = 0;  // warps_per_sm / max_warps_per_sm
  OccupancyLimiter limiter = OccupancyLimiter::kNone;
  // What each resource alone would allow (INT32_MAX when it does not limit).
  int limit_blocks = 0, limit_warps = 0, limit_registers = 0, limit_smem = 0, limit_barriers = 0;
  int64_t smem_allocated_per_block = 0;  // with the reserved 1 KiB and rounding
  int registers_allocated_per_block = 0;
  // Why the kernel cannot launch at all (blocks_per_sm == 0), else empty.
  std::string reason;
};

// InvalidInput for a block size outside 1..1024 or negative resources.
Result<Occupancy> ComputeOccupancy(const ArchLimits& arch, const OccupancyInput& in);

// "registers", "shared memory", ... for reports.
const char* OccupancyLimiterName(OccupancyLimiter l);

}  // namespace av
