// Recognisers for single lines of nvcc/ptxas output, used by ParsePtxasLog. Each takes
// one line (no newline) and either fills its struct and returns true or returns false;
// none allocates, none reads outside the string_view. Formats: doc/formats/ptxas-log.md.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compile/ptxas_log.h"

namespace av {

std::string_view TrimSpaces(std::string_view s);
// The line without a CI timestamp in front ("2026-11-29T15:50:01.1234567Z ").
std::string_view StripTimestamp(std::string_view line);
// The text between the first pair of single quotes, or empty.
std::string_view FirstQuoted(std::string_view s);

enum class PtxasLevel { kInfo, kWarning, kError, kFatal };

// "ptxas info    : <payload>" anywhere in the line (build logs prefix timestamps), or
// "ptxas /tmp/x.ptx, line 12; error   : <payload>".
struct PtxasLine {
  PtxasLevel level = PtxasLevel::kInfo;
  std::string_view payload;
  std::string_view file;  // the PTX file of the second form
  int file_line = 0;
};
bool ParsePtxasLine(std::string_view line, PtxasLine* out);

struct CompilingEntry {
  std::string_view name, arch;
};
// "Compiling entry function 'NAME' for 'sm_90a'"
bool ParseCompilingEntry(std::string_view payload, CompilingEntry* out);
// "Function properties for NAME"
bool ParseFunctionProperties(std::string_view payload, std::string_view* name);
// "Used ..." -> the comma-separated items after "Used ".
bool ConsumeUsedPrefix(std::string_view payload, std::string_view* items);

// Counts past these (or negative) are not what ptxas prints: the item is "bad".
inline constexpr int64_t kMaxPtxasRegisters = 65535;
inline constexpr int64_t kMaxPtxasBarriers = 1024;
inline constexpr int64_t kMaxPtxasBytes = int64_t{1} << 40;

struct UsedLine {
  int registers = -1;
  int barriers = -1;
  int64_t cumulative_stack_bytes = -1;
  int64_t smem_bytes = -1;
  int64_t gmem_bytes = -1;
  std::vector<ConstBankUse> cmem;
  // Known items whose count is negative or out of range ("-10 registers"); their
  // fields stay -1.
  std::vector<std::string> bad_items;
};
// "48 registers, used 1 barriers, 128 bytes cumulative stack size, 16384 bytes smem,
// 372 bytes cmem[0]": false when an item is not understood or bad (the others are still
// filled).
bool ParseUsedItems(std::string_view items, UsedLine* out);
// The compilation unit's line: "256 bytes gmem, 8 bytes cmem[4]" (only gmem/cmem items).
bool ParseModuleLine(std::string_view payload, UsedLine* out);
// "Compile time = 28.204 ms"; a value that is not a non-negative number gives -1.
bool ParseCompileTime(std::string_view payload, double* ms);

struct RegisterOverride {
  std::string_view name;
  int limit = 0;
};
// "Overriding maximum register limit 256 for 'NAME' with  32 of maxrregcount option"
bool ParseRegisterOverride(std::string_view payload, RegisterOverride* out);

struct SmemOverflow {
  std::string_view name, what;  // what: "shared", "local", "param"...
  int64_t bytes = 0, max_bytes = 0;
};
// "Entry function 'NAME' uses too much shared data (0x40000 bytes, 0x38c00 max)"
bool ParseOverflow(std::string_view payload, SmemOverflow* out);

struct SpillWarning {
  std::string_view name;
  int64_t stores = 0, loads = 0;
};
// "Registers are spilled to local memory in function 'NAME', 844 bytes spill stores,
// 980 bytes spill loads"
bool ParseSpillWarning(std::string_view payload, SpillWarning* out);
// "Local memory used for function 'NAME', size of stack frame: 512 bytes" (-> stores)
bool ParseLocalMemoryWarning(std::string_view payload, SpillWarning* out);

struct StackLine {
  int64_t stack_frame = 0, spill_stores = 0, spill_loads = 0;
  bool bad = false;  // a count was negative or out of range (the fields are then -1)
};
// "    352 bytes stack frame, 580 bytes spill stores, 676 bytes spill loads"
bool ParseStackLine(std::string_view line, StackLine* out);

struct CompilerMessage {
  Severity severity = Severity::kError;
  std::string_view tool;  // "nvcc" or "compiler"
  std::string_view file;
  int line = 0;
  std::string_view message;
};
// "x.cu(3): error: ...", "x.cu(7): warning #177-D: ...", "x.cc:3:5: error: ...",
// "nvcc fatal   : ...", "nvcc warning : ...".
bool ParseCompilerMessage(std::string_view line, CompilerMessage* out);
// "1 error detected in the compilation of "x.cu"."
bool IsErrorSummary(std::string_view line);

}  // namespace av
