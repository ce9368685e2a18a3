#include "compile/occupancy.h"

#include <algorithm>
#include <climits>

namespace av {
namespace {

int64_t DivideRoundUp(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t RoundUp(int64_t x, int64_t y) { return y * DivideRoundUp(x, y); }

}  // namespace

const char* OccupancyLimiterName(OccupancyLimiter l) {
  switch (l) {
    case OccupancyLimiter::kNone:
      return "none";
    case OccupancyLimiter::kBlocks:
      return "blocks per SM";
    case OccupancyLimiter::kWarps:
      return "warps per SM";
    case OccupancyLimiter::kRegisters:
      return "registers";
    case OccupancyLimiter::kSharedMemory:
      return "shared memory";
    case OccupancyLimiter::kBarriers:
      return "barriers";
  }
  return "none";
}

Result<Occupancy> ComputeOccupancy(const ArchLimits& a, const OccupancyInput& in) {
  if (in.block_size <= 0 || in.block_size > a.max_threads_per_block) {
    return InvalidInput("block size " + std::to_string(in.block_size) + " is outside 1.." +
                        std::to_string(a.max_threads_per_block) + " for " + std::string(a.arch));
  }
  if (in.registers_per_thread < 0 || in.static_smem_bytes < 0 || in.dynamic_smem_bytes < 0 ||
      in.barriers < 0) {
    return InvalidInput("negative resource count");
  }
  Occupancy o;
  const int warps_per_block = static_cast<int>(DivideRoundUp(in.block_size, 32));

  // Blocks and warps (cudaOccMaxBlocksPerSMWarpsLimit).
  o.limit_blocks = a.max_blocks_per_sm;
  o.limit_warps = a.max_warps_per_sm / warps_per_block;

  // Registers (cudaOccMaxBlocksPerSMRegsLimit): per warp, rounded to the allocation
  // unit; warps are placed on 4 sub-partitions, each with a quarter of the file.
  int64_t regs_per_warp =
      RoundUp(int64_t{in.registers_per_thread} * 32, a.register_allocation_unit);
  o.registers_allocated_per_block = static_cast<int>(regs_per_warp * warps_per_block);
  int64_t regs_assumed = regs_per_warp * RoundUp(warps_per_block, a.sub_partitions);
  if (in.registers_per_thread > a.max_registers_per_thread) {
    o.limit_registers = 0;
    o.reason = std::to_string(in.registers_per_thread) + " registers per thread is over the " +
               std::to_string(a.max_registers_per_thread) + " limit";
  } else if (regs_assumed > a.max_registers_per_block ||
             o.registers_allocated_per_block > a.max_registers_per_block) {
    o.limit_registers = 0;
    o.reason = std::to_string(o.registers_allocated_per_block) +
               " registers per block is over the " + std::to_string(a.max_registers_per_block) +
               " limit";
  } else if (regs_per_warp == 0) {
    o.limit_registers = INT_MAX;
  } else {
    int64_t warps_per_partition = (a.registers_per_sm / a.sub_partitions) / regs_per_warp;
    o.limit_registers = static_cast<int>(warps_per_partition * a.sub_partitions / warps_per_block);
  }

  // Shared memory (cudaOccMaxBlocksPerSMSmemLimit): static + reserved + dynamic, rounded.
  int64_t used = in.static_smem_bytes + a.reserved_smem_per_block + in.dynamic_smem_bytes;
  o.smem_allocated_per_block = RoundUp(used, a.smem_allocation_unit);
  int64_t block_limit = a.max_smem_per_block_optin + a.reserved_smem_per_block;
  if (o.smem_allocated_per_block > block_limit) {
    o.limit_smem = 0;
    if (o.reason.empty()) {
      o.reason = std::to_string(in.static_smem_bytes + in.dynamic_smem_bytes) +
                 " bytes of shared memory per block is over the " +
                 std::to_string(a.max_smem_per_block_optin) + "-byte limit";
    }
  } else if (o.smem_allocated_per_block == 0) {
    o.limit_smem = INT_MAX;
  } else {
    o.limit_smem = static_cast<int>(a.smem_per_sm / o.smem_allocated_per_block);
  }

  // Named barriers (cudaOccMaxBlocksPerSMBlockBarrierLimit): the toolkit applies this
  // limit from compute capability 9.0 on.
  o.limit_barriers = in.barriers > 0 && a.compute_major >= 9
                         ? a.barriers_per_block_slot * a.max_blocks_per_sm / in.barriers
                         : INT_MAX;

  struct Candidate {
    int value;
    OccupancyLimiter who;
  };
  // Ties go to the first: the hardware slot counts before the kernel's own resources.
  Candidate order[] = {{o.limit_blocks, OccupancyLimiter::kBlocks},
                       {o.limit_warps, OccupancyLimiter::kWarps},
                       {o.limit_registers, OccupancyLimiter::kRegisters},
                       {o.limit_smem, OccupancyLimiter::kSharedMemory},
                       {o.limit_barriers, OccupancyLimiter::kBarriers}};
  Candidate best = order[0];
  for (const Candidate& c : order) {
    if (c.value < best.value) best = c;
  }
  o.blocks_per_sm = std::max(best.value, 0);
  o.limiter = best.who;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.occupancy = static_cast<double>(o.warps_per_sm) / a.max_warps_per_sm;
  return o;
}

}  // namespace av
