#include "schema/run_json.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/json_reader.h"

namespace av {
namespace {

using nlohmann::json;

// The order stages are listed in (the order `attnverify run` runs them); others go last.
constexpr std::string_view kStageOrder[] = {"slice", "review", "build", "numerics", "merge"};

size_t StageRank(std::string_view name) {
  auto it = std::find(std::begin(kStageOrder), std::end(kStageOrder), name);
  return static_cast<size_t>(it - std::begin(kStageOrder));
}

// The strict reader every evidence file is read with (duplicate keys, depth, 1e400 refused).
using Reader = JsonReader;

Status ParseOutputs(const Reader& in, const json& s, const std::string& where, StageEntry* e) {
  const json* outputs = Reader::Get(s, "outputs");
  if (outputs == nullptr) return Status::Ok();
  if (!outputs->is_array()) return in.Error(where + ".outputs", "must be an array");
  for (size_t i = 0; i < outputs->size(); ++i) {
    const std::string w = where + ".outputs[" + std::to_string(i) + "]";
    const json& o = (*outputs)[i];
    if (!o.is_object()) return in.Error(w, "must be an object");
    OutputDigest d;
    AV_RETURN_IF_ERROR(in.Str(o, "path", w, &d.path));
    AV_RETURN_IF_ERROR(in.Str(o, "sha256", w, &d.sha256));
    if (d.path.empty() || d.sha256.empty()) return in.Error(w, "needs \"path\" and \"sha256\"");
    e->outputs.push_back(std::move(d));
  }
  return Status::Ok();
}

Status ParseStage(const Reader& in, const json& s, const std::string& where, StageEntry* e) {
  if (!s.is_object()) return in.Error(where, "must be an object");
  std::string status;
  for (auto [key, field] : {std::pair{"name", &e->name},
                            {"run_id", &e->run_id},
                            {"cwd", &e->cwd},
                            {"package", &e->package},
                            {"status", &status},
                            {"reason", &e->reason},
                            {"log", &e->log},
                            {"log_sha256", &e->log_sha256},
                            {"started", &e->started},
                            {"finished", &e->finished}}) {
    AV_RETURN_IF_ERROR(in.Str(s, key, where, field));
  }
  if (e->name.empty()) return in.Error(where + ".name", "missing");
  std::optional<StageStatus> st = ParseStageStatus(status);
  if (!st) {
    return in.Error(where + ".status",
                    std::string("must be ") + StageStatusWords() + ", got \"" + status + "\"");
  }
  e->status = *st;
  int64_t exit_code = -1;
  AV_RETURN_IF_ERROR(in.Int(s, "exit_code", where, &exit_code));
  e->exit_code = static_cast<int>(std::clamp<int64_t>(exit_code, -1, 255));
  AV_RETURN_IF_ERROR(in.Int(s, "wall_ms", where, &e->wall_ms));
  // /1 files record "command" as one string: it is not split (the argv is unknown).
  if (const json* argv = Reader::Get(s, "argv"); argv != nullptr) {
    AV_RETURN_IF_ERROR(in.Strings(s, "argv", where, &e->argv));
  }
  return ParseOutputs(in, s, where, e);
}

}  // namespace

const OutputDigest* StageEntry::Output(std::string_view path) const {
  for (const OutputDigest& o : outputs) {
    if (o.path == path) return &o;
  }
  return nullptr;
}

const StageEntry* RunLedger::Stage(std::string_view name) const {
  for (const StageEntry& s : stages) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void RunLedger::Put(StageEntry entry) {
  for (StageEntry& s : stages) {
    if (s.name == entry.name) {
      s = std::move(entry);
      return;
    }
  }
  auto at = std::find_if(stages.begin(), stages.end(), [&](const StageEntry& s) {
    return StageRank(s.name) > StageRank(entry.name);
  });
  stages.insert(at, std::move(entry));
}

json RunLedgerToJson(const RunLedger& l) {
  json stages = json::array();
  for (const StageEntry& s : l.stages) {
    json outputs = json::array();
    for (const OutputDigest& o : s.outputs)
      outputs.push_back({{"path", o.path}, {"sha256", o.sha256}});
    json j = {{"name", s.name},
              {"run_id", s.run_id},
              {"argv", s.argv},
              {"cwd", s.cwd},
              {"package", s.package},
              {"status", StageStatusName(s.status)},
              {"exit_code", s.exit_code},
              {"reason", s.reason},
              {"started", s.started},
              {"finished", s.finished},
              {"wall_ms", s.wall_ms},
              {"log", s.log.empty() ? json() : json(s.log)},
              {"log_sha256", s.log_sha256.empty() ? json() : json(s.log_sha256)},
              {"outputs", outputs}};
    stages.push_back(std::move(j));
  }
  json doc = {{"schema", kRunJsonSchemaV2},
              {"tool", {{"name", "attnverify"}, {"version", l.tool_version}}},
              {"run_id", l.run_id},
              {"argv", l.argv},
              {"cwd", l.cwd},
              {"package", l.package},
              {"config", l.config},
              {"base", l.base},
              {"stages", stages}};
  if (!l.seal_mac.empty()) {
    doc["seal"] = {{"alg", "hmac-sha256"}, {"key_id", l.seal_key_id}, {"mac", l.seal_mac}};
  }
  return doc;
}

Result<RunLedger> ParseRunLedger(std::string_view text, const std::string& path) {
  const Reader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  RunLedger l;
  std::string schema;
  AV_RETURN_IF_ERROR(in.Str(doc, "schema", "$", &schema));
  if (schema == "attnverify.run/1") {
    l.schema_version = 1;
  } else if (!schema.empty() && schema != kRunJsonSchemaV2) {
    return in.Error("$.schema", "expected \"attnverify.run/2\" (or /1), got \"" + schema + "\"");
  }
  if (const json* tool = Reader::Get(doc, "tool"); tool != nullptr && tool->is_object()) {
    AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &l.tool_version));
  }
  AV_RETURN_IF_ERROR(in.Str(doc, "run_id", "$", &l.run_id));
  AV_RETURN_IF_ERROR(in.Str(doc, "cwd", "$", &l.cwd));
  AV_RETURN_IF_ERROR(in.Str(doc, "package", "$", &l.package));
  AV_RETURN_IF_ERROR(in.Str(doc, "config", "$", &l.config));
  AV_RETURN_IF_ERROR(in.Str(doc, "base", "$", &l.base));
  if (const json* argv = Reader::Get(doc, "argv"); argv != nullptr) {
    AV_RETURN_IF_ERROR(in.Strings(doc, "argv", "$", &l.argv));
  }
  if (const json* seal = Reader::Get(doc, "seal"); seal != nullptr && !seal->is_null()) {
    if (!seal->is_object()) return in.Error("$.seal", "must be an object");
    std::string alg;
    AV_RETURN_IF_ERROR(in.Str(*seal, "alg", "$.seal", &alg));
    if (alg != "hmac-sha256")
      return in.Error("$.seal.alg", "expected \"hmac-sha256\", got \"" + alg + "\"");
    AV_RETURN_IF_ERROR(in.Str(*seal, "key_id", "$.seal", &l.seal_key_id));
    AV_RETURN_IF_ERROR(in.Str(*seal, "mac", "$.seal", &l.seal_mac));
    if (l.seal_mac.empty()) return in.Error("$.seal.mac", "missing");
  }
  const json* stages = Reader::Get(doc, "stages");
  if (stages != nullptr && !stages->is_array()) return in.Error("$.stages", "must be an array");
  for (size_t i = 0; stages != nullptr && i < stages->size(); ++i) {
    StageEntry e;
    AV_RETURN_IF_ERROR(ParseStage(in, (*stages)[i], "$.stages[" + std::to_string(i) + "]", &e));
    if (l.schema_version == 1) e.run_id.clear();  // /1 had no run ids; never bound
    if (l.Stage(e.name) != nullptr) {
      return in.Error("$.stages[" + std::to_string(i) + "].name",
                      "stage \"" + e.name + "\" is listed twice");
    }
    l.stages.push_back(std::move(e));
  }
  return l;
}

}  // namespace av
