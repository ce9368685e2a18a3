// The GPU peak table: each GPU's peak memory bandwidth and peak dense tensor throughput,
// the bounds a measured kernel cannot beat. A head whose bytes/time or flops/time exceed
// them did not do the work it claims. doc/profile.md gives the source of every figure.
// Pure data; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace av::profile {

struct GpuPeak {
  std::string_view name;
  double bw_gbs;  // peak DRAM bandwidth, GB/s (10^9 byte/s)
  double tflops;  // peak dense tensor-core TFLOP/s at the narrowest type (FP8 where it has one)
  std::string_view source;
};

// "H200", "h200", "H100" ...; nullopt for a GPU not in the table.
std::optional<GpuPeak> FindGpuPeak(std::string_view name);
// The table's names, comma-separated, for messages.
std::string KnownGpus();

}  // namespace av::profile
