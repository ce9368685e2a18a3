// Per-architecture resource limits (sm_70 ... sm_121 and their 'a'/'f' variants): what a
// kernel's registers, shared memory and block size are checked against. Every number's
// source is in doc/arch-limits.md (CUDA Programming Guide, the toolkit's own
// cuda_occupancy.h, and ptxas 13.0's observed limits). An unknown arch is reported as
// unknown, never guessed. Immutable data; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace av {

struct ArchLimits {
  std::string_view arch;  // "sm_90a"
  int compute_major = 0;
  int compute_minor = 0;
  // ptxas' limit on static __shared__ (its "uses too much shared data ... max").
  int64_t static_smem_limit = 0;
  // Largest shared memory one block may use (static + dynamic) after the
  // cudaFuncAttributeMaxDynamicSharedMemorySize opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin).
  int64_t max_smem_per_block_optin = 0;
  // Without the opt-in (cudaDevAttrMaxSharedMemoryPerBlock).
  int64_t max_smem_per_block_default = 0;
  int64_t smem_per_sm = 0;              // the largest shared-memory carveout
  int64_t reserved_smem_per_block = 0;  // taken by the driver per resident block (8.0+)
  int smem_allocation_unit = 0;         // bytes; per-block usage rounds up to this
  int registers_per_sm = 0;
  int max_registers_per_block = 0;
  int max_registers_per_thread = 0;
  int register_allocation_unit = 0;  // registers per warp round up to this
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int sub_partitions = 0;           // registers are split between them
  int barriers_per_block_slot = 0;  // named barriers = this x max_blocks_per_sm
};

// The limits for "sm_90a", "sm_90", "compute_90a", "90a" or "9.0"; nullopt when unknown.
std::optional<ArchLimits> FindArchLimits(std::string_view arch);

// Every known arch, in ascending order.
std::span<const ArchLimits> AllArchLimits();

// "sm_90a" from "compute_90a", "90a", "sm_90a"; the input unchanged when it is none of those.
std::string NormalizeArch(std::string_view arch);

}  // namespace av
