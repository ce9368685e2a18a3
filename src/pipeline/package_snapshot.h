// What a stage wrote into the package: a snapshot of the package's regular files (size,
// modification time, inode; nothing is read) before the stage and one after; every file
// that is new or differs is one the stage wrote (an atomic rewrite changes the inode even
// when the bytes are the same), and is hashed. Symbolic links are not followed. Folders
// in `excluded` (the sweep's work folder) and files in `ignored` are left out.
// Used by `attnverify run` and by a stage run on its own (stage_ledger.h). Any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "schema/run_json.h"

namespace av {

struct FileStamp {
  int64_t size = 0, mtime_ns = 0;
  uint64_t inode = 0, device = 0;
  bool operator==(const FileStamp&) const = default;
};

struct PackageSnapshot {
  std::map<std::string, FileStamp> files;  // package-relative, '/'-separated
};

// `excluded`: package-relative folders ("work"); `ignored`: package-relative files
// ("evidence/run.json"). A package folder that cannot be listed gives an empty snapshot
// (the stage's outputs are then every file found after it).
PackageSnapshot TakePackageSnapshot(const std::string& package_dir,
                                    const std::vector<std::string>& excluded,
                                    const std::vector<std::string>& ignored);

// The files of `after` that are not in `before` or differ, with their sha256, sorted by
// path. A file that cannot be hashed (removed meanwhile) is left out.
std::vector<OutputDigest> WrittenFiles(const std::string& package_dir,
                                       const PackageSnapshot& before, const PackageSnapshot& after);

}  // namespace av
