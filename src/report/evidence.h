// Evidence: the facts of an acceptance package, read back from evidence/*.json into one
// typed value the checklist engine judges. Each file keeps its package-relative path, its
// sha256 and the command that produced it. Absent files and absent optional fields are
// fine (the checklist says MISSING); malformed ones are an InvalidInput naming the file
// and the JSON path (`evidence/numerics.json: $.cases[3].outputs: must be an array`),
// never a crash. Formats: doc/formats/{candidate-protocol,resources-json}.md and the
// review/slice contracts (doc/report.md). Pure values; any thread.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/perf_model.h"
#include "core/status.h"
#include "schema/run_json.h"

namespace av {

struct EvidenceFile {
  std::string path;    // package-relative: "evidence/numerics.json"
  std::string sha256;  // of the bytes read
  std::string
      command;  // the command the file names (or, for resources.json, the one that writes it)
  std::string tool_version;
  // From its "provenance" block (empty in files without one, e.g. schema /1): the run it
  // was written in, the stage that wrote it, the HEAD commit it judged.
  std::string run_id, stage, head_commit;
  // Set by the checklist when it does not use the file (checklist_binding.cc): why.
  std::string refused;
};

// ---- evidence/numerics.json (attnverify.numerics/1) ----
struct WorstElement {
  std::string output;
  std::vector<std::pair<std::string, int64_t>>
      coords;  // localisation: named; compare: "i0", "i1", ...
  double candidate = 0, reference = 0, abs_err = 0;
};

struct OutputResult {
  std::string name;
  std::string tolerance;  // JSON path of the rule in tolerances.json
  std::string rule;       // "lowprec_multiple", ...
  bool passed = false;
  bool compared = false;  // a compare report exists
  double max_abs = 0;
  std::string failure;  // the first failed condition
  std::optional<WorstElement> worst;
};

struct NumericsCase {
  std::string id, sweep, op, dtype, variant = "base", group, verdict, reason, case_dir;
  nlohmann::json params = nlohmann::json::object();     // shapes.json values
  nlohmann::json op_params = nlohmann::json::object();  // strings, as the reference saw them
  nlohmann::json knobs = nlohmann::json::object();
  std::map<std::string, std::string> metadata;  // candidate's __metadata__
  std::vector<OutputResult> outputs;
  std::vector<std::string> hints;
  std::vector<WorstElement> localised_worst;
  std::vector<std::string> heatmaps;  // package-relative svg paths

