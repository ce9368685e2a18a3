#include "review/slice.h"

#include <filesystem>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/json_reader.h"
#include "core/sha256.h"

namespace av {

void SliceDiff(const std::vector<ComponentSpec>& specs, SliceResult* slice) {
  slice->components.clear();
  for (const ComponentSpec& s : specs) {
    SliceComponent c;
    c.name = s.name;
    c.globs = s.globs;
    slice->components.push_back(std::move(c));
  }
  SliceComponent rest;
  rest.name = "unassigned";
  slice->components.push_back(std::move(rest));
  for (size_t i = 0; i < slice->diff.files.size(); ++i) {
    std::string name = AssignComponent(specs, slice->diff.files[i].path());
    size_t k = slice->components.size() - 1;
    for (size_t j = 0; j + 1 < slice->components.size(); ++j) {
      if (slice->components[j].name == name) k = j;
    }
    slice->components[k].files.push_back(i);
  }
  for (SliceComponent& c : slice->components) {
    c.path = "diff/" + c.name + ".diff";
    c.text = WriteUnifiedDiff(slice->diff, c.files);
    c.sha256 = Sha256Hex(c.text);
  }
}

nlohmann::json SliceToJson(const SliceResult& slice, const std::string& tool_version) {
  using nlohmann::json;
  json components = json::array();
  for (const SliceComponent& c : slice.components) {
    json files = json::array();
    for (size_t i : c.files) {
      const FileDiff& f = slice.diff.files[i];
      json jf = {{"path", f.path()},
                 {"old_path", f.old_path},
                 {"new_path", f.new_path},
                 {"status", FileStatusName(f.status)},
                 {"binary", f.binary},
                 {"added", f.added_lines()},
                 {"deleted", f.deleted_lines()},
                 {"hunks", f.hunks.size()}};
      if (f.similarity >= 0) jf["similarity"] = f.similarity;
      if (!f.old_mode.empty()) jf["old_mode"] = f.old_mode;
      if (!f.new_mode.empty()) jf["new_mode"] = f.new_mode;
      files.push_back(std::move(jf));
    }
    components.push_back({{"name", c.name},
                          {"globs", c.globs},
                          {"path", c.path},
                          {"sha256", c.sha256},
                          {"bytes", c.text.size()},
                          {"files", std::move(files)}});
  }
  return json{{"schema", "attnverify.slice/1"},
              {"tool", {{"name", "attnverify"}, {"version", tool_version}}},
              {"command", slice.command},
              {"mode", slice.mode},
              {"repo", slice.repo},
              {"base", slice.base},
              {"base_commit", slice.base_commit},
              {"head_commit", slice.head_commit},
              {"files_total", slice.diff.files.size()},
              {"components", std::move(components)}};
}

Result<std::vector<std::string>> WriteSlice(const std::string& package_dir,
                                            const SliceResult& slice,
                                            const std::string& tool_version) {
  std::vector<std::string> written;
  std::error_code ec;
  for (const char* sub : {"diff", "evidence"}) {
    std::filesystem::create_directories(std::filesystem::path(package_dir) / sub, ec);
    if (ec) return IoError(package_dir + "/" + sub + ": cannot create the folder: " + ec.message());
  }
  for (const SliceComponent& c : slice.components) {
    std::string path = package_dir + "/" + c.path;
    AV_RETURN_IF_ERROR(WriteFileAtomically(path, c.text));
    written.push_back(path);
  }
  std::string json_path = package_dir + "/evidence/slice.json";
  AV_RETURN_IF_ERROR(
      WriteFileAtomically(json_path, JsonFileText(SliceToJson(slice, tool_version))));
  written.push_back(json_path);
  return written;
}

Result<SliceRecord> LoadSliceRecord(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  AV_ASSIGN_OR_RETURN(nlohmann::json j, JsonReader(path).ParseObject(text));
  if (j.value("schema", "") != "attnverify.slice/1") {
    return InvalidInput(path + ": \"schema\" must be \"attnverify.slice/1\"");
  }
  SliceRecord r;
  auto str = [&](const char* key, std::string* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string())
      return InvalidInput(path + ": \"" + key + "\" must be a string");
    *out = it->get<std::string>();
    return Status::Ok();
  };
  AV_RETURN_IF_ERROR(str("base", &r.base));
  AV_RETURN_IF_ERROR(str("base_commit", &r.base_commit));
  AV_RETURN_IF_ERROR(str("head_commit", &r.head_commit));
  auto comps = j.find("components");
  if (comps == j.end() || !comps->is_array())
    return InvalidInput(path + ": \"components\" must be an array");
  for (const auto& c : *comps) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("path") ||
        !c["path"].is_string()) {
      return InvalidInput(path + ": each component needs \"name\" and \"path\" strings");
    }
    SliceRecord::Entry e;
    e.name = c["name"].get<std::string>();
    e.path = c["path"].get<std::string>();
    if (c.contains("sha256") && c["sha256"].is_string()) e.sha256 = c["sha256"].get<std::string>();
    Status st = ValidateDiffPath(e.path);
    if (!st.ok()) return InvalidInput(path + ": component path \"" + e.path + "\" " + st.message());
    r.components.push_back(std::move(e));
  }
  return r;
}

}  // namespace av
