// `attnverify run` as a library call: run each planned stage as a child process of the
// attnverify binary (so a crash or a hang in one stage is recorded, not fatal), keep
// going when one fails, save each stage's output to logs/run-<stage>.log, and keep the
// stage ledger evidence/run.json (schema/run_json.h): the run gets one id, every stage
// runs with it in ATTNVERIFY_RUN_ID, and right after a stage ends this process records
// how it ended and the sha256 of every file it wrote, then rewrites run.json from its own
// memory (so nothing a stage or its candidate writes can forge the record). The report
// stage runs last and is not recorded (its manifest covers run.json).
// Format: doc/run.md, doc/formats/run-json.md. One call at a time per package folder.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "pipeline/run_config.h"
#include "schema/run_json.h"

namespace av {

// One stage as this run saw it: its ledger entry and its output (for the console).
struct StageRecord {
  StageEntry entry;
  std::string stdout_text, stderr_text;
  bool skipped() const { return entry.status == StageStatus::kSkipped; }
};

struct PipelineOptions {
  RunConfig config;
  std::string base_override;      // run --base
  std::string self_exe;           // the attnverify binary that runs each stage
  std::vector<std::string> argv;  // this run's command line ({"attnverify", "run", ...})
  std::string cwd;                // where it was typed (absolute)
  std::string run_id;             // empty: a new one (NewRunId)
  ProcessRunner* runner = nullptr;
  std::function<void(const StagePlan&)> on_stage_start;
  std::function<void(const StageRecord&)> on_stage_done;
};

struct PipelineRecord {
  std::string run_id;
  std::vector<StageRecord> stages;
  // The report stage's exit code: 0 accepted, 1 rejected or incomplete; -1 not run.
  int report_exit_code = -1;
  // A run.json that did not parse was replaced: the reason (printed as a warning).
  std::string ledger_warning;
};

// An error Status only when the package itself cannot be written (logs/, evidence/).
Result<PipelineRecord> RunPipeline(const PipelineOptions& options);

// The last non-empty line of a stage's stderr (else stdout), for one-line reasons.
std::string LastLine(const std::string& text);

}  // namespace av
