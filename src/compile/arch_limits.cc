#include "compile/arch_limits.h"

#include <array>

namespace av {
namespace {

constexpr int64_t KiB = 1024;

// One row per family; the variants below copy a family and set the static limit.
// Sources (doc/arch-limits.md): [PG] CUDA C++ Programming Guide, "Technical
// Specifications per Compute Capability" and the per-architecture "Shared Memory"
// sections; [OCC] cuda_occupancy.h of CUDA 13.0 (allocation units, sub-partitions,
// blocks per SM, barriers); [PTXAS] ptxas 13.0's "uses too much shared data ... max"
// (testdata/ptxas/static_smem_limits_nvcc13.0.txt).
constexpr ArchLimits Family(std::string_view arch, int major, int minor, int64_t optin,
                            int64_t per_sm, int threads_per_sm, int blocks_per_sm,
                            int barrier_slots) {
  ArchLimits a;
  a.arch = arch;
  a.compute_major = major;
  a.compute_minor = minor;
  a.static_smem_limit = 48 * KiB;  // [PTXAS] every non-'a' target
  a.max_smem_per_block_optin = optin;
  a.max_smem_per_block_default = 48 * KiB;
  a.smem_per_sm = per_sm;
  a.reserved_smem_per_block = major >= 8 ? 1 * KiB : 0;  // [PG] "1 KB reserved for system use"
  a.smem_allocation_unit = major >= 8 ? 128 : 256;       // [OCC] cudaOccSMemAllocationGranularity
  a.registers_per_sm = 65536;
  a.max_registers_per_block = 65536;
  a.max_registers_per_thread = 255;
  a.register_allocation_unit = 256;  // [OCC] cudaOccRegAllocationGranularity
  a.max_threads_per_block = 1024;
  a.max_threads_per_sm = threads_per_sm;
  a.max_warps_per_sm = threads_per_sm / 32;
  a.max_blocks_per_sm = blocks_per_sm;
  a.sub_partitions = 4;  // [OCC] cudaOccSubPartitionsPerMultiprocessor
  a.barriers_per_block_slot = barrier_slots;
  return a;
}

constexpr ArchLimits WithStatic(ArchLimits a, std::string_view arch, int64_t static_limit) {
  a.arch = arch;
  a.static_smem_limit = static_limit;
  return a;
}

//                                    arch      cc      opt-in/block   per SM      thr/SM blk/SM bar
constexpr ArchLimits kSm70 = Family("sm_70", 7, 0, 96 * KiB, 96 * KiB, 2048, 32, 2);
constexpr ArchLimits kSm72 = Family("sm_72", 7, 2, 96 * KiB, 96 * KiB, 2048, 32, 2);
constexpr ArchLimits kSm75 = Family("sm_75", 7, 5, 64 * KiB, 64 * KiB, 1024, 16, 2);
constexpr ArchLimits kSm80 = Family("sm_80", 8, 0, 163 * KiB, 164 * KiB, 2048, 32, 2);
constexpr ArchLimits kSm86 = Family("sm_86", 8, 6, 99 * KiB, 100 * KiB, 1536, 16, 1);
constexpr ArchLimits kSm87 = Family("sm_87", 8, 7, 163 * KiB, 164 * KiB, 1536, 16, 1);
constexpr ArchLimits kSm89 = Family("sm_89", 8, 9, 99 * KiB, 100 * KiB, 1536, 24, 1);
constexpr ArchLimits kSm90 = Family("sm_90", 9, 0, 227 * KiB, 228 * KiB, 2048, 32, 2);
constexpr ArchLimits kSm100 = Family("sm_100", 10, 0, 227 * KiB, 228 * KiB, 2048, 32, 2);
constexpr ArchLimits kSm103 = Family("sm_103", 10, 3, 227 * KiB, 228 * KiB, 2048, 32, 2);
constexpr ArchLimits kSm120 = Family("sm_120", 12, 0, 99 * KiB, 100 * KiB, 1536, 24, 1);
constexpr ArchLimits kSm121 = Family("sm_121", 12, 1, 99 * KiB, 100 * KiB, 1536, 24, 1);

// 'a' (arch-specific) targets let static __shared__ reach the opt-in limit [PTXAS]:
// 0x38c00 on sm_90a/sm_100a/sm_103a, 0x18c00 on sm_120a/sm_121a; 'f' (family) targets
// keep 48 KiB like the plain ones.
constexpr std::array kTable = {
    kSm70,
    kSm72,
    kSm75,
    kSm80,
    kSm86,
    kSm87,
    kSm89,
    kSm90,
    WithStatic(kSm90, "sm_90a", 227 * KiB),
    kSm100,
    WithStatic(kSm100, "sm_100a", 227 * KiB),
    WithStatic(kSm100, "sm_100f", 48 * KiB),
    kSm103,
    WithStatic(kSm103, "sm_103a", 227 * KiB),
    WithStatic(kSm103, "sm_103f", 48 * KiB),
    kSm120,
    WithStatic(kSm120, "sm_120a", 99 * KiB),
    WithStatic(kSm120, "sm_120f", 48 * KiB),
    kSm121,
    WithStatic(kSm121, "sm_121a", 99 * KiB),
    WithStatic(kSm121, "sm_121f", 48 * KiB),
};

}  // namespace

std::string NormalizeArch(std::string_view arch) {
  std::string_view s = arch;
  for (std::string_view prefix : {"sm_", "compute_", "lto_"}) {
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  }
  std::string digits;
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits += s[i++];
  if (i < s.size() && s[i] == '.' && digits.size() <= 2) {  // "9.0" -> 90
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits += s[i++];
  }
  std::string_view suffix = s.substr(i);
  if (digits.size() < 2 || digits.size() > 3 ||
      !(suffix.empty() || suffix == "a" || suffix == "f")) {
    return std::string(arch);
  }
  return "sm_" + digits + std::string(suffix);
}

std::optional<ArchLimits> FindArchLimits(std::string_view arch) {
  std::string norm = NormalizeArch(arch);
  for (const ArchLimits& a : kTable) {
    if (a.arch == norm) return a;
  }
  return std::nullopt;
}

std::span<const ArchLimits> AllArchLimits() { return kTable; }

}  // namespace av