  bool passed() const { return verdict == "pass"; }
  // "error" (attnverify's reference failed) is neither: the case was not judged.
  bool failed() const { return verdict == "fail"; }
  bool is_base() const { return variant.empty() || variant == "base"; }
};

struct InvarianceResult {
  std::string check, group, verdict, tolerance, detail;
  std::vector<std::string> cases;
  double max_abs_diff = 0;
};

struct NumericsEvidence {
  EvidenceFile file;
  std::vector<NumericsCase> cases;
  std::vector<InvarianceResult> invariance;
  std::string shapes, shapes_sha256, tolerances, tolerances_sha256;
};

// ---- evidence/resources.json (attnverify.resources/1) ----
struct KernelSide {
  int64_t registers = -1, spill_store_bytes = -1, spill_load_bytes = -1;
  int64_t static_smem_bytes = -1, dynamic_smem_bytes = -1, total_smem_bytes = -1,
          smem_cap_bytes = -1;
  bool ptxas_overflow = false;
  int64_t overflow_bytes = -1, overflow_max_bytes = -1;
  int64_t warps_per_sm = -1;
  int64_t barriers = -1, smem_headroom_bytes = INT64_MIN;  // INT64_MIN: not recorded
};

struct KernelResourceRow {
  std::string kernel, arch, change;
  std::string pairing;  // "same", "signature_changed", "head_only", "base_only"; "" in /1
  std::optional<KernelSide> base, head;
};

struct GateRow {
  std::string gate, rule;
  bool enabled = true, skipped = false, passed = false;
  // "pass", "fail" or "missing" (nothing to judge: `reason` says why); empty in files that
  // only have skipped/passed.
  std::string status, reason;
  std::vector<std::string> failures;
};

struct ResourcesEvidence {
  EvidenceFile file;
  std::string status, missing_reason, nvcc_version, head_ref, base_ref, head_log, base_log;
  bool has_base = false;
  std::vector<std::string> archs;
  std::vector<KernelResourceRow> kernels;
  std::vector<GateRow> gates;
  std::vector<std::string> warnings;  // the build's own (the base did not build, ...)
  // [[build.kernel]] entries that named no kernel: "deep_gemm::fp8_gemm_kernel (line 12)".
  std::vector<std::string> unmatched_kernel_entries;
};

// ---- evidence/review.json (attnverify.review/1) ----
struct ReviewFinding {
  std::string id, rule, severity, component, file, title, message, old_text, new_text, verify;
  int64_t line = 0, end_line = 0;
  int checklist_item = 0;          // 1..8; 0 when the reviewer did not say
  std::vector<int> related_items;  // further items the finding bears on
};

struct ReviewDiff {
  std::string component, path, sha256;
};

// A value of the package's own config (tolerances.json, shapes.json, attnverify.toml
// [policy]) that the reviewed range changed.
struct ConfigChange {
  std::string file, json_path;       // "config/tolerances.json", "$.ops.mla_decode.o.*.rtol"
  std::string old_value, new_value;  // JSON text; "null" when added or removed
  std::string effect;                // "loosened", "tightened", "changed", "added", "removed"
  std::string finding;               // the finding that raises it ("F003")
};

struct ReviewEvidence {
  EvidenceFile file;
  std::string reviewer, base, base_commit, head_commit;
  bool config_reviewed = false;  // the reviewer compared the package's own config
  std::vector<ConfigChange> config_changes;
  std::vector<ReviewDiff> diffs;
  std::vector<ReviewFinding> findings;
};

// ---- evidence/run.json: the stage ledger (schema/run_json.h) ----
struct ReportRunEvidence {
  EvidenceFile file;
  RunLedger ledger;
  const StageEntry* Stage(std::string_view name) const { return ledger.Stage(name); }
};

// A file some evidence names, with what the package holds now (checked for item 8).
struct ReferencedFile {
  std::string path;             // as cited (package-relative when inside the package)
  std::string cited_by;         // "evidence/review.json $.diffs[0]"
  std::string expected_sha256;  // empty: the citing file records no digest
  std::string actual_sha256;    // empty when the file does not exist
  bool exists = false;
};

struct HeatmapSvg {
  std::string path;  // package-relative
  std::string case_id;
  std::string svg;  // file contents (the HTML writer embeds them)
};

struct Evidence {
  std::optional<NumericsEvidence> numerics;
  std::optional<ResourcesEvidence> resources;
  std::optional<ReviewEvidence> review;
  std::optional<EvidenceFile> slice;
  std::optional<EvidenceFile> perf;
  std::optional<profile::PerfDoc> perf_doc;  // perf.json read whole (profile/perf_model.h)
  std::optional<ReportRunEvidence> run;
  std::vector<ReferencedFile> referenced;
  std::vector<HeatmapSvg> heatmaps;
  std::string config_sha256;  // of attnverify.toml (the policy is evidence too)
};

// Parsers of one file's text; `path` (package-relative) names it in errors and in the result.
Result<NumericsEvidence> ParseNumericsEvidence(std::string_view text, const std::string& path);
Result<ResourcesEvidence> ParseResourcesEvidence(std::string_view text, const std::string& path);
Result<ReviewEvidence> ParseReviewEvidence(std::string_view text, const std::string& path);
Result<ReportRunEvidence> ParseRunEvidence(std::string_view text, const std::string& path);
// slice.json and perf.json: only schema-free provenance (command, tool) is read.
Result<EvidenceFile> ParseProvenanceOnly(std::string_view text, const std::string& path);

struct EvidenceRequest {
  std::string package_dir;  // absolute
  std::string config_path;  // attnverify.toml as the user named it (for derived commands)
  std::string numerics_evidence = "evidence/numerics.json";  // package-relative
};

// Reads every evidence file of the package that exists, the files they cite (sha256 and
// existence) and the heatmaps of failing cases.
Result<Evidence> LoadEvidence(const EvidenceRequest& request);

}  // namespace av
