#include "pipeline/pipeline.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "pipeline/stage_ledger.h"

namespace av {
namespace {

namespace fs = std::filesystem;

Status EnsureDir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir.string() + ": cannot create the folder: " + ec.message());
  return Status::Ok();
}

// For the log's first line only (the ledger keeps the argv).
std::string Render(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=:,+@%~") == std::string::npos;
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? a : q + "'");
  }
  return out;
}

// The stage's ledger entry before it runs: "started, did not finish" until it has.
StageEntry StartEntry(const PipelineOptions& options, const StagePlan& plan,
                      const std::string& run_id) {
  StageEntry e;
  e.name = plan.name;
  e.run_id = run_id;
  e.argv = {options.self_exe};
  e.argv.insert(e.argv.end(), plan.args.begin(), plan.args.end());
  e.cwd = options.cwd;
  e.package = options.config.base_dir;
  e.started = UtcNowRfc3339();
  if (!plan.skip_reason.empty()) {
    e.status = StageStatus::kSkipped;
    e.reason = plan.skip_reason;
  } else {
    e.status = StageStatus::kError;
    e.reason = "started " + e.started + " and did not finish (attnverify run was stopped)";
  }
  return e;
}

// Runs one stage; never fails as a Status (a stage that cannot start is an "error" record).
void RunStage(const PipelineOptions& options, StageRecord* rec) {
  StageEntry& e = rec->entry;
  ProcessRequest req;
  req.argv = e.argv;
  // The caller's working directory, as if the user had typed the stage: relative paths
  // on the command line and in attnverify.toml mean the same in both.
  req.timeout_ms = options.config.stage_timeout_s * 1000;
  req.extra_env[kRunIdEnv] = e.run_id;
  // Stages run in a scrubbed environment; the agent stage alone gets the provider's key
  // variable (in its environment only: never in argv or a file).
  if (e.name == "agent" && !options.config.key_env.empty()) {
    if (const char* key = std::getenv(options.config.key_env.c_str())) {
      req.extra_env[options.config.key_env] = key;
    }
  }
  Result<ProcessResult> r = options.runner->Run(req);
  e.finished = UtcNowRfc3339();
  if (!r.ok()) {
    e.reason = r.status().message();
    return;
  }
  e.wall_ms = r->wall_ms;
  rec->stdout_text = r->stdout_text;
  rec->stderr_text = r->stderr_text;
  if (r->exited) e.exit_code = r->exit_code;
  if (r->ok()) {
    e.status = StageStatus::kOk;
    e.reason.clear();
  } else if (r->exited && r->exit_code == 1) {
    e.status = StageStatus::kRejected;
    e.reason = "exit 1: the evidence says no";
  } else {
    e.status = StageStatus::kError;
    std::string last = LastLine(r->stderr_text.empty() ? r->stdout_text : r->stderr_text);
    e.reason = r->Describe() + (last.empty() ? "" : ": " + last);
  }
}

Status WriteStageLog(const PipelineOptions& options, StageRecord* rec) {
  // The report stage's output is reports/acceptance.*, and a log written after its
  // manifest.json would show up as a file the manifest does not know.
  StageEntry& e = rec->entry;
  if (rec->skipped() || e.name == "report") return Status::Ok();
  e.log = "logs/run-" + e.name + ".log";
  std::string text = "$ " + Render(e.argv) + "\n" + rec->stdout_text;
  if (!rec->stderr_text.empty()) text += "--- stderr ---\n" + rec->stderr_text;
  text += std::string("--- ") + StageStatusName(e.status) +
          (e.reason.empty() ? "" : ": " + e.reason) + " ---\n";
  const std::string path = (fs::path(options.config.base_dir) / e.log).string();
  AV_RETURN_IF_ERROR(WriteFileAtomically(path, text));
  e.log_sha256 = Sha256Hex(text);
  return Status::Ok();
}

}  // namespace

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t begin = text.rfind('\n', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(begin, end - begin + 1);
}

Result<PipelineRecord> RunPipeline(const PipelineOptions& options) {
  const std::string root = options.config.base_dir;
  for (const char* dir : {"logs", "evidence", "reports"})
    AV_RETURN_IF_ERROR(EnsureDir(fs::path(root) / dir));
  PipelineRecord record;
  record.run_id = options.run_id.empty() ? NewRunId() : options.run_id;
  // Stages this run does not plan keep their entries (and so their evidence's binding).
  RunLedger ledger = LoadLedgerOrEmpty(root, &record.ledger_warning);
  ledger.run_id = record.run_id;
  ledger.argv = options.argv;
  ledger.cwd = options.cwd;
  ledger.package = root;
  ledger.config = fs::path(options.config.path).filename().string();
  ledger.base = options.base_override.empty() ? options.config.base : options.base_override;
  const std::vector<StagePlan> plan = PlanStages(options.config, options.base_override);
  std::vector<std::string> names;
  for (const StagePlan& p : plan) names.push_back(p.name);
  const std::vector<std::string> excluded = SnapshotExclusions(root);
  const std::vector<std::string> ignored = SnapshotIgnored(names);
  for (const StagePlan& p : plan) {
    StageRecord rec;
    rec.entry = StartEntry(options, p, record.run_id);
    const bool recorded = p.name != "report";
    if (recorded) {
      ledger.Put(rec.entry);
      AV_RETURN_IF_ERROR(WriteLedger(root, ledger));
    }
    if (options.on_stage_start) options.on_stage_start(p);
    if (!rec.skipped()) {
      const PackageSnapshot before = TakePackageSnapshot(root, excluded, ignored);
      RunStage(options, &rec);
      // Taken before anything else writes: what differs now, the stage wrote.
      if (recorded) {
        rec.entry.outputs =
            WrittenFiles(root, before, TakePackageSnapshot(root, excluded, ignored));
      }
    }
    AV_RETURN_IF_ERROR(WriteStageLog(options, &rec));
    if (recorded) {
      ledger.Put(rec.entry);
      AV_RETURN_IF_ERROR(WriteLedger(root, ledger));
    } else if (rec.entry.status != StageStatus::kError && !rec.skipped()) {
      record.report_exit_code = rec.entry.exit_code;
    }
    if (options.on_stage_done) options.on_stage_done(rec);
    record.stages.push_back(std::move(rec));
  }
  return record;
}

}  // namespace av
