// evidence/run.json: the stage ledger of an acceptance package. One entry per stage
// (slice, review, build, numerics, ...) as its latest run left it: the run id it was given,
// its argv and cwd, how it ended, its log, and the sha256 of every file it wrote, taken by
// the process that started it right after it ended (so the stage cannot forge its own
// record). `attnverify run` writes it after every stage; a stage run on its own updates its
// own entry. The report binds each evidence file to its stage's entry with it.
// Format: doc/formats/run-json.md (attnverify.run/2; /1 files are still read). Any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "schema/outcome.h"

namespace av {

inline constexpr const char* kRunJsonSchemaV2 = "attnverify.run/2";

// How a stage ended (StageStatus, schema/outcome.h): ok (exit 0), rejected (exit 1: its
// evidence says no), error (exit 2/3, killed, timed out, could not start, or never
// finished), skipped (not run, with a reason).

struct OutputDigest {
  std::string path;  // package-relative, '/'-separated
  std::string sha256;
};

struct StageEntry {
  std::string name;    // "build"
  std::string run_id;  // the ATTNVERIFY_RUN_ID the stage ran under; empty in /1 files
  std::vector<std::string> argv;
  std::string cwd;      // absolute: where the stage ran
  std::string package;  // absolute: the package folder then (its --config names a file in it)
  StageStatus status = StageStatus::kError;
  int exit_code = -1;  // -1: skipped, killed, never started or never finished
  std::string reason;  // skip reason, or why it failed
  std::string log;     // package-relative; empty when none was written
  std::string log_sha256;
  int64_t wall_ms = 0;
  std::string started, finished;      // RFC 3339 UTC; finished empty while it runs
  std::vector<OutputDigest> outputs;  // every file it wrote, sorted by path

  // The recorded digest of `path` (package-relative), or nullptr when the stage did not
  // write it.
  const OutputDigest* Output(std::string_view path) const;
};

struct RunLedger {
  int schema_version = 2;  // 1: an attnverify.run/1 file (no run ids, no outputs)
  std::string tool_version;
  // The last `attnverify run` that wrote the ledger; empty when only standalone stages did.
  std::string run_id;
  std::vector<std::string> argv;
  std::string cwd;
  std::string package;  // absolute: the package folder when the run started
  std::string config;   // package-relative attnverify.toml the run was given ("attnverify.toml")
  std::string base;
  std::vector<StageEntry> stages;  // in stage order (kRunStages), one per name
  // "seal": the HMAC-SHA256 of the rest under the writer's key (schema/run_seal.h); both
  // empty in a ledger written without one (older attnverify, or no key could be made).
  std::string seal_key_id, seal_mac;

  const StageEntry* Stage(std::string_view name) const;
  // Replaces the entry of that name, or adds it in stage order.
  void Put(StageEntry entry);
};

nlohmann::json RunLedgerToJson(const RunLedger& ledger);
// Strict: errors name `path` and the JSON path ("evidence/run.json: $.stages[0].status: ...").
Result<RunLedger> ParseRunLedger(std::string_view text, const std::string& path);

}  // namespace av
