#include "pipeline/pipeline.h"

#include <filesystem>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "core/version.h"

namespace av {
namespace {

namespace fs = std::filesystem;

Status EnsureDir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir.string() + ": cannot create the folder: " + ec.message());
  return Status::Ok();
}

std::string Join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

// Runs one stage; never fails as a Status (a stage that cannot start is an "error" record).
StageRecord RunStage(const PipelineOptions& options, const StagePlan& plan) {
  StageRecord rec;
  rec.name = plan.name;
  rec.argv = {options.self_exe};
  rec.argv.insert(rec.argv.end(), plan.args.begin(), plan.args.end());
  if (!plan.skip_reason.empty()) {
    rec.status = "skipped";
    rec.reason = plan.skip_reason;
    return rec;
  }
  ProcessRequest req;
  req.argv = rec.argv;
  // The caller's working directory, as if the user had typed the stage: relative paths
  // on the command line and in attnverify.toml mean the same in both.
  req.timeout_ms = options.config.stage_timeout_s * 1000;
  Result<ProcessResult> r = options.runner->Run(req);
  if (!r.ok()) {
    rec.status = "error";
    rec.reason = r.status().message();
    return rec;
  }
  rec.wall_ms = r->wall_ms;
  rec.stdout_text = r->stdout_text;
  rec.stderr_text = r->stderr_text;
  if (r->exited) rec.exit_code = r->exit_code;
  if (r->ok()) {
    rec.status = "ok";
  } else if (r->exited && r->exit_code == 1) {
    rec.status = "rejected";
    rec.reason = "exit 1: the evidence says no";
  } else {
    rec.status = "error";
    std::string last = LastLine(r->stderr_text.empty() ? r->stdout_text : r->stderr_text);
    rec.reason = r->Describe() + (last.empty() ? "" : ": " + last);
  }
  return rec;
}

Status WriteStageLog(const PipelineOptions& options, StageRecord* rec) {
  // The report stage's output is reports/acceptance.*, and a log written after its
  // manifest.json would show up as a file the manifest does not know.
  if (rec->status == "skipped" || rec->name == "report") return Status::Ok();
  rec->log = "logs/run-" + rec->name + ".log";
  std::string text = "$ " + Join(rec->argv) + "\n" + rec->stdout_text;
  if (!rec->stderr_text.empty()) text += "--- stderr ---\n" + rec->stderr_text;
  text += "--- " + rec->status + (rec->reason.empty() ? "" : ": " + rec->reason) + " ---\n";
  return WriteFileAtomically((fs::path(options.config.base_dir) / rec->log).string(), text);
}

}  // namespace

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t begin = text.rfind('\n', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(begin, end - begin + 1);
}

nlohmann::json PipelineRecordToJson(const PipelineRecord& record, const PipelineOptions& options) {
  nlohmann::json stages = nlohmann::json::array();
  for (const StageRecord& s : record.stages) {
    nlohmann::json j{{"name", s.name},           {"command", Join(s.argv)}, {"status", s.status},
                     {"exit_code", s.exit_code}, {"reason", s.reason},      {"wall_ms", s.wall_ms}};
    if (!s.log.empty()) {
      j["log"] = s.log;
      Result<std::string> sha = Sha256File((fs::path(options.config.base_dir) / s.log).string());
      j["log_sha256"] = sha.ok() ? *sha : "";
    }
    stages.push_back(std::move(j));
  }
  return nlohmann::json{
      {"schema", kRunJsonSchema},
      {"tool", {{"name", "attnverify"}, {"version", ATTNVERIFY_VERSION}}},
      {"command", options.command},
      {"config", options.config.path},
      {"base", options.base_override.empty() ? options.config.base : options.base_override},
      {"stages", stages}};
}

Result<PipelineRecord> RunPipeline(const PipelineOptions& options) {
  const fs::path root = options.config.base_dir;
  for (const char* dir : {"logs", "evidence", "reports"}) AV_RETURN_IF_ERROR(EnsureDir(root / dir));
  PipelineRecord record;
  for (const StagePlan& plan : PlanStages(options.config, options.base_override)) {
    if (plan.name == "report") {
      // The record is written first so the report's manifest covers it.
      AV_RETURN_IF_ERROR(WriteFileAtomically((root / "evidence/run.json").string(),
                                             JsonFileText(PipelineRecordToJson(record, options))));
    }
    if (options.on_stage_start) options.on_stage_start(plan);
    StageRecord rec = RunStage(options, plan);
    AV_RETURN_IF_ERROR(WriteStageLog(options, &rec));
    if (plan.name == "report" && rec.status != "skipped" && rec.status != "error") {
      record.report_exit_code = rec.exit_code;
    }
    if (options.on_stage_done) options.on_stage_done(rec);
    record.stages.push_back(std::move(rec));
  }
  if (record.stages.empty() || record.stages.back().name != "report") {
    AV_RETURN_IF_ERROR(WriteFileAtomically((root / "evidence/run.json").string(),
                                           JsonFileText(PipelineRecordToJson(record, options))));
  }
  return record;
}

}  // namespace av
