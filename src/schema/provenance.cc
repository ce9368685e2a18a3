#include "schema/provenance.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/sha256.h"
#include "core/version.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool ValidRunId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string FormatUtc(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

fs::path Absolute(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(fs::path(p), ec);
  return (ec ? fs::path(p) : abs).lexically_normal();
}

}  // namespace

std::string NewRunId() {
  if (const char* env = std::getenv(kRunIdEnv); env != nullptr && ValidRunId(env)) return env;
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%06x", static_cast<unsigned>(rd()) & 0xFFFFFFu);
  return FormatUtc("%Y%m%dT%H%M%SZ") + "-" + suffix;
}

std::string UtcNowRfc3339() { return FormatUtc("%Y-%m-%dT%H:%M:%SZ"); }

Provenance StartProvenance(std::string stage, std::vector<std::string> argv) {
  Provenance p;
  p.run_id = NewRunId();
  p.stage = std::move(stage);
  p.argv = std::move(argv);
  std::error_code ec;
  p.cwd = fs::current_path(ec).string();
  p.started = UtcNowRfc3339();
  p.tool_version = ATTNVERIFY_VERSION;
  return p;
}

std::string PackageRelative(const std::string& package_dir, const std::string& path) {
  if (path.empty()) return path;
  const fs::path abs = Absolute(path);
  if (package_dir.empty()) return abs.generic_string();
  const fs::path rel = abs.lexically_relative(Absolute(package_dir));
  if (!rel.empty() && *rel.begin() != ".." && rel != ".") return rel.generic_string();
  return abs.generic_string();
}

std::string ResolveInPackage(const std::string& package_dir, const std::string& recorded) {
  if (recorded.empty() || fs::path(recorded).is_absolute()) return recorded;
  return (Absolute(package_dir) / recorded).lexically_normal().string();
}

void AddInput(Provenance* p, const std::string& package_dir, const std::string& path,
              std::string_view bytes) {
  p->inputs.push_back({PackageRelative(package_dir, path), Sha256Hex(bytes)});
}

Status AddInputFile(Provenance* p, const std::string& package_dir, const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string sha, Sha256File(path));
  p->inputs.push_back({PackageRelative(package_dir, path), std::move(sha)});
  return Status::Ok();
}

json ProvenanceToJson(const Provenance& p) {
  json inputs = json::array();
  for (const InputDigest& d : p.inputs) inputs.push_back({{"path", d.path}, {"sha256", d.sha256}});
  return {{"run_id", p.run_id},
          {"stage", p.stage},
          {"argv", p.argv},
          {"cwd", p.cwd},
          {"config", p.config},
          {"head_commit", p.head_commit},
          {"inputs", std::move(inputs)},
          {"started", p.started},
          {"finished", p.finished},
          {"tool", {{"name", p.tool_name}, {"version", p.tool_version}}}};
}

Status ParseProvenance(const JsonReader& in, const json& doc, Provenance* out, bool* present) {
  *present = false;
  AV_ASSIGN_OR_RETURN(const json* p, in.Object(doc, "provenance", "$"));
  if (p == nullptr) return Status::Ok();
  *present = true;
  const std::string w = "$.provenance";
  for (auto [key, field] : {std::pair{"run_id", &out->run_id},
                            {"stage", &out->stage},
                            {"cwd", &out->cwd},
                            {"config", &out->config},
                            {"head_commit", &out->head_commit},
                            {"started", &out->started},
                            {"finished", &out->finished}}) {
    AV_RETURN_IF_ERROR(in.Str(*p, key, w, field));
  }
  if (out->run_id.empty()) return in.Error(w + ".run_id", "missing");
  AV_RETURN_IF_ERROR(in.Strings(*p, "argv", w, &out->argv));
  AV_ASSIGN_OR_RETURN(const json* inputs, in.Array(*p, "inputs", w));
  for (size_t i = 0; inputs != nullptr && i < inputs->size(); ++i) {
    const std::string iw = JsonReader::Index(w + ".inputs", i);
    if (!(*inputs)[i].is_object()) return in.Error(iw, "must be an object");
    InputDigest d;
    AV_RETURN_IF_ERROR(in.Str((*inputs)[i], "path", iw, &d.path));
    AV_RETURN_IF_ERROR(in.Str((*inputs)[i], "sha256", iw, &d.sha256));
    if (d.path.empty()) return in.Error(iw + ".path", "missing");
    out->inputs.push_back(std::move(d));
  }
  AV_ASSIGN_OR_RETURN(const json* tool, in.Object(*p, "tool", w));
  if (tool != nullptr) {
    AV_RETURN_IF_ERROR(in.Str(*tool, "name", w + ".tool", &out->tool_name));
    AV_RETURN_IF_ERROR(in.Str(*tool, "version", w + ".tool", &out->tool_version));
  }
  return Status::Ok();
}

}  // namespace av
