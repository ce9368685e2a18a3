// ResourcesReport: the compile evidence of `attnverify build` — per kernel and arch,
// registers, barriers, shared memory against the arch's cap (static from ptxas + dynamic
// from attnverify.toml), spills, stack and occupancy, before (base) and after (head), how
// base and head kernels were paired, the findings and warnings, and the gates' verdicts.
// A gate passes only when it judged something: with nothing to judge (no kernel in the
// log, a base that did not build, kernels on one side only, a [[build.kernel]] entry that
// matched nothing) it is "missing" with the reason. Built by a pure function from parsed
// logs and the config; the writers (resources_writer.h) only render it. Plain data; any
// thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compile/build_config.h"
#include "compile/occupancy.h"
#include "compile/ptxas_log.h"
#include "compile/smem_scan.h"
#include "schema/outcome.h"
#include "schema/resources_json.h"

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
  // static + declared dynamic; -1 when unknown (dynamic_smem_unknown says why)
  int64_t total_smem_bytes = -1;
  // Head kernels: why the dynamic shared memory is not known, so the cap cannot be judged
  // (a launch passes a runtime value or an undeclared constant; or ptxas shows no static
  // shared memory and no launch was found). Empty: declared, or every launch passes 0.
  std::string dynamic_smem_unknown;
  std::optional<int64_t> source_dynamic_smem;  // the largest constant a launch passes
  int64_t smem_cap_bytes = -1;      // the arch's opt-in per-block limit; -1 unknown arch
  int64_t smem_headroom_bytes = 0;  // cap - total (negative: over)
  double smem_headroom_pct = 0;     // of the cap
  int block_size = 0;               // 0: not configured
  std::optional<Occupancy> occupancy;
  std::string occupancy_note;  // why there is none
  // ptxas refused the kernel ("uses too much shared data (X bytes, Y max)").
  bool ptxas_overflow = false;
  int64_t overflow_bytes = -1, overflow_max_bytes = -1;
  bool bad_count = false;  // the log gave a count no ptxas prints: its numbers are unknown

  int64_t SpillBytes() const;  // stores + loads, 0 when unknown
};

enum class KernelChange { kSame, kChanged, kNew, kVanished, kHeadOnly };

// How a row's base and head kernels were put together.
enum class KernelPairing {
  kNoBase,            // no base was built or imported
  kSame,              // same demangled name
  kSignatureChanged,  // same qualified name, other template arguments or parameters
  kHeadOnly,          // no base kernel of that name on that arch
  kBaseOnly,          // the head has no kernel of that name on that arch
};

struct KernelRow {
  std::string demangled, arch;
  std::optional<KernelResources> base, head;
  KernelChange change = KernelChange::kHeadOnly;  // kHeadOnly: no base was built
  KernelPairing pairing = KernelPairing::kNoBase;
};

struct BuildFinding {
  Severity severity = Severity::kWarning;
  std::string kind;  // dynamic_smem_in_source, dynamic_smem_mismatch, dynamic_smem_runtime,
                     // unknown_arch, base_build_failed, spills_increased, truncated_log
  std::string message;
  std::string file;
  int line = 0;
  std::string kernel;
};

struct GateResult {
  std::string name;  // head_builds, registers_max, no_new_spills, smem_within_cap,
                     // occupancy_not_lower
  bool enabled = true;
  CheckStatus status = CheckStatus::kMissing;
  std::string rule;                   // what the gate checks, in words
  std::string reason;                 // why it is missing (or what failed / was judged)
  std::vector<std::string> failures;  // one line per kernel and arch
  int judged = 0;                     // kernel rows the gate judged

  bool passed() const { return status == CheckStatus::kPass; }
  bool missing() const { return status == CheckStatus::kMissing; }
};

// Where one revision's evidence came from.
struct RevisionInfo {
  std::string label;     // "head" or "base"
  std::string ref;       // --base value, or "working tree" / "imported"
  std::string commit;    // when known
  std::string log_path;  // package-relative ("logs/build.log")
  std::vector<std::vector<std::string>> commands;
  std::vector<int> exit_codes;
  int errors = 0;
  bool truncated = false;
};

// A [[build.kernel]] entry that names no kernel of the head log.
struct UnmatchedKernelEntry {
  std::string name;
  int line = 0;  // in attnverify.toml
  std::optional<int64_t> dynamic_smem_bytes;
  bool matches_base = false;  // it does name a kernel of the base log
};

struct ResourcesReport {
  // ok (every enabled gate passed), rejected (one failed), incomplete (none failed, one
  // had nothing to judge), missing (no nvcc: nothing compiled).
  ResourcesStatus status = ResourcesStatus::kMissing;
  std::string missing_reason;
  std::string nvcc_path, nvcc_version;
  std::vector<std::string> archs;
  RevisionInfo head;
  std::optional<RevisionInfo> base;
  std::vector<KernelRow> kernels;
  std::vector<GateResult> gates;
  std::vector<BuildFinding> findings;
  std::vector<std::string> warnings;  // what makes the evidence weaker, for the report
  std::vector<UnmatchedKernelEntry> unmatched_kernel_entries;
  std::vector<PtxasDiagnostic> diagnostics;  // head's errors and warnings (not notes)

  bool Passed() const;  // status ok
};

// Everything the report is computed from.
struct ResourcesInput {
  const BuildConfig* config = nullptr;
  const PtxasReport* head = nullptr;
  const PtxasReport* base = nullptr;           // null: no --base
  std::vector<DynamicSmemSite> sites;          // from the head's sources and their headers
  int scanned_files = 0;                       // files those came from (0: none scanned)
  std::vector<std::string> scan_warnings;      // the scan stopped at a cap
  std::vector<std::string> archs;              // the targets built (normalized "sm_90a")
  bool head_build_failed = false;              // an nvcc exit status other than 0
  std::vector<std::string> head_failed_calls;  // "nvcc k.cu for sm_80: timed out after 900 s"
  bool base_build_failed = false;
  std::vector<std::string> base_failed_calls;  // the same, and a failed [build] base_setup
  std::vector<std::string> base_warnings;      // the base copy's (submodules, symlinks, setup)
};

ResourcesReport ComputeResourcesReport(const ResourcesInput& in);

// A report that says the evidence is missing (no nvcc): status "missing", no gates run.
ResourcesReport MissingResourcesReport(const std::string& reason,
                                       const std::vector<std::string>& archs);

const char* KernelChangeName(KernelChange c);
// "same", "signature_changed", "head_only", "base_only"; "" for kNoBase.
const char* KernelPairingName(KernelPairing p);

// Internal to the report's computation (resources_gates.cc), exposed for its tests.
namespace resources_internal {
// Base rows paired to head rows: exact (demangled, arch) first, then by qualified name
// on the same arch, unambiguous pairs only.
std::vector<KernelRow> PairKernels(const std::vector<KernelResources>& head,
                                   const std::vector<KernelResources>* base);
// Compile failures of one revision: error lines (shared-memory overflows excepted) and
// failed nvcc calls that no error line explains.
std::vector<std::string> BuildFailures(const PtxasReport& log, bool nvcc_failed,
                                       const std::vector<std::string>& failed_calls,
                                       const std::string& log_name);
std::vector<GateResult> ComputeGates(const ResourcesInput& in, const ResourcesReport& r);
}  // namespace resources_internal

}  // namespace av
