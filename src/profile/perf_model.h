// The perf model: what `attnverify profile --import` keeps of a profiler export, and
// evidence/perf.json, where it accumulates (doc/formats/perf-json.md). One entry per kernel,
// shape and side (base or head) per imported file; each entry holds its launches with
// every figure in base units beside the raw string the tool printed, or, for an nsys
// summary, the tool's own statistics. Plain data; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "profile/kernel_name.h"

namespace av::profile {

inline constexpr const char* kPerfSchema = "attnverify.perf/1";

// One figure of one launch: the normalised value, and what the tool printed.
struct Figure {
  double value = 0;
  std::string unit;      // base unit: "ns", "byte", "%", "" for counts
  std::string raw;       // "6.75"
  std::string raw_unit;  // "us"
};

// Names of the figures the gates read (doc/profile.md lists the ncu metrics behind each).
namespace fig {
inline constexpr const char* kDuration = "duration_ns";
inline constexpr const char* kSmThroughput = "sm_throughput_pct";
inline constexpr const char* kMemThroughput = "memory_throughput_pct";
inline constexpr const char* kDramThroughput = "dram_throughput_pct";
inline constexpr const char* kAchievedOcc = "achieved_occupancy_pct";
inline constexpr const char* kTheoreticalOcc = "theoretical_occupancy_pct";
inline constexpr const char* kRegisters = "registers_per_thread";
inline constexpr const char* kSmemStatic = "smem_static_bytes";
inline constexpr const char* kSmemDynamic = "smem_dynamic_bytes";
inline constexpr const char* kSmemDriver = "smem_driver_bytes";
inline constexpr const char* kBankLd = "bank_conflicts_ld";
inline constexpr const char* kBankSt = "bank_conflicts_st";
inline constexpr const char* kWavefronts = "smem_wavefronts";
inline constexpr const char* kDramRead = "dram_bytes_read";
inline constexpr const char* kDramWrite = "dram_bytes_write";
inline constexpr const char* kDramBytes = "dram_bytes";
inline constexpr const char* kFlops = "flops";
inline constexpr const char* kLimitRegisters = "block_limit_registers";
inline constexpr const char* kLimitSmem = "block_limit_shared_mem";
inline constexpr const char* kLimitWarps = "block_limit_warps";
inline constexpr const char* kLimitSm = "block_limit_sm";
}  // namespace fig

struct Launch {
  std::string id;           // the tool's launch ID, or the row number
  std::string grid, block;  // "(9, 32, 1)" as printed; empty when the tool does not say
  std::map<std::string, Figure> figures;
  // The Block Limit with the fewest blocks ("registers", "shared_mem", "warps", "sm").
  std::string occupancy_limiter;

  const Figure* Find(const std::string& name) const {
    auto it = figures.find(name);
    return it == figures.end() ? nullptr : &it->second;
  }
};

// The tool's own statistics when it prints no launch of its own (nsys kern_sum).
struct Summary {
  int64_t instances = 0;
  double total_ns = 0, avg_ns = 0, med_ns = 0, min_ns = 0, max_ns = 0, stddev_ns = 0;
};

struct KernelProfile {
  std::string label;         // "base" or "head"
  std::string shape;         // --shape, or the benchmark's own argument string; may be empty
  std::string tool;          // "ncu", "nsys", "google-benchmark", "timing-csv"
  std::string tool_version;  // what the file shows ("2025.x layout (20 columns)")
  std::string format;        // "ncu-details", "ncu-raw", "nsys-kern-sum", ...
  KernelName name;
  std::string source_file;    // the imported file, as named on the command line
  std::string source_sha256;  // of its bytes
  std::vector<Launch> launches;
  std::optional<Summary> summary;
};

struct PerfDoc {
  std::vector<KernelProfile> kernels;
};

// perf.json's text (sorted keys, two-space indent, trailing newline).
std::string RenderPerfJson(const PerfDoc& doc);
// Reads perf.json's text; an error names `shown` and the JSON path of what is wrong.
Result<PerfDoc> ParsePerfJson(std::string_view text, const std::string& shown);
// Reads `path`; NotFound when it does not exist.
Result<PerfDoc> ReadPerfJson(const std::string& path);
// Adds `kernels` to the perf.json at `path` (created when absent), replacing what an
// earlier import of the same file (same sha256) for the same side left there, and writes
// it atomically. A perf.json that cannot be read is an error and is left as it was.
Status AppendPerfJson(const std::string& path, const std::vector<KernelProfile>& kernels);

}  // namespace av::profile
