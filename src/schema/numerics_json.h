// evidence/numerics.json as one model: `attnverify numerics` writes a NumericsRecord
// (sweep/numerics_report.h builds it from the run), `attnverify merge` reads shards into
// it and writes the merged one, and the report reads it. Schema /2 adds the provenance
// block and stores commands as argv; /1 files (a "command" line, "candidate_command" as
// text) are still read. Paths are package-relative. Format:
// doc/formats/numerics-json.md. Pure values; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json_value.h"
#include "core/status.h"
#include "schema/compare_json.h"
#include "schema/outcome.h"
#include "schema/provenance.h"

namespace av {

inline constexpr const char* kNumericsJsonSchema = "attnverify.numerics/2";
inline constexpr const char* kNumericsJsonSchemaV1 = "attnverify.numerics/1";

// One of a failing case's worst elements, with named coordinates (numerics/localise.h).
struct LocalisedElement {
  std::string output;
  // Named axes ("batch", "row", "head", "channel"; "i0", "i1", ... for a compare report's
  // flat index), outermost first.
  std::vector<std::pair<std::string, int64_t>> coords;
  double candidate = 0, reference = 0, abs_err = 0, error_over_tolerance = 0;
};

struct NumericsOutput {
  std::string name;
  std::string tolerance;  // JSON path of its rule in tolerances.json
  bool passed = false;
  std::optional<CompareRecord> compare;  // absent: never compared (the candidate failed first)

  bool compared() const { return compare.has_value(); }
  std::string rule() const;     // the rule's name; "" when not compared
  double max_abs() const;       // 0 when not compared
  std::string failure() const;  // the first failed condition, or ""
  // The largest |error| element of the comparison, coordinates "i0", "i1", ...
  std::optional<LocalisedElement> worst() const;
};

struct CandidateRecord {
  std::string status;                           // "exit 0", "timed out after 10 s", ...
  std::map<std::string, std::string> metadata;  // the outputs' __metadata__
  std::string stderr_tail;                      // of a failed run
};

struct CaseDurations {
  double generate = 0, candidate = 0, reference = 0, compare = 0, check = 0, total = 0;
};

struct NumericsCase {
  std::string id, sweep, op, dtype;
  JsonValue params;     // the shapes.json parameters (an object)
  JsonValue op_params;  // the reference op's parameters, as strings (an object)
  JsonValue knobs;      // case.json "knobs" (an object)
  uint64_t seed = 0;
  int64_t index = 0;  // position in the full expansion
  std::string variant = "base";
  std::string group;  // the base case's id; empty in /1 files for a base case
  CaseVerdict verdict = CaseVerdict::kFail;
  std::string reason;
  std::vector<NumericsOutput> outputs;
  std::string reference_impl, inputs_sha256, outputs_sha256;
  CandidateRecord candidate;
  CaseDurations durations_ms;
  std::string case_dir;      // package-relative
  std::string compare_from;  // the base case whose comparison was taken over; "" none
  bool drawn = false;        // drawn by the run from the sweep's parameter space
  // "oracle" when the fast reference's judgement was re-judged by the oracle (whose
  // verdict stands), and why: "fail", "margin" or "sample"; "" when not.
  std::string refereed_by, referee_reason;
  // Failing cases: localisation hints, worst elements, heatmaps (package-relative).
  std::vector<std::string> hints;
  std::vector<LocalisedElement> localised_worst;
  std::vector<std::string> heatmaps;

