#include "agent/agent_package.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agent/sent_files.h"
#include "core/file.h"
#include "core/sha256.h"
#include "diff/slice.h"
#include "review/review_config.h"
#include "review/rules.h"

namespace av {
namespace {

namespace fs = std::filesystem;

bool SafeRelative(const std::string& rel) {
  if (rel.empty() || rel[0] == '/') return false;
  for (char c : rel) {
    if (static_cast<unsigned char>(c) < 0x20) return false;
  }
  for (const fs::path& part : fs::path(rel)) {
    if (part == "..") return false;
  }
  return true;
}

Status LoadNumerics(AgentPackage* p) {
  Result<std::string> text = ReadPackageFile(p->package_dir, "evidence/numerics.json");
  if (!text.ok()) {
    return text.status().code() == StatusCode::kNotFound ? Status::Ok() : text.status();
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidInput(p->package_dir + "/evidence/numerics.json: not a JSON object");
  }
  auto cases = j.find("cases");
  if (cases != j.end() && cases->is_array()) {
    for (const nlohmann::json& c : *cases) {
      if (!c.is_object() || !c.contains("id") || !c["id"].is_string()) continue;
      std::string id = c["id"].get<std::string>();
      p->case_ids.insert(id);
      std::string verdict = c.value("verdict", "");
      if (verdict == "pass") continue;
      FailingCase f{id, verdict, c.value("reason", ""), {}};
      if (c.contains("localisation") && c["localisation"].is_object()) {
        const nlohmann::json& hints = c["localisation"].value("hints", nlohmann::json::array());
        for (const nlohmann::json& h : hints) {
          if (h.is_string()) f.hints.push_back(h.get<std::string>());
        }
      }
      p->failing_cases.push_back(std::move(f));
    }
  }
  p->numerics_text = std::move(*text);
  return Status::Ok();
}

std::optional<std::string> Optional(const AgentPackage& p, const std::string& rel) {
  Result<std::string> text = ReadPackageFile(p.package_dir, rel);
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

Status LoadComponents(AgentPackage* p) {
  std::vector<std::pair<std::string, std::string>> entries;  // name, path
  std::map<std::string, std::string> expected_sha;
  const std::string slice_path = p->package_dir + "/evidence/slice.json";
  std::error_code ec;
  if (fs::is_regular_file(slice_path, ec)) {
    AV_ASSIGN_OR_RETURN(SliceRecord record, LoadSliceRecord(slice_path));
    for (const SliceComponentRecord& e : record.components) {
      entries.emplace_back(e.name, e.path);
      expected_sha[e.path] = e.sha256;
    }
  } else {
    for (const fs::directory_entry& e : fs::directory_iterator(p->package_dir + "/diff", ec)) {
      if (e.path().extension() == ".diff" && e.is_regular_file(ec) && !e.is_symlink(ec)) {
        entries.emplace_back(e.path().stem().string(), "diff/" + e.path().filename().string());
      }
    }
    std::sort(entries.begin(), entries.end());
  }
  for (const auto& [name, path] : entries) {
    if (!SafeRelative(path)) return InvalidInput(slice_path + ": component path " + path);
    AV_ASSIGN_OR_RETURN(std::string text, ReadPackageFile(p->package_dir, path));
    auto want = expected_sha.find(path);
    if (want != expected_sha.end() && Sha256Hex(text) != want->second) {
      return InvalidInput(p->package_dir + "/" + path +
                          ": sha256 differs from evidence/slice.json (re-run attnverify slice)");
    }
    if (text.empty()) continue;
    AV_ASSIGN_OR_RETURN(Diff diff, ParseUnifiedDiff(text, path));
    PackageDiff c{name, path, std::move(text), {}, {}};
    c.diff.source = diff.source;
    for (FileDiff& f : diff.files) {
      SentFileDecision d = DecideSentFile(f);
      if (d.send()) {
        c.diff.files.push_back(std::move(f));
      } else {
        c.not_sent.push_back(f.path() + ": " + d.why);
      }
    }
    p->components.push_back(std::move(c));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> ReadPackageFile(const std::string& package_dir, const std::string& rel) {
  if (!SafeRelative(rel)) return InvalidInput(rel + ": not a package-relative path");
  const std::string path = package_dir + "/" + rel;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return NotFound(path + ": no such file");
  AV_ASSIGN_OR_RETURN(std::shared_ptr<OwnedBuffer> buffer,
                      ReadFileToBuffer(path, Links::kRefuse, kMaxPackageFileBytes));
  return std::string(buffer->view());
}

bool AgentPackage::HasFile(const std::string& rel) const {
  if (!SafeRelative(rel)) return false;
  std::error_code ec;
  fs::file_status st = fs::symlink_status(package_dir + "/" + rel, ec);
  return !ec && fs::is_regular_file(st);
}

int64_t AgentPackage::LineCount(const std::string& rel) const {
  Result<std::string> text = ReadPackageFile(package_dir, rel);
  if (!text.ok()) return 0;
  int64_t n = std::count(text->begin(), text->end(), '\n');
  if (!text->empty() && text->back() != '\n') ++n;
  return n;
}

Result<AgentPackage> LoadAgentPackage(const std::string& config_path) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(config_path));
  return LoadAgentPackage(package);
}

Result<AgentPackage> LoadAgentPackage(const PackageConfig& package) {
  AV_ASSIGN_OR_RETURN(ReviewPackageConfig config,
                      ParseReviewPackageConfig(package, BuiltinRuleIds()));
  AgentPackage p;
  p.config_path = package.path();
  p.config = package;
  p.package_dir = config.package_dir;
  p.repo_dir = config.repo_dir;
  p.base = config.base;
  p.reviewer = config.reviewer;
  AV_RETURN_IF_ERROR(LoadComponents(&p));
  AV_RETURN_IF_ERROR(LoadNumerics(&p));
  p.resources_text = Optional(p, "evidence/resources.json");
  p.perf_text = Optional(p, "evidence/perf.json");
  p.checklist_text = Optional(p, "acceptance_checklist.md");
  p.report_text = Optional(p, "reports/acceptance.md");
  std::error_code ec;
  std::vector<std::string> logs;
  for (const fs::directory_entry& e : fs::directory_iterator(p.package_dir + "/logs", ec)) {
    if (e.path().extension() == ".log" && !e.is_symlink(ec) && e.is_regular_file(ec)) {
      logs.push_back("logs/" + e.path().filename().string());
    }
  }
  std::sort(logs.begin(), logs.end());
  for (const std::string& rel : logs) {
    if (auto text = Optional(p, rel)) p.logs[rel] = std::move(*text);
  }
  return p;
}

}  // namespace av
