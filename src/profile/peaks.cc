#include "profile/peaks.h"

#include <cctype>

namespace av::profile {
namespace {

// Figures from NVIDIA's published datasheets (SXM parts; dense, without sparsity). The
// TFLOP/s column is the largest dense tensor rate the GPU has, so a legitimate kernel of any
// type stays below it.
constexpr GpuPeak kPeaks[] = {
    {"A100", 2039, 624, "NVIDIA A100 datasheet, 80GB SXM: 2,039 GB/s; INT8 624 TOPS dense"},
    {"H100", 3350, 1979, "NVIDIA H100 datasheet, SXM: 3.35 TB/s; FP8 1,979 TFLOPS dense"},
    {"H200", 4800, 1979, "NVIDIA H200 datasheet, SXM: 4.8 TB/s; FP8 1,979 TFLOPS dense"},
    {"B200", 8000, 4500, "NVIDIA DGX B200 / HGX B200 specs: 8 TB/s; FP8 4.5 PFLOPS dense"},
};

std::string Upper(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

std::optional<GpuPeak> FindGpuPeak(std::string_view name) {
  std::string n = Upper(name);
  for (const GpuPeak& p : kPeaks) {
    if (p.name == n) return p;
  }
  return std::nullopt;
}

std::string KnownGpus() {
  std::string out;
  for (const GpuPeak& p : kPeaks) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace av::profile
