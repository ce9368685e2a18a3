#include "diff/slice.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "diff/glob.h"

namespace av {

std::string AssignComponent(const std::vector<SliceSpec>& components, std::string_view path) {
  for (const SliceSpec& c : components) {
    for (const std::string& g : c.globs) {
      if (GlobMatch(g, path)) return c.name;
    }
  }
  return "";
}

void SliceDiff(const std::vector<SliceSpec>& specs, SliceResult* slice) {
  slice->components.clear();
  for (const SliceSpec& s : specs) {
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

SliceRecord SliceResultToRecord(const SliceResult& slice) {
  SliceRecord r;
  r.provenance = slice.provenance;
  r.has_provenance = true;
  r.tool_version = slice.provenance.tool_version;
  r.mode = slice.mode;
  r.repo = slice.repo;
  r.base = slice.base;
  r.base_commit = slice.base_commit;
  r.head_commit = slice.head_commit;
  r.files_total = static_cast<int64_t>(slice.diff.files.size());
  for (const SliceComponent& c : slice.components) {
    SliceComponentRecord x;
    x.name = c.name;
    x.globs = c.globs;
    x.path = c.path;
    x.sha256 = c.sha256;
    x.bytes = static_cast<int64_t>(c.text.size());
    for (size_t i : c.files) {
      const FileDiff& f = slice.diff.files[i];
      x.files.push_back(
          {f.path(), f.old_path, f.new_path, std::string(FileStatusName(f.status)), f.binary,
           static_cast<int64_t>(f.added_lines()), static_cast<int64_t>(f.deleted_lines()),
           static_cast<int64_t>(f.hunks.size()), f.similarity, f.old_mode, f.new_mode});
    }
    r.components.push_back(std::move(x));
  }
  return r;
}

Result<std::vector<std::string>> WriteSlice(const std::string& package_dir,
                                            const SliceResult& slice) {
  std::vector<std::string> written;
  std::error_code ec;
  for (const char* sub : {"diff", "evidence"}) {
    // A folder the reviewed repository committed as a link would carry the diffs out of
    // the package (over whatever file of the same name lives where it points): refused,
    // as `report` refuses a linked reports/ or evidence/.
    const std::filesystem::path folder = std::filesystem::path(package_dir) / sub;
    if (std::filesystem::is_symlink(folder, ec)) {
      std::error_code target_ec;
      const std::string target = std::filesystem::read_symlink(folder, target_ec).string();
      return InvalidInput(folder.string() + ": a symbolic link to a folder (-> " + target +
                          "): slice does not write through it; replace it with a real folder");
    }
    std::filesystem::create_directories(folder, ec);
    if (ec) return IoError(package_dir + "/" + sub + ": cannot create the folder: " + ec.message());
  }
  for (const SliceComponent& c : slice.components) {
    std::string path = package_dir + "/" + c.path;
    AV_RETURN_IF_ERROR(WriteFileAtomically(path, c.text));
    written.push_back(path);
  }
  std::string json_path = package_dir + "/evidence/slice.json";
  AV_RETURN_IF_ERROR(
      WriteFileAtomically(json_path, JsonFileText(SliceToJson(SliceResultToRecord(slice)))));
  written.push_back(json_path);
  return written;
}

Result<SliceRecord> LoadSliceRecord(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  AV_ASSIGN_OR_RETURN(SliceRecord r, ParseSlice(text, path));
  for (const SliceComponentRecord& c : r.components) {
    Status st = ValidateDiffPath(c.path);
    if (!st.ok()) return InvalidInput(path + ": component path \"" + c.path + "\" " + st.message());
  }
  return r;
}

}  // namespace av