  bool passed() const { return verdict == CaseVerdict::kPass; }
  // kError (attnverify's reference failed) is neither: the case was not judged.
  bool failed() const { return verdict == CaseVerdict::kFail; }
  bool is_base() const { return variant.empty() || variant == "base"; }
  const std::string& group_id() const { return group.empty() ? id : group; }
};

struct InvarianceRecord {
  std::string check, group;
  std::vector<std::string> cases;
  InvarianceVerdict verdict = InvarianceVerdict::kPass;
  double max_abs_diff = 0;
  std::string tolerance, detail;
};

struct NumericsConfigRecord {
  std::string attnverify_toml;  // package-relative paths, and the digests of the bytes read
  std::string shapes, shapes_sha256, tolerances, tolerances_sha256;
  std::vector<std::string> candidate_argv;  // [candidate] command, the template
  std::string legacy_candidate_command;     // schema /1: the template space-joined
  std::string input_generator;
  // The run's salt (16 hex digits; sweep/rng.h StreamKey): `numerics --salt` with it draws
  // the same inputs and drawn cases again. "" in files written before salts existed.
  std::string salt;
  // The fast reference's kernels on the machine that ran the sweep (DescribeFastKernels):
  // their last bits differ between builds, within the referee's agreement bound.
  std::string fast_kernels;
};

struct MergedShard {
  std::string path, sha256;
  int64_t index = 0, count = 1;
};

struct ShardRecord {
  int64_t index = 0, count = 1;  // --shard i/N; 0/1 unsharded and merged
  bool merged = false;           // written by `attnverify merge`
  std::vector<MergedShard> merged_from;
  std::vector<int64_t> missing;
};

struct TimeSummary {
  double generate = 0, candidate = 0, reference = 0, compare = 0, check = 0, other = 0, total = 0;
  double overhead_fraction = 0;
};

struct NumericsSummary {
  int64_t cases_total = 0, cases_run = 0, passed = 0, failed = 0;
  double wall_ms = 0;
  std::optional<double> wall_ms_sum;  // merged only
  TimeSummary time_ms;
  std::map<std::string, std::map<std::string, int64_t>> invariance;  // check -> verdict -> n
};

struct PrepareRecord {
  std::vector<std::string> argv;  // [candidate] prepare
  std::string legacy_command;     // schema /1
  std::string status;             // "exit 0", "timed out after 600 s", "did not start"
  double wall_ms = 0;
};

// How the candidate was contained (doc/formats/candidate-protocol.md "Containment").
struct ContainmentRecord {
  std::string sandbox = "none";              // "bwrap" or "none"
  std::vector<std::string> package_changes;  // package files the candidate changed
  int64_t leftover_processes = 0;            // processes it left running, killed
  std::vector<std::string> warnings;
};

// What makes the shards of one sweep one run (doc/formats/numerics-json.md, "Run
// identity"): `merge` refuses shards whose identities differ in any key. Keys written by
// `numerics`: sweep_id (--sweep-id, shared by the shards of one submission), config_sha256
// (attnverify.toml), shapes_sha256, tolerances_sha256, cases_sha256 (the full expansion's
// case ids in order), shard_count, shard_plan_sha256, filter, candidate_argv_sha256 (of config.candidate_argv,
// each word NUL-ended), input_generator, tool_version. A string per key so that a stage may add its own.
using RunIdentity = std::map<std::string, std::string>;

// A case the tests skipped (`judge --skipped`, the pytest plugin): not judged, not
// counted as run, pass or fail; its file is narrower than its sweep (doc/formats/numerics-json.md).
struct SkippedCaseRecord {
  std::string id, op, reason;
};

struct NumericsRecord {
  std::string schema = kNumericsJsonSchema;  // as read ("" when absent); written: always /2
  Provenance provenance;
  bool has_provenance = false;
  std::string legacy_command;  // schema /1's "command" line: shown, never parsed
  std::string tool_version;
  NumericsConfigRecord config;
  ShardRecord shard;
  RunIdentity run_identity;  // empty in files that predate it (and in merged files)
  std::string filter;
  NumericsSummary summary;
  CaseVerdict verdict = CaseVerdict::kFail;  // pass or fail
  std::optional<PrepareRecord> prepare;
  std::optional<ContainmentRecord> containment;  // absent in files that predate it
  std::vector<NumericsCase> cases;
  std::vector<InvarianceRecord> invariance;
  std::vector<SkippedCaseRecord> skipped;  // "skipped"; absent when none
};

nlohmann::json NumericsToJson(const NumericsRecord& record);
// Strict: errors name `path` and the JSON path. Absent optional fields keep defaults.
Result<NumericsRecord> ParseNumerics(std::string_view text, const std::string& path);

// summary.time_ms from the cases: each duration summed, "other" = total less the named
// parts (bookkeeping), overhead_fraction = (generate + compare + check + other) / total.
TimeSummary SumCaseTimes(const std::vector<NumericsCase>& cases);

}  // namespace av
