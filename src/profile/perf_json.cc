// evidence/perf.json on disk: reading it, and appending an import atomically. The model,
// its writer and its reader are schema/perf_json.h's.
#include <filesystem>

#include "core/file.h"
#include "profile/perf_model.h"

namespace av::profile {

std::string RenderPerfJson(const PerfDoc& doc) { return PerfToJsonText(doc); }

Result<PerfDoc> ParsePerfJson(std::string_view text, const std::string& shown) {
  return ParsePerf(text, shown);
}

Result<PerfDoc> ReadPerfJson(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + ": no such file");
  AV_ASSIGN_OR_RETURN(auto buf, ReadFileToBuffer(path, Links::kRefuse, 512u << 20));
  return ParsePerf(std::string_view(reinterpret_cast<const char*>(buf->data()), buf->size()), path);
}

Status AppendPerfJson(const std::string& path, const std::vector<KernelProfile>& kernels,
                      const Provenance* provenance) {
  PerfDoc doc;
  Result<PerfDoc> old = ReadPerfJson(path);
  if (old.ok()) {
    doc = std::move(old).value();
  } else if (old.status().code() != StatusCode::kNotFound) {
    return old.status();
  }
  std::vector<KernelProfile> kept;
  for (KernelProfile& k : doc.kernels) {
    bool replaced = false;
    for (const KernelProfile& n : kernels) {
      replaced |= n.source_sha256 == k.source_sha256 && n.label == k.label;
    }
    if (!replaced) kept.push_back(std::move(k));
  }
  kept.insert(kept.end(), kernels.begin(), kernels.end());
  doc.kernels = std::move(kept);
  if (provenance != nullptr) {
    doc.provenance = *provenance;
    doc.has_provenance = true;
  }
  return WriteFileAtomically(path, RenderPerfJson(doc));
}

}  // namespace av::profile
