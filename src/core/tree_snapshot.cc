#include "core/tree_snapshot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/sha256.h"

namespace av {
namespace {

namespace fs = std::filesystem;

int64_t Ns(const struct timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TreeSnapshot::TreeSnapshot(TreeSnapshot&& o) noexcept
    : root_(std::move(o.root_)),
      skip_paths_(std::move(o.skip_paths_)),
      skip_names_(std::move(o.skip_names_)),
      entries_(std::move(o.entries_)) {}

Result<TreeSnapshot> TreeSnapshot::Take(const std::string& root,
                                        std::vector<std::string> skip_paths,
                                        std::vector<std::string> skip_names) {
  TreeSnapshot s;
  s.root_ = fs::path(root).lexically_normal().string();
  while (s.root_.size() > 1 && s.root_.back() == '/') s.root_.pop_back();
  s.skip_paths_ = std::move(skip_paths);
  s.skip_names_ = std::move(skip_names);
  AV_ASSIGN_OR_RETURN(s.entries_, s.Walk(nullptr));
  return s;
}

std::string TreeSnapshot::Relative(const std::string& path) const {
  return fs::path(path).lexically_normal().lexically_relative(root_).generic_string();
}

Result<std::map<std::string, TreeSnapshot::Entry>> TreeSnapshot::Walk(
    const std::map<std::string, Entry>* before) const {
  std::map<std::string, Entry> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(root_, fs::directory_options::none, ec), end;
  if (ec) return IoError(root_ + ": cannot list: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return IoError(root_ + ": cannot list: " + ec.message());
    const fs::path& p = it->path();
    const std::string rel = p.lexically_relative(root_).generic_string();
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) continue;  // gone since it was listed
    if (Contains(skip_names_, p.filename().string()) || Contains(skip_paths_, rel)) {
      if (S_ISDIR(st.st_mode)) it.disable_recursion_pending();
      continue;
    }
    if (out.size() >= kMaxEntries) {
      return Unsupported(root_ + ": more than " + std::to_string(kMaxEntries) +
                         " files to snapshot; the package folder should hold only the package");
    }
    Entry e;
    if (S_ISDIR(st.st_mode)) {
      e.kind = "dir";
    } else if (S_ISLNK(st.st_mode)) {
      e.kind = "link";
      std::error_code lec;
      e.digest = fs::read_symlink(p, lec).string();
    } else if (S_ISREG(st.st_mode)) {
      e.kind = "file";
      e.dev = st.st_dev;
      e.ino = st.st_ino;
      e.size = st.st_size;
      e.mtime_ns = Ns(st.st_mtim);
      e.ctime_ns = Ns(st.st_ctim);
      const Entry* old = nullptr;
      if (before != nullptr) {
        auto found = before->find(rel);
        if (found != before->end()) old = &found->second;
      }
      // ctime moves on every write and cannot be set back by the writer: an unchanged
      // stat is an unchanged file, and only the others are hashed again.
      if (old != nullptr && old->kind == "file" && old->dev == e.dev && old->ino == e.ino &&
          old->size == e.size && old->mtime_ns == e.mtime_ns && old->ctime_ns == e.ctime_ns) {
        e.digest = old->digest;
      } else {
        Result<std::string> sha = Sha256File(p.string());
        e.digest = sha.ok() ? *sha : "unreadable: " + sha.status().message();
      }
    } else {
      e.kind = "other";
    }
    out.emplace(rel, std::move(e));
  }
  return out;
}

std::vector<std::string> TreeSnapshot::Compare() const {
  std::map<std::string, Entry> before;
  {
    std::lock_guard<std::mutex> lock(mu_);
    before = entries_;
  }
  Result<std::map<std::string, Entry>> now = Walk(&before);
  if (!now.ok()) return {now.status().message()};
  std::vector<std::string> changes;
  for (const auto& [rel, e] : before) {
    auto it = now->find(rel);
    if (it == now->end()) {
      changes.push_back(rel + " removed");
    } else if (it->second.kind != e.kind || it->second.digest != e.digest) {
      changes.push_back(
          rel + (it->second.kind == e.kind ? " changed" : " replaced by a " + it->second.kind));
    }
  }
  for (const auto& [rel, e] : *now) {
    if (before.count(rel) == 0) changes.push_back(rel + " created");
  }
  std::sort(changes.begin(), changes.end());
  return changes;
}

// A write outside the tree (evidence moved out of the package with --evidence) is no
// entry of the tree: recorded, it would read as "../.. removed" and fail every case.
static bool OutsideTree(const std::string& rel) {
  return rel.empty() || rel == "." || rel == ".." || rel.rfind("../", 0) == 0;
}

void TreeSnapshot::Record(const std::string& path, std::string_view contents) {
  if (OutsideTree(Relative(path))) return;
  std::lock_guard<std::mutex> lock(mu_);
  Entry e;
  e.kind = "file";
  e.digest = Sha256Hex(contents);
  entries_[Relative(path)] = std::move(e);
  // Folders made for it (evidence/heatmaps) are attnverify's too.
  for (fs::path dir = fs::path(Relative(path)).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    Entry d;
    d.kind = "dir";
    entries_.emplace(dir.generic_string(), std::move(d));
  }
}

void TreeSnapshot::Forget(const std::string& path) {
  if (OutsideTree(Relative(path))) return;
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(Relative(path));
}

}  // namespace av
