// libFuzzer target for the profile importers: the first byte picks the reader (ncu
// details or raw, nsys kern_sum, Google Benchmark JSON, timing CSV, perf.json), the rest is
// the file. Any bytes import or give an error (never a crash, hang or unbounded
// allocation); an import's figures are finite, and its perf.json reads back to the same
// text. Kernel names and numbers of the input also go through the normalisers.
// Seeds: fuzz/corpus/profile_import/ (each starts with its selector byte).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "profile/import.h"
#include "profile/kernel_name.h"
#include "profile/perf_model.h"
#include "profile/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const av::profile::ImportOptions opt{"head", "s", "fuzz.csv", "0"};
  std::istringstream in(text);
  av::Result<std::vector<av::profile::KernelProfile>> r = std::vector<av::profile::KernelProfile>{};
  switch (data[0] % 6) {
    case 0:
      r = av::profile::ImportNcu(in, opt);
      break;
    case 1:
      r = av::profile::ImportNcuRaw(in, opt);
      break;
    case 2:
      r = av::profile::ImportNsysKernSum(in, opt);
      break;
    case 3:
      r = av::profile::ImportGoogleBenchmark(text, opt);
      break;
    case 4:
      r = av::profile::ImportTimingCsv(in, opt);
      break;
    case 5: {
      auto doc = av::profile::ParsePerfJson(text, "perf.json");
      if (doc.ok()) {
        std::string once = av::profile::RenderPerfJson(*doc);
        auto again = av::profile::ParsePerfJson(once, "perf.json");
        if (!again.ok() || av::profile::RenderPerfJson(*again) != once) __builtin_trap();
      }
      break;
    }
  }
  if (r.ok()) {
    av::profile::PerfDoc doc{*r};
    for (const auto& k : doc.kernels) {
      for (const auto& l : k.launches) {
        for (const auto& [name, f] : l.figures) {
          if (!std::isfinite(f.value)) __builtin_trap();
        }
      }
    }
    std::string once = av::profile::RenderPerfJson(doc);
    auto back = av::profile::ParsePerfJson(once, "perf.json");
    if (!back.ok() || av::profile::RenderPerfJson(*back) != once) __builtin_trap();
  }
  av::profile::NormaliseKernelName(text.substr(0, 4096));
  auto v = av::profile::ParseProfilerNumber(text.substr(0, 80));
  if (v && !std::isfinite(*v)) __builtin_trap();
  return 0;
}
