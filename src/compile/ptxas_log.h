// PtxasReport and ParsePtxasLog(): what `nvcc -Xptxas -v` said about each entry function
// (registers, barriers, stack, spills, static shared memory, constant banks, gmem,
// compile time) and every error or warning (ptxas, nvcc front end, host compiler,
// "too many resources requested for launch"). The parser accepts whole build logs with
// other lines mixed in, output interleaved by parallel compiles and truncated logs; it
// never fails on content, it reports. Format notes: doc/formats/ptxas-log.md.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/outcome.h"

namespace av {

struct ConstBankUse {
  int bank = 0;
  int64_t bytes = 0;
};

// One "Compiling entry function" block (or, with is_entry false, a device function's
// "Function properties" block). -1 means "the log did not say".
struct PtxasKernel {
  std::string mangled;
  std::string demangled;  // template arguments kept; equals mangled when not a C++ name
  std::string arch;       // "sm_90a"; empty for a device function whose arch is unknown
  bool is_entry = true;
  int registers = -1;
  int barriers = -1;
  int64_t stack_frame_bytes = -1;
  int64_t spill_store_bytes = -1;
  int64_t spill_load_bytes = -1;
  int64_t cumulative_stack_bytes = -1;
  int64_t smem_bytes = -1;  // static shared memory; 0 when the Used line names none
  std::vector<ConstBankUse> cmem;
  int64_t gmem_bytes = -1;  // the compilation unit's gmem line for this arch
  double compile_time_ms = -1;
  int max_registers_option = -1;  // from "Overriding maximum register limit"
  bool complete = false;          // its "Used N registers" line was seen
  bool bad_count = false;         // a count in its block is negative or out of range
  int line = 0;                   // 1-based line of the block's first line
};

// Severity (error, warning, note) and SeverityName live in schema/outcome.h.

// One error or warning. `kind` is a stable identifier (doc/formats/ptxas-log.md):
// smem_overflow, resource_overflow, launch_out_of_resources, register_spill,
// local_memory, register_limit, ptxas_error, ptxas_warning, compile_error,
// compile_warning, nvcc_error, nvcc_warning, unknown_line, truncated, incomplete,
// interleaved, bad_count (a count no ptxas prints), suppressed (how many more of a kind).
struct PtxasDiagnostic {
  Severity severity = Severity::kWarning;
  std::string kind;
  std::string tool;  // ptxas | nvcc | compiler | runtime | attnverify
  std::string message;
  std::string function;     // mangled name, when the line names one
  std::string arch;         // when known (smem_overflow is matched to its block)
  std::string source_file;  // compile errors: FILE of FILE(LINE) or FILE:LINE:COL
  int source_line = 0;
  int log_line = 0;    // 1-based line in the log
  int64_t bytes = -1;  // "(0x40000 bytes, 0x38c00 max)"
  int64_t max_bytes = -1;
};

struct PtxasReport {
  std::string source;  // the log's name, for messages
  std::vector<PtxasKernel> kernels;
  std::vector<PtxasDiagnostic> diagnostics;
  int total_lines = 0;
  int recognized_lines = 0;
  int unknown_lines = 0;  // only the first kMaxUnknownLineWarnings become diagnostics
  bool truncated = false;
  int suppressed_diagnostics = 0;  // past kMaxDiagnosticsPerKind of one kind: counted only
  int suppressed_errors = 0;       // of those, errors (CountErrors() includes them)

  int CountErrors() const;
  // Entry functions only, in log order.
  std::vector<const PtxasKernel*> EntryKernels() const;
};

inline constexpr int kMaxUnknownLineWarnings = 20;
inline constexpr int kMaxDiagnosticsPerKind = 200;
// Larger inputs are refused (a build log is megabytes, not gigabytes).
inline constexpr size_t kMaxPtxasLogBytes = size_t{1} << 30;

// `source` names the log in messages ("logs/build.log"). Fails only on input over
// kMaxPtxasLogBytes.
Result<PtxasReport> ParsePtxasLog(std::string_view text, std::string_view source);

}  // namespace av
