#include "compile/ptxas_log_json.h"

#include <nlohmann/json.hpp>

namespace av {
namespace {

nlohmann::json OrNull(int64_t v) { return v < 0 ? nlohmann::json() : nlohmann::json(v); }

}  // namespace

nlohmann::json PtxasKernelToJson(const PtxasKernel& k) {
  nlohmann::json cmem = nlohmann::json::array();
  for (const ConstBankUse& c : k.cmem) cmem.push_back({{"bank", c.bank}, {"bytes", c.bytes}});
  nlohmann::json j = {
      {"mangled", k.mangled},
      {"demangled", k.demangled},
      {"arch", k.arch.empty() ? nlohmann::json() : nlohmann::json(k.arch)},
      {"entry", k.is_entry},
      {"registers", OrNull(k.registers)},
      {"barriers", OrNull(k.barriers)},
      {"stack_frame_bytes", OrNull(k.stack_frame_bytes)},
      {"spill_store_bytes", OrNull(k.spill_store_bytes)},
      {"spill_load_bytes", OrNull(k.spill_load_bytes)},
      {"cumulative_stack_bytes", OrNull(k.cumulative_stack_bytes)},
      {"static_smem_bytes", OrNull(k.smem_bytes)},
      {"cmem", cmem},
      {"gmem_bytes", OrNull(k.gmem_bytes)},
      {"compile_time_ms",
       k.compile_time_ms < 0 ? nlohmann::json() : nlohmann::json(k.compile_time_ms)},
      {"maxrregcount", OrNull(k.max_registers_option)},
      {"complete", k.complete},
      {"log_line", k.line},
  };
  if (k.bad_count) j["bad_count"] = true;
  return j;
}

nlohmann::json PtxasDiagnosticToJson(const PtxasDiagnostic& d) {
  nlohmann::json j = {{"severity", SeverityName(d.severity)},
                      {"kind", d.kind},
                      {"tool", d.tool},
                      {"message", d.message},
                      {"log_line", d.log_line}};
  if (!d.function.empty()) j["function"] = d.function;
  if (!d.arch.empty()) j["arch"] = d.arch;
  if (!d.source_file.empty()) {
    j["file"] = d.source_file;
    j["line"] = d.source_line;
  }
  if (d.bytes >= 0) j["bytes"] = d.bytes;
  if (d.max_bytes >= 0) j["max_bytes"] = d.max_bytes;
  return j;
}

nlohmann::json PtxasReportToJson(const PtxasReport& r) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const PtxasKernel& k : r.kernels) kernels.push_back(PtxasKernelToJson(k));
  nlohmann::json diags = nlohmann::json::array();
  for (const PtxasDiagnostic& d : r.diagnostics) diags.push_back(PtxasDiagnosticToJson(d));
  return {{"source", r.source},
          {"lines", r.total_lines},
          {"recognized_lines", r.recognized_lines},
          {"unknown_lines", r.unknown_lines},
          {"truncated", r.truncated},
          {"errors", r.CountErrors()},
          {"kernels", kernels},
          {"diagnostics", diags}};
}

}  // namespace av
