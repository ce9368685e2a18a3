// `attnverify run` as a library call: run each planned stage as a child process of the
// attnverify binary (so a crash or a hang in one stage is recorded, not fatal), keep
// going when one fails, save each stage's output to logs/run-<stage>.log and the record
// to evidence/run.json (before the report stage, so the manifest covers it).
// Format: doc/run.md. One call at a time per package folder.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "pipeline/run_config.h"

namespace av {

inline constexpr const char* kRunJsonSchema = "attnverify.run/1";

struct StageRecord {
  std::string name;
  std::vector<std::string> argv;
  // "ok" (exit 0), "rejected" (exit 1: the stage's evidence says no), "error" (exit 2/3,
  // crash, timeout, could not start), "skipped".
  std::string status;
  int exit_code = -1;
  std::string reason;  // skip reason, or why it failed (last stderr line, signal, timeout)
  std::string log;     // package-relative path of the stage's output
  int64_t wall_ms = 0;
  std::string stdout_text, stderr_text;
};

struct PipelineOptions {
  RunConfig config;
  std::string base_override;  // run --base
  std::string self_exe;       // the attnverify binary that runs each stage
  std::string command;        // this run's command line, recorded
  ProcessRunner* runner = nullptr;
  std::function<void(const StagePlan&)> on_stage_start;
  std::function<void(const StageRecord&)> on_stage_done;
};

struct PipelineRecord {
  std::vector<StageRecord> stages;
  // The report stage's exit code: 0 accepted, 1 rejected or incomplete; -1 not run.
  int report_exit_code = -1;
};

// An error Status only when the package itself cannot be written (logs/, evidence/).
Result<PipelineRecord> RunPipeline(const PipelineOptions& options);

// evidence/run.json: every stage before the report.
nlohmann::json PipelineRecordToJson(const PipelineRecord& record, const PipelineOptions& options);

// The last non-empty line of a stage's stderr (else stdout), for one-line reasons.
std::string LastLine(const std::string& text);

}  // namespace av
