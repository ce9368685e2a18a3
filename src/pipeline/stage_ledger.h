// Recording stages in evidence/run.json (schema/run_json.h, doc/formats/run-json.md):
// the run id a stage runs under, its entry while it runs and after it ended, and the
// digests of what it wrote. `attnverify run` (pipeline.h) records every stage it starts;
// a stage started on its own (`attnverify build ...`) records its own entry with
// StandaloneStage. Under `run` the environment variable ATTNVERIFY_RUN_ID is set and the
// stage records nothing itself: its parent does, so the stage (and the candidate it
// runs) cannot forge the record. One writer per package at a time (the package lock).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "pipeline/package_snapshot.h"
#include "schema/provenance.h"  // NewRunId, UtcNowRfc3339
#include "schema/run_json.h"

namespace av {

inline constexpr const char* kRunJsonPath = "evidence/run.json";  // package-relative

// ok (0), rejected (1), error (anything else).
StageStatus StatusFromExitCode(int exit_code);

// The ledger the package holds; an empty one when there is no run.json, when it does not
// parse, or when its seal is not this machine's valid seal for this package (edited by
// hand, unsealed, another key or package: `warning` then says so). A ledger that binds
// nothing is replaced, never sealed again with its entries.
RunLedger LoadLedgerOrEmpty(const std::string& package_dir, std::string* warning);
// Writes evidence/run.json sealed with this user's key (schema/run_seal.h), made on first
// use; unsealed when no key can be read or made (the report then says so).
Status WriteLedger(const std::string& package_dir, const RunLedger& ledger);

// The folders a snapshot leaves out: the sweep's work folder ([numerics] work_dir of the
// package's attnverify.toml when it lies inside the package, default "work").
std::vector<std::string> SnapshotExclusions(const std::string& package_dir);
// The files a snapshot leaves out: the ledger itself and the logs `run` writes per stage.
std::vector<std::string> SnapshotIgnored(const std::vector<std::string>& stage_names);

// A stage's entry from the moment it starts: until Finish, the ledger says it started
// and did not finish, so a stage killed before it could record anything is "error".
class StandaloneStage {
 public:
  // Records the start (writes run.json) unless ATTNVERIFY_RUN_ID is set; then it is
  // inactive and records nothing. Sets ATTNVERIFY_RUN_ID for this process (and so for the
  // evidence it writes and the processes it starts) to the new run id.
  static Result<StandaloneStage> Begin(const std::string& package_dir, std::string stage,
                                       std::vector<std::string> argv);
  // Hashes what the stage wrote since Begin and records how it ended.
  Status Finish(int exit_code, std::string reason);

  bool active() const { return active_; }
  const std::string& run_id() const { return entry_.run_id; }
  const RunLedger& ledger() const { return ledger_; }
  // Non-empty when the run.json found at Begin did not parse (and was replaced).
  const std::string& warning() const { return warning_; }

 private:
  bool active_ = false;
  std::string package_dir_;
  RunLedger ledger_;  // as read at Begin: what the stage's children write cannot change it
  StageEntry entry_;
  PackageSnapshot before_;
  std::vector<std::string> excluded_, ignored_;
  int64_t started_ms_ = 0;
  std::string warning_;
};

}  // namespace av
