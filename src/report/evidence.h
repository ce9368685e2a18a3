// Evidence: the facts of an acceptance package, read back from evidence/*.json into one
// value the checklist engine judges. Each file is parsed with its one schema
// (src/schema/: the same model its writer used) and keeps its package-relative path, its
// sha256, its provenance block and the command that produced it. Absent files and absent
// optional fields are fine (the checklist says MISSING); malformed ones are an
// InvalidInput naming the file and the JSON path (`evidence/numerics.json:
// $.cases[3].outputs: must be an array`), never a crash. Pure values; any thread.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "profile/perf_model.h"
#include "report/junit.h"
#include "schema/numerics_json.h"
#include "schema/perf_json.h"
#include "schema/provenance.h"
#include "schema/resources_json.h"
#include "schema/review_json.h"
#include "schema/run_json.h"
#include "schema/run_seal.h"
#include "schema/slice_json.h"

namespace av {

struct EvidenceFile {
  std::string path;    // package-relative: "evidence/numerics.json"
  std::string sha256;  // of the bytes read
  // The command that produced the file, for people: its argv rendered with ShellJoin, or
  // a /1 file's command line as written (never parsed). For a file that records none, the
  // command that would write it.
  std::string command;
  std::string tool_version;
  Provenance provenance;        // run id, stage, argv, cwd, config, inputs
  bool has_provenance = false;  // false: a schema /1 file, bound to no run
  // The binding's view of the provenance (empty in files without one, e.g. schema /1):
  // the run it was written in, the stage that wrote it, the HEAD commit it judged.
  std::string run_id, stage, head_commit;
  // Set by the checklist when it does not use the file (checklist_binding.cc): why.
  std::string refused;
};

// The numerics.json record (schema/numerics_json.h) and the file it came from.
struct NumericsEvidence : NumericsRecord {
  EvidenceFile file;
};

struct ResourcesEvidence : ResourcesRecord {
  EvidenceFile file;
};

struct ReviewEvidence : ReviewReport {
  EvidenceFile file;
};

// pytest's JUnit XML (report/junit.h), when `attnverify report --junit` or [report] junit
// names one: cross-checked against numerics.json by 1.junit_agrees, never judged alone.
struct JUnitEvidence : JUnitReport {
  EvidenceFile file;
};

// ---- evidence/run.json: the stage ledger (schema/run_json.h) ----
struct ReportRunEvidence {
  EvidenceFile file;
  RunLedger ledger;
  // Its seal and the config judged (schema/run_seal.h), set by `attnverify report`;
  // nullopt where evidence is built in memory (tests): then neither is checked.
  std::optional<RunTrust> trust;
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
  std::optional<EvidenceFile> slice;         // read with schema/slice_json.h; the report cites it
  // slice.json's components and their changed files (4.unaligned_gemm asks whether any is
  // GEMM code); empty when slice.json is absent or not used.
  std::vector<SliceComponentRecord> slice_components;
  std::optional<EvidenceFile> perf;          // perf.json as a file (path, sha256, provenance)
  std::optional<profile::PerfDoc> perf_doc;  // and its record (schema/perf_json.h), one parse
  std::optional<ReportRunEvidence> run;
  std::optional<JUnitEvidence> junit;
  std::vector<ReferencedFile> referenced;
  std::vector<HeatmapSvg> heatmaps;
  std::string config_sha256;  // of attnverify.toml (the policy is evidence too)
};

// Parsers of one file's text; `path` (package-relative) names it in errors and in the result.
Result<NumericsEvidence> ParseNumericsEvidence(std::string_view text, const std::string& path);
Result<ResourcesEvidence> ParseResourcesEvidence(std::string_view text, const std::string& path);
Result<ReviewEvidence> ParseReviewEvidence(std::string_view text, const std::string& path);
// slice.json (strictly, with its schema) for its provenance, and its components when
// `components` is given.
Result<EvidenceFile> ParseSliceEvidence(std::string_view text, const std::string& path,
                                        std::vector<SliceComponentRecord>* components = nullptr);
Result<ReportRunEvidence> ParseRunEvidence(std::string_view text, const std::string& path);
// perf.json, parsed once: its record and the file (provenance from the /2 block; a /1
// file has none).
struct PerfEvidence {
  PerfRecord record;
  EvidenceFile file;
};
Result<PerfEvidence> ParsePerfEvidence(std::string_view text, const std::string& path);

struct EvidenceRequest {
  std::string package_dir;  // absolute
  std::string config_path;  // attnverify.toml as the user named it (for derived commands)
  std::string numerics_evidence = "evidence/numerics.json";  // package-relative
  // pytest's JUnit XML to cross-check (absolute, or relative to the package); "" for none.
  // Named, it must exist.
  std::string junit;
};

// Reads every evidence file of the package that exists, the files they cite (sha256 and
// existence, each resolved against the package folder) and the heatmaps of failing cases.
Result<Evidence> LoadEvidence(const EvidenceRequest& request);

}  // namespace av
