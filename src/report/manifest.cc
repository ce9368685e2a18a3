#include "report/manifest.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "core/json_reader.h"
#include "core/sha256.h"
#include "compile/nvcc_runner.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool Excluded(const std::string& rel, const std::vector<std::string>& excluded) {
  for (const std::string& e : excluded) {
    if (!e.empty() && e.back() == '/') {
      if (rel.compare(0, e.size(), e) == 0) return true;
    } else if (rel == e) {
      return true;
    }
  }
  return false;
}

// The writer of an atomic write's temporary (core/file.cc: "NAME.tmp.PID.RAND"), when
// `rel` is one.
std::optional<pid_t> TemporaryWriter(const std::string& rel) {
  static const std::regex kTemporary(R"(\.tmp\.([0-9]{1,10})\.[0-9]+$)");
  std::smatch m;
  if (!std::regex_search(rel, m, kTemporary)) return std::nullopt;
  const long long pid = std::stoll(m[1].str());
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return std::nullopt;
  return static_cast<pid_t>(pid);
}

}  // namespace

namespace {

Status LinkedFolderError(const fs::path& link, const std::string& target) {
  return InvalidInput(link.string() + ": a symbolic link to a folder (-> " + target +
                      "): the manifest cannot cover what it holds, and the reports would be "
                      "written outside the package; replace it with a real folder");
}

}  // namespace

Status CheckNoLinkedFolders(const std::string& package_dir,
                            const std::vector<std::string>& excluded) {
  std::error_code ec;
  fs::recursive_directory_iterator it(package_dir, fs::directory_options::none, ec), end;
  if (ec) return IoError(package_dir + ": cannot list the package: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return IoError(package_dir + ": cannot list the package: " + ec.message());
    const std::string rel = it->path().lexically_relative(package_dir).generic_string();
    if (Excluded(rel + "/", excluded)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) && fs::is_directory(it->path(), ec))
      return LinkedFolderError(it->path(), fs::read_symlink(it->path(), ec).string());
  }
  return Status::Ok();
}

