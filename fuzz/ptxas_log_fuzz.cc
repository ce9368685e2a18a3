// libFuzzer target for ParsePtxasLog: any bytes must parse into a report (never a crash,
// never a read outside the input), every kernel's numbers must be "unknown" (-1) or
// non-negative, and the JSON renderer must accept the result. Seeds:
// fuzz/corpus/ptxas_log/ (the real nvcc 13.0 logs of testdata/ptxas_log/).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "compile/ptxas_log.h"
#include "compile/ptxas_log_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = av::ParsePtxasLog(text, "fuzz.log");
  if (!report.ok()) return 0;
  for (const av::PtxasKernel& k : report->kernels) {
    if (k.registers < -1 || k.barriers < -1 || k.smem_bytes < -1 || k.stack_frame_bytes < -1 ||
        k.spill_store_bytes < -1 || k.spill_load_bytes < -1) {
      __builtin_trap();
    }
    // A complete block has its registers, unless the log gave a count no ptxas prints.
    if (k.complete && k.registers < 0 && !k.bad_count) __builtin_trap();
  }
  if (report->recognized_lines + report->unknown_lines > report->total_lines) __builtin_trap();
  // Rendering must not throw (JSON strings are UTF-8-checked: invalid bytes are replaced).
  try {
    (void)av::PtxasReportToJson(*report).dump(-1, ' ', false,
                                              nlohmann::json::error_handler_t::replace);
  } catch (...) {
    __builtin_trap();
  }
  return 0;
}
