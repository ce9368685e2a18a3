// evidence/resources.json as one model: the compile evidence of `attnverify build` per
// kernel and arch, base and head, with the gates' verdicts. compile/resources_writer.h
// builds the record from a ResourcesReport; the report reads it back with
// ParseResources. Schema /2 adds the provenance block (the build logs are its inputs)
// and package-relative log paths; /1 files are still read. Counts JSON holds as null
// (unknown) read as -1. Format: doc/formats/resources-json.md. Pure values; any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/outcome.h"
#include "schema/provenance.h"

namespace av {

inline constexpr const char* kResourcesJsonSchema = "attnverify.resources/2";
inline constexpr const char* kResourcesJsonSchemaV1 = "attnverify.resources/1";

// The build stage's verdict over its gates (resources.json "status"): "ok" (every enabled
// gate passed), "rejected" (one failed), "incomplete" (none failed, one had nothing to
// judge), "missing" (no nvcc: nothing compiled).
enum class ResourcesStatus { kOk, kRejected, kIncomplete, kMissing };
const char* ResourcesStatusName(ResourcesStatus s);
// nullopt for any other word (case-sensitive).
std::optional<ResourcesStatus> ParseResourcesStatus(std::string_view word);

struct ResourcesOccupancy {
  int64_t blocks_per_sm = 0, warps_per_sm = 0;
  double occupancy = 0;  // of the SM's warps
  std::string limited_by;
  int64_t smem_allocated_per_block = 0, registers_allocated_per_block = 0;
  std::string reason;
};

// One kernel on one arch in one revision; -1 is unknown.
struct ResourcesKernelSide {
  std::string mangled;
  int64_t registers = -1, barriers = -1, stack_frame_bytes = -1, cumulative_stack_bytes = -1;
  int64_t spill_store_bytes = -1, spill_load_bytes = -1;
  int64_t static_smem_bytes = -1, dynamic_smem_bytes = -1, total_smem_bytes = -1;
  int64_t smem_cap_bytes = -1;
  int64_t block_size = -1;
  std::optional<int64_t> smem_headroom_bytes;  // when cap and total are known
  std::optional<double> smem_headroom_pct;
  bool bad_count = false;       // the log gave a count no ptxas prints: numbers unknown
  bool ptxas_overflow = false;  // ptxas refused it: "uses too much shared data"
  int64_t overflow_bytes = -1, overflow_max_bytes = -1;
  std::optional<ResourcesOccupancy> occupancy;
  std::string occupancy_note;  // why there is none
};

struct ResourcesKernelRow {
  std::string kernel, arch;
  std::string change;   // "same", "changed", "new", "vanished", "head_only"
  std::string pairing;  // "same", "signature_changed", "head_only", "base_only"; "" unknown
  std::optional<ResourcesKernelSide> base, head;
};

struct ResourcesGate {
  std::string gate, rule;
  bool enabled = true, skipped = false, passed = false;
  // Written as GateStatusName: "pass", "fail", "missing"; unset in files that predate it
  // (written back as "").
  std::optional<CheckStatus> status;
  std::string reason;  // why it is missing
  std::vector<std::string> failures;
  int64_t judged = 0;  // kernel rows the gate judged
};

// A [[build.kernel]] entry of attnverify.toml that names no kernel of the head log.
struct ResourcesUnmatchedEntry {
  std::string name;
  int64_t line = 0;  // in attnverify.toml
  std::optional<int64_t> dynamic_smem_bytes;
  bool matches_base = false;  // it does name a kernel of the base log
};

struct ResourcesFinding {
  Severity severity = Severity::kWarning;
  std::string kind, message, file, kernel;
  int64_t line = 0;
};

struct ResourcesDiagnostic {
  Severity severity = Severity::kWarning;
  std::string kind, tool, message, function, arch, file;
  int64_t line = 0, log_line = 0;
  int64_t bytes = -1, max_bytes = -1;
};

struct ResourcesRevision {
  std::string ref;                                 // --base value, "working tree" or "imported"
  std::string commit;                              // "" unknown
  std::string log;                                 // package-relative
  std::vector<std::vector<std::string>> commands;  // each an argv
  std::vector<int64_t> exit_codes;
  int64_t errors = 0;
  bool truncated = false;
};

struct ResourcesRecord {
  Provenance provenance;
  bool has_provenance = false;
  std::string tool_version;
  ResourcesStatus status = ResourcesStatus::kMissing;
  std::string missing_reason;
  std::string nvcc_path, nvcc_version;
  std::vector<std::string> archs;
  ResourcesRevision head;
  std::optional<ResourcesRevision> base;
  std::vector<ResourcesKernelRow> kernels;
  std::vector<ResourcesFinding> findings;
  std::vector<ResourcesGate> gates;
  std::vector<ResourcesDiagnostic> diagnostics;
  std::vector<std::string> warnings;
  std::vector<ResourcesUnmatchedEntry> unmatched_kernel_entries;

  bool has_base() const { return base.has_value(); }
};

nlohmann::json ResourcesToJson(const ResourcesRecord& record);
// The file's text: JsonFileText(ResourcesToJson(record)) byte for byte, but built one
// kernel row at a time, so that a log of 300k kernels never becomes one JSON tree.
// Invalid UTF-8 in names is replaced.
std::string ResourcesToJsonText(const ResourcesRecord& record);
// Strict: "status" and each gate's name are required, and a status must be one of its
// words; errors name `path` and the JSON path.
Result<ResourcesRecord> ParseResources(std::string_view text, const std::string& path);

}  // namespace av