Result<PackageListing> ListPackageFiles(const std::string& package_dir,
                                        const std::vector<std::string>& excluded,
                                        bool remove_stale_temporaries) {
  PackageListing out;
  std::error_code ec;
  fs::recursive_directory_iterator it(package_dir, fs::directory_options::none, ec), end;
  if (ec) return IoError(package_dir + ": cannot list the package: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return IoError(package_dir + ": cannot list the package: " + ec.message());
    const fs::directory_entry& entry = *it;
    std::string rel = fs::path(entry.path()).lexically_relative(package_dir).generic_string();
    const bool link = entry.is_symlink(ec);
    if (entry.is_directory(ec) && !link) {
      if (Excluded(rel + "/", excluded)) it.disable_recursion_pending();
      continue;
    }
    if (Excluded(rel, excluded)) continue;
    if (link) {
      const std::string target = fs::read_symlink(entry.path(), ec).string();
      if (fs::is_directory(entry.path(), ec)) {
        if (Excluded(rel + "/", excluded)) continue;
        return LinkedFolderError(entry.path(), target);
      }
      out.files.push_back({rel, Sha256Hex("symlink -> " + target), 0, target});
      out.links.push_back(rel + " -> " + target);
      continue;
    }
    if (!entry.is_regular_file(ec)) continue;
    if (std::optional<pid_t> writer = TemporaryWriter(rel)) {
      if (remove_stale_temporaries && ::kill(*writer, 0) != 0 && errno == ESRCH) {
        fs::remove(entry.path(), ec);
        if (!ec) out.removed_temporaries.push_back(rel);
      } else {
        out.live_temporaries.push_back(rel);
      }
      continue;
    }
    AV_ASSIGN_OR_RETURN(std::string sha, Sha256File(entry.path().string()));
    out.files.push_back({rel, sha, static_cast<int64_t>(entry.file_size(ec)), ""});
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  return out;
}

json ManifestToJson(const Manifest& m) {
  json files = json::array();
  for (const ManifestEntry& f : m.files) {
    json e = {{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}};
    if (!f.link_target.empty()) e["symlink"] = f.link_target;
    files.push_back(std::move(e));
  }
  return {{"schema", kManifestJsonSchema},
          {"tool", {{"name", "attnverify"}, {"version", m.tool_version}}},
          {"nvcc",
           {{"version", m.nvcc_version.empty() ? json() : json(m.nvcc_version)},
            {"source", m.nvcc_source.empty() ? json() : json(m.nvcc_source)}}},
          {"host", m.host},
          {"created_utc", m.created_utc},
          {"excluded", m.excluded},
          {"files", files}};
}

Result<Manifest> ParseManifest(std::string_view text, const std::string& path) {
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(json doc, in.ParseObject(text));
  AV_RETURN_IF_ERROR(in.CheckSchema(doc, {kManifestJsonSchema}, /*absent_ok=*/false));
  Manifest m;
  AV_RETURN_IF_ERROR(in.Strings(doc, "excluded", "$", &m.excluded));
  AV_ASSIGN_OR_RETURN(const json* files, in.Array(doc, "files", "$"));
  if (files == nullptr) return in.Error("$.files", "missing: must be an array");
  for (size_t i = 0; i < files->size(); ++i) {
    const json& f = (*files)[i];
    const std::string where = JsonReader::Index("$.files", i);
    if (!f.is_object()) return in.Error(where, "must be an object");
    ManifestEntry e;
    AV_RETURN_IF_ERROR(in.Str(f, "path", where, &e.path));
    AV_RETURN_IF_ERROR(in.Str(f, "sha256", where, &e.sha256));
    AV_RETURN_IF_ERROR(in.Int(f, "bytes", where, &e.bytes));
    if (e.path.empty() || e.sha256.empty())
      return in.Error(where, "needs string \"path\" and \"sha256\"");
    m.files.push_back(std::move(e));
  }
  AV_ASSIGN_OR_RETURN(const json* tool, in.Object(doc, "tool", "$"));
  if (tool != nullptr) AV_RETURN_IF_ERROR(in.Str(*tool, "version", "$.tool", &m.tool_version));
  AV_RETURN_IF_ERROR(in.Str(doc, "host", "$", &m.host));
  AV_RETURN_IF_ERROR(in.Str(doc, "created_utc", "$", &m.created_utc));
  return m;
}

Result<ManifestDiff> VerifyManifest(const std::string& package_dir, const Manifest& manifest) {
  std::vector<std::string> excluded = manifest.excluded;
  if (std::find(excluded.begin(), excluded.end(), "manifest.json") == excluded.end())
    excluded.push_back("manifest.json");
  AV_ASSIGN_OR_RETURN(PackageListing listing, ListPackageFiles(package_dir, excluded, false));
  const std::vector<ManifestEntry>& now = listing.files;
  std::map<std::string, std::string> recorded, current;
  for (const ManifestEntry& f : manifest.files) recorded[f.path] = f.sha256;
  for (const ManifestEntry& f : now) current[f.path] = f.sha256;
  ManifestDiff diff;
  for (const auto& [path, sha] : recorded) {
    auto it = current.find(path);
    if (it == current.end())
      diff.missing.push_back(path);
    else if (it->second != sha)
      diff.changed.push_back(path);
  }
  for (const auto& [path, sha] : current) {
    if (!recorded.count(path)) diff.extra.push_back(path);
  }
  return diff;
}

std::vector<std::string> VerifyLedgerOutputs(const std::string& package_dir,
                                             const RunLedger& ledger) {
  std::vector<std::string> out;
  for (const StageEntry& s : ledger.stages) {
    const std::string who = "the " + s.name + " stage of run " + s.run_id;
    for (const OutputDigest& o : s.outputs) {
      const fs::path abs = fs::path(package_dir) / o.path;
      std::error_code ec;
      if (fs::is_symlink(abs, ec) || !fs::is_regular_file(abs, ec)) {
        out.push_back(o.path + ": missing (or not a regular file), " + who + " wrote it");
        continue;
      }
      Result<std::string> sha = Sha256File(abs.string());
      if (!sha.ok()) {
        out.push_back(o.path + ": " + sha.status().message());
      } else if (*sha != o.sha256) {
        out.push_back(o.path + ": sha256 " + sha->substr(0, 12) + ", " + who + " recorded " +
                      o.sha256.substr(0, 12));
      }
    }
  }
  return out;
}

std::string DetectNvccVersion(ProcessRunner& runner, const std::string& from_evidence,
                              std::string* source) {
  source->clear();
  if (!from_evidence.empty()) {
    *source = "evidence/resources.json";
    return from_evidence;
  }
  std::string nvcc = FindExecutable("nvcc");
  if (nvcc.empty()) return "";
  ProcessRequest req;
  req.argv = {nvcc, "--version"};
  req.timeout_ms = 30'000;
  Result<ProcessResult> r = runner.Run(req);
  if (!r.ok() || !r->ok()) return "";
  std::string v = ParseNvccVersion(r->stdout_text);
  if (!v.empty()) *source = "nvcc --version";
  return v;
}

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string UtcNowIso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace av
