// ResourcesReport: the compile evidence of `attnverify build` — per kernel and arch,
// registers, shared memory against the arch's cap (static from ptxas + dynamic from
// attnverify.toml), spills, stack and occupancy, before (base) and after (head), the
// findings (dynamic shared memory set in the source, unknown archs, failed builds) and
// the gates' verdicts. Built by a pure function from parsed logs and the config; the
// writers (resources_writer.h) only render it. Plain data; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/build_config.h"
#include "evidence/occupancy.h"
#include "evidence/ptxas_log.h"
#include "evidence/smem_scan.h"

namespace av {

// One kernel on one arch in one revision.
struct KernelResources {
  std::string mangled, demangled, arch;
  int registers = -1;
  int barriers = -1;
  int64_t stack_frame_bytes = -1;
  int64_t cumulative_stack_bytes = -1;
  int64_t spill_store_bytes = -1;
  int64_t spill_load_bytes = -1;
  int64_t static_smem_bytes = -1;
  int64_t dynamic_smem_bytes = -1;  // -1: not declared in attnverify.toml
  int64_t total_smem_bytes = -1;    // static + declared dynamic
  int64_t smem_cap_bytes = -1;      // the arch's opt-in per-block limit; -1 unknown arch
  int64_t smem_headroom_bytes = 0;  // cap - total (negative: over)
  double smem_headroom_pct = 0;     // of the cap
  int block_size = 0;               // 0: not configured
  std::optional<Occupancy> occupancy;
  std::string occupancy_note;  // why there is none
  // ptxas refused the kernel ("uses too much shared data (X bytes, Y max)").
  bool ptxas_overflow = false;
  int64_t overflow_bytes = -1, overflow_max_bytes = -1;

  int64_t SpillBytes() const;  // stores + loads, 0 when unknown
};

enum class KernelChange { kSame, kChanged, kNew, kVanished, kHeadOnly };

struct KernelRow {
  std::string demangled, arch;
  std::optional<KernelResources> base, head;
  KernelChange change = KernelChange::kHeadOnly;  // kHeadOnly: no base was built
};

struct BuildFinding {
  Severity severity = Severity::kWarning;
  std::string kind;  // dynamic_smem_in_source, dynamic_smem_mismatch, unknown_arch,
                     // build_failed, base_build_failed, spills_increased, truncated_log
  std::string message;
  std::string file;
  int line = 0;
  std::string kernel;
};

struct GateResult {
  std::string
      name;  // head_builds, registers_max, no_new_spills, smem_within_cap, occupancy_not_lower
  bool enabled = true;
  bool skipped = false;  // enabled but without the evidence to decide (no base, no block size)
  bool passed = true;
  std::string reason;
  std::vector<std::string> failures;  // one line per kernel and arch
};

// Where one revision's evidence came from.
struct RevisionInfo {
  std::string label;   // "head" or "base"
  std::string ref;     // --base value, or "working tree" / "imported"
  std::string commit;  // when known
  std::string log_path;
  std::vector<std::vector<std::string>> commands;
  std::vector<int> exit_codes;
  int errors = 0;
  bool truncated = false;
};

struct ResourcesReport {
  std::string status;  // "ok", "rejected", "missing"
  std::string missing_reason;
  std::string nvcc_path, nvcc_version;
  std::vector<std::string> archs;
  RevisionInfo head;
  std::optional<RevisionInfo> base;
  std::vector<KernelRow> kernels;
  std::vector<GateResult> gates;
  std::vector<BuildFinding> findings;
  std::vector<PtxasDiagnostic> diagnostics;  // head's errors and warnings (not notes)

  bool Passed() const;
};

// Everything the report is computed from.
struct ResourcesInput {
  const BuildConfig* config = nullptr;
  const PtxasReport* head = nullptr;
  const PtxasReport* base = nullptr;           // null: no --base
  std::vector<DynamicSmemSite> sites;          // from the head's sources
  std::vector<std::string> archs;              // the targets built (normalized "sm_90a")
  bool head_build_failed = false;              // an nvcc exit status other than 0
  std::vector<std::string> head_failed_calls;  // "k.cu for sm_80: timed out after 900 s"
  bool base_build_failed = false;
};

ResourcesReport ComputeResourcesReport(const ResourcesInput& in);

// A report that says the evidence is missing (no nvcc): status "missing", no gates run.
ResourcesReport MissingResourcesReport(const std::string& reason,
                                       const std::vector<std::string>& archs);

const char* KernelChangeName(KernelChange c);

}  // namespace av
