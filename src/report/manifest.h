// manifest.json: the sha256 of every file of the acceptance package (except manifest.json
// itself and the excluded folders, by default work/ — the sweep's regenerable case
// tensors, whose digests numerics.json already records per case), with the tool and nvcc
// versions, host and UTC time. `attnverify report` writes it last; `attnverify
// verify-package` recomputes it. Format: doc/formats/manifest-json.md. Any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "schema/run_json.h"

namespace av {

inline constexpr const char* kManifestJsonSchema = "attnverify.manifest/1";

struct ManifestEntry {
  std::string path;    // package-relative, '/'-separated
  std::string sha256;  // of the file's bytes; of "symlink -> TARGET" for a symbolic link
  int64_t bytes = 0;
  std::string link_target;  // non-empty: a symbolic link to a file (not followed)
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

struct PackageListing {
  std::vector<ManifestEntry> files;  // sorted by path
  // Temporaries of an atomic write (NAME.tmp.PID.RAND): never listed. Those of a process
  // that no longer exists were removed (when asked to); the others are still being written.
  std::vector<std::string> removed_temporaries, live_temporaries;
  // Symbolic links to files: recorded by their target (the manifest cannot vouch for what
  // they point to), one line each for a warning.
  std::vector<std::string> links;
};

// The files under `package_dir`, sorted. `excluded` holds file names ("manifest.json") and
// folders ending in '/'. Symbolic links are never followed: a link to a file is listed by
// its target; a link to a folder (a `reports/` that points elsewhere) is an error, since
// nothing it holds could be covered. `remove_stale_temporaries`: delete the temporaries of
// processes that no longer exist (report does; verify-package only reads).
Result<PackageListing> ListPackageFiles(const std::string& package_dir,
                                        const std::vector<std::string>& excluded,
                                        bool remove_stale_temporaries);

// The error ListPackageFiles would give for a symbolic link to a folder, found without
// hashing anything: `attnverify report` checks before it writes reports/ (through the link).
Status CheckNoLinkedFolders(const std::string& package_dir,
                            const std::vector<std::string>& excluded);

nlohmann::json ManifestToJson(const Manifest& manifest);
Result<Manifest> ParseManifest(std::string_view text, const std::string& path);

struct ManifestDiff {
  std::vector<std::string> changed, missing, extra;
  bool ok() const { return changed.empty() && missing.empty() && extra.empty(); }
};

// Recomputes the digests (with the manifest's own exclusions) and compares.
Result<ManifestDiff> VerifyManifest(const std::string& package_dir, const Manifest& manifest);

// evidence/run.json's recorded digests against the package now: one line per output of a
// stage entry that is missing or changed since its stage wrote it ("evidence/resources.json:
// sha256 1a2b3c4d5e6f, the build stage of run R recorded 9f8e7d6c5b4a"). Empty: all match.
std::vector<std::string> VerifyLedgerOutputs(const std::string& package_dir,
                                             const RunLedger& ledger);

// nvcc's version: `from_evidence` when non-empty, else `nvcc --version` when nvcc is on
// PATH (through `runner`), else empty. `source` says which.
std::string DetectNvccVersion(ProcessRunner& runner, const std::string& from_evidence,
                              std::string* source);

std::string HostName();
std::string UtcNowIso8601();

}  // namespace av
