#include "pipeline/package_snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "core/sha256.h"

namespace av {
namespace fs = std::filesystem;

PackageSnapshot TakePackageSnapshot(const std::string& package_dir,
                                    const std::vector<std::string>& excluded,
                                    const std::vector<std::string>& ignored) {
  PackageSnapshot snap;
  std::error_code ec;
  fs::recursive_directory_iterator it(package_dir, fs::directory_options::none, ec), end;
  if (ec) return snap;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    const std::string rel = p.lexically_relative(package_dir).generic_string();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (std::find(excluded.begin(), excluded.end(), rel) != excluded.end())
        it.disable_recursion_pending();
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (std::find(ignored.begin(), ignored.end(), rel) != ignored.end()) continue;
    snap.files[rel] = {static_cast<int64_t>(st.st_size),
                       static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                       static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_dev)};
  }
  return snap;
}

std::vector<OutputDigest> WrittenFiles(const std::string& package_dir,
                                       const PackageSnapshot& before,
                                       const PackageSnapshot& after) {
  std::vector<OutputDigest> out;
  for (const auto& [rel, stamp] : after.files) {
    auto it = before.files.find(rel);
    if (it != before.files.end() && it->second == stamp) continue;
    Result<std::string> sha = Sha256File((fs::path(package_dir) / rel).string());
    if (sha.ok()) out.push_back({rel, *sha});
  }
  return out;  // std::map order: sorted by path
}

}  // namespace av
