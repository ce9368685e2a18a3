// evidence/perf.json as one model: what `attnverify profile --import` keeps of profiler
// exports, one entry per kernel, shape and side (base or head) per imported file; each
// entry holds its launches with every figure in base units beside the raw string the tool
// printed, or, for an nsys summary, the tool's own statistics. profile/ builds the
// entries (its importers) and judges them (its gates); the report reads the file back
// with ParsePerf, once. Schema /2 adds the provenance block of the import that wrote the
// file last; /1 files (none) are still read. Format: doc/formats/perf-json.md. Pure
// values; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/provenance.h"

namespace av {

inline constexpr const char* kPerfJsonSchema = "attnverify.perf/2";
inline constexpr const char* kPerfJsonSchemaV1 = "attnverify.perf/1";

// One figure of one launch: the normalised value, and what the tool printed.
struct PerfFigure {
  double value = 0;
  std::string unit;      // base unit: "ns", "byte", "%", "" for counts
  std::string raw;       // "6.75"
  std::string raw_unit;  // "us"
};

// Names of the figures the gates read (doc/profile.md lists the ncu metrics behind each).
namespace perf_fig {
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
}  // namespace perf_fig

struct PerfLaunch {
  std::string id;           // the tool's launch ID, or the row number
  std::string grid, block;  // "(9, 32, 1)" as printed; empty when the tool does not say
  std::map<std::string, PerfFigure> figures;
  // The Block Limit with the fewest blocks ("registers", "shared_mem", "warps", "sm").
  std::string occupancy_limiter;

  const PerfFigure* Find(const std::string& name) const {
    auto it = figures.find(name);
    return it == figures.end() ? nullptr : &it->second;
  }
};

// The tool's own statistics when it prints no launch of its own (nsys kern_sum).
struct PerfSummary {
  int64_t instances = 0;
  double total_ns = 0, avg_ns = 0, med_ns = 0, min_ns = 0, max_ns = 0, stddev_ns = 0;
};

// A kernel's name as the tool printed it and the forms profile/kernel_name.h derives.
struct PerfKernelName {
  std::string raw;         // as the tool printed it
  std::string demangled;   // raw, or its demangling when raw is a mangled `_Z` name
  std::string key;         // for matching: "kernel<int,int,__nv_bfloat16,...,0,1,7>"
  std::string short_name;  // the function's own name, no templates: "kernel"
};

struct PerfKernel {
  std::string label;         // "base" or "head"
  std::string shape;         // --shape, or the benchmark's own argument string; may be empty
  std::string tool;          // "ncu", "nsys", "google-benchmark", "timing-csv"
  std::string tool_version;  // what the file shows ("2025.x layout (20 columns)")
  std::string format;        // "ncu-details", "ncu-raw", "nsys-kern-sum", ...
  PerfKernelName name;
  std::string source_file;    // the imported file, as named on the command line
  std::string source_sha256;  // of its bytes
  std::vector<PerfLaunch> launches;
  std::optional<PerfSummary> summary;
};

struct PerfRecord {
  PerfRecord() = default;
  PerfRecord(std::vector<PerfKernel> k) : kernels(std::move(k)) {}  // NOLINT: PerfRecord{{k}}

  std::vector<PerfKernel> kernels;
  // The import that wrote the file last (its argv, config and the export it read);
  // has_provenance false for /1 files and for records built without one.
  Provenance provenance;
  bool has_provenance = false;
};

// perf.json's text (schema /2; sorted keys, two-space indent, trailing newline); the
// provenance block when the record has one. Kernel names come from the code under
// review: invalid UTF-8 is replaced, never thrown.
std::string PerfToJsonText(const PerfRecord& record);
// Strict: every field of a kernel, launch and figure is required; a duration must be a
// non-negative time in ns. Errors name `path` and the JSON path
// ("evidence/perf.json: $.kernels[2].label: must be base or head").
Result<PerfRecord> ParsePerf(std::string_view text, const std::string& path);

}  // namespace av
