// A record of the files below a folder — the sha256 of each regular file, the target of
// each symbolic link, the kind of anything else — taken before an untrusted program runs
// and compared after it: what it created, changed or removed. The sweep takes one of the
// package (its evidence, logs, reports, configs) so that a candidate that rewrites another
// stage's evidence is caught even without a sandbox. Links are recorded, never followed.
// Record/Forget/Compare may be called from several threads.
#pragma once

#include <sys/types.h>

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

class TreeSnapshot {
 public:
  // Walks `root`. Folders whose path relative to root is in `skip_paths` ("work") and
  // folders or files named as in `skip_names` anywhere (".git", "__pycache__") are left
  // out, as they are from Compare. More than kMaxEntries entries is Unsupported (a
  // package folder that is really a home folder would take minutes to hash).
  static constexpr size_t kMaxEntries = 100'000;
  static Result<TreeSnapshot> Take(const std::string& root, std::vector<std::string> skip_paths,
                                   std::vector<std::string> skip_names);

  TreeSnapshot(TreeSnapshot&& o) noexcept;
  TreeSnapshot& operator=(TreeSnapshot&&) = delete;
  TreeSnapshot(const TreeSnapshot&) = delete;

  // What differs now, one line per path relative to root ("evidence/resources.json
  // changed", "... created", "... removed"), sorted; empty when nothing did.
  std::vector<std::string> Compare() const;

  // attnverify itself wrote `path` (absolute, below root) with `contents`, or removed it:
  // the record follows, so only others' changes show.
  void Record(const std::string& path, std::string_view contents);
  void Forget(const std::string& path);

  const std::string& root() const { return root_; }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string kind;    // "file", "link", "dir", "other"
    std::string digest;  // file: sha256; link: its target
    // The file's stat when hashed; Compare hashes again only when it differs.
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    int64_t mtime_ns = -1, ctime_ns = -1;
  };
  TreeSnapshot() = default;
  Result<std::map<std::string, Entry>> Walk(const std::map<std::string, Entry>* before) const;
  std::string Relative(const std::string& path) const;

  std::string root_;
  std::vector<std::string> skip_paths_, skip_names_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // by path relative to root
};

}  // namespace av
