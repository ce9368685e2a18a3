// manifest.json: the sha256 of every file of the acceptance package (except manifest.json
// itself and the excluded folders, by default work/ — the sweep's regenerable case
// tensors, whose digests numerics.json already records per case), with the tool and nvcc
// versions, host and UTC time. `attnverify report` writes it last; `attnverify
// verify-package` recomputes it. Format: doc/formats/manifest-json.md. Any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.h"
#include "core/status.h"

namespace av {

inline constexpr const char* kManifestJsonSchema = "attnverify.manifest/1";

struct ManifestEntry {
  std::string path;  // package-relative, '/'-separated
  std::string sha256;
  int64_t bytes = 0;
};

struct Manifest {
  std::string tool_version;
  std::string nvcc_version;  // empty: unknown (written as null)
  std::string nvcc_source;   // "evidence/resources.json", "nvcc --version", or empty
  std::string host;
  std::string created_utc;            // 2026-11-29T18:30:00Z
  std::vector<std::string> excluded;  // "manifest.json", "work/"
  std::vector<ManifestEntry> files;   // sorted by path
};

// Regular files under `package_dir`, sorted; symbolic links are not followed and not
// listed. `excluded` holds file names ("manifest.json") and folders ending in '/'.
Result<std::vector<ManifestEntry>> HashPackageFiles(const std::string& package_dir,
                                                    const std::vector<std::string>& excluded);

nlohmann::json ManifestToJson(const Manifest& manifest);
Result<Manifest> ParseManifest(std::string_view text, const std::string& path);

struct ManifestDiff {
  std::vector<std::string> changed, missing, extra;
  bool ok() const { return changed.empty() && missing.empty() && extra.empty(); }
};

// Recomputes the digests (with the manifest's own exclusions) and compares.
Result<ManifestDiff> VerifyManifest(const std::string& package_dir, const Manifest& manifest);

// nvcc's version: `from_evidence` when non-empty, else `nvcc --version` when nvcc is on
// PATH (through `runner`), else empty. `source` says which.
std::string DetectNvccVersion(ProcessRunner& runner, const std::string& from_evidence,
                              std::string* source);

std::string HostName();
std::string UtcNowIso8601();

}  // namespace av
