#include "compile/git_worktree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/git.h"

namespace av {

namespace fs = std::filesystem;

namespace {

// Blobs are read in batches of about this many bytes (one git process each).
constexpr int64_t kBatchBytes = int64_t{256} << 20;
constexpr size_t kBatchObjects = 2000;

// A tree path git itself would check out: relative, no empty, "." or ".." component,
// no ".git" folder (any case).
bool SafeTreePath(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    std::string lower = part;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (part.empty() || part == "." || part == ".." || lower == ".git") return false;
    start = end + 1;
  }
  return true;
}

// True when no folder between `root` and `rel`'s parent is a symlink (so writing `rel`
// cannot land outside `root`).
bool NoSymlinkOnTheWay(const std::string& root, const std::string& rel) {
  std::string at = root;
  size_t start = 0;
  while (true) {
    size_t end = rel.find('/', start);
    if (end == std::string::npos) return true;
    at += '/';
    at.append(rel, start, end - start);
    struct stat st;
    if (::lstat(at.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return false;
    start = end + 1;
  }
}

Status WriteNewFile(const std::string& path, std::string_view data, bool executable) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  executable ? 0755 : 0644);
  if (fd < 0) return IoError(path + ": cannot create: " + std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      return IoError(path + ": write failed: " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return IoError(path + ": close failed: " + std::strerror(errno));
  return Status::Ok();
}

bool Inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

}  // namespace

// Writes one tree (and, recursively, its submodules) into the copy.
class TreeWriter {
 public:
  TreeWriter(ProcessRunner& runner, GitWorktree* tree) : runner_(runner), tree_(tree) {}

  // `repo` is the git work tree holding `commit`'s objects (the head's checkout, or its
  // clone of a submodule); `prefix` where in the copy the tree goes ("" for the top).
  Status Write(const std::string& repo, const std::string& commit, const std::string& prefix,
               int depth) {
    AV_ASSIGN_OR_RETURN(std::vector<GitTreeEntry> entries, ListGitTree(runner_, repo, commit));
    std::vector<const GitTreeEntry*> files, links, modules;
    for (const GitTreeEntry& e : entries) {
      if (!SafeTreePath(e.path)) {
        return InvalidInput("commit " + commit + " holds the path \"" + e.path.substr(0, 200) +
                            "\", which git would not check out: the base is not copied");
      }
      if (e.mode == "160000") {
        modules.push_back(&e);
      } else if (e.mode == "120000" && e.type == "blob") {
        links.push_back(&e);
      } else if ((e.mode == "100644" || e.mode == "100755" || e.mode == "100664") &&
                 e.type == "blob") {
        files.push_back(&e);
      } else {
        return InvalidInput("commit " + commit + ": \"" + e.path + "\" has mode " + e.mode + " (" +
                            e.type + "), which the base copy does not write");
      }
    }
    AV_RETURN_IF_ERROR(WriteFiles(repo, prefix, files));
    for (const GitTreeEntry* m : modules)
      AV_RETURN_IF_ERROR(WriteSubmodule(repo, prefix, *m, depth));
    return WriteLinks(repo, prefix, links);
  }

 private:
  std::string Dest(const std::string& prefix, const std::string& path) const {
    return tree_->path_ + "/" + (prefix.empty() ? "" : prefix + "/") + path;
  }

  Status Budget(int64_t bytes) {
    bytes_ += bytes;
    ++tree_->files_;
    if (bytes_ > kMaxBaseTreeBytes || tree_->files_ > kMaxBaseTreeFiles) {
      return InvalidInput("the base revision's files exceed " +
                          std::to_string(kMaxBaseTreeBytes >> 30) + " GiB or " +
                          std::to_string(kMaxBaseTreeFiles) + " files: not copied");
    }
    return Status::Ok();
  }

  Status MakeParent(const std::string& path) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
    return Status::Ok();
  }

  // Reads `entries`' blobs (ReadGitBlobsById batches them); calls `use` with each entry
  // and its contents.
  template <typename Use>
  Status ForEachBlob(const std::string& repo, const std::vector<const GitTreeEntry*>& entries,
                     Use use) {
    std::vector<std::string> ids;
    std::vector<int64_t> sizes;
    int64_t batch_bytes = 0;
    for (size_t i = 0; i <= entries.size(); ++i) {
      // A batch of about kBatchBytes at a time, so the copy never holds the whole tree.
      bool flush = i == entries.size() ||
                   (!ids.empty() &&
                    (ids.size() >= kBatchObjects || batch_bytes + entries[i]->size > kBatchBytes));
      if (flush && !ids.empty()) {
        auto blobs = ReadGitBlobsById(runner_, repo, ids, sizes);
        if (!blobs.ok()) {
          return blobs.status().WithContext("reading the base's files from " + repo +
                                            " (a partial or shallow clone? attnverify never "
                                            "fetches)");
        }
        for (size_t k = 0; k < ids.size(); ++k) {
          AV_RETURN_IF_ERROR(use(*entries[i - ids.size() + k], (*blobs)[k]));
        }
        ids.clear();
        sizes.clear();
        batch_bytes = 0;
      }
      if (i == entries.size()) break;
      ids.push_back(entries[i]->object);
      sizes.push_back(entries[i]->size);
      batch_bytes += entries[i]->size;
    }
    return Status::Ok();
  }

  Status WriteFiles(const std::string& repo, const std::string& prefix,
                    const std::vector<const GitTreeEntry*>& files) {
    return ForEachBlob(repo, files, [&](const GitTreeEntry& e, const std::string& data) -> Status {
      AV_RETURN_IF_ERROR(Budget(static_cast<int64_t>(data.size())));
      std::string dest = Dest(prefix, e.path);
      if (!NoSymlinkOnTheWay(tree_->path_, dest.substr(tree_->path_.size() + 1))) {
        return InvalidInput("\"" + e.path + "\" would be written through a symlink");
      }
      AV_RETURN_IF_ERROR(MakeParent(dest));
      return WriteNewFile(dest, data, e.mode == "100755");
    });
  }

  Status WriteLinks(const std::string& repo, const std::string& prefix,
                    const std::vector<const GitTreeEntry*>& links) {
    const fs::path root = fs::path(tree_->path_).lexically_normal();
    return ForEachBlob(
        repo, links, [&](const GitTreeEntry& e, const std::string& target) -> Status {
          AV_RETURN_IF_ERROR(Budget(0));
          std::string rel = (prefix.empty() ? "" : prefix + "/") + e.path;
          fs::path resolved = (root / fs::path(rel).parent_path() / target).lexically_normal();
          if (target.empty() || target.find('\0') != std::string::npos || target.front() == '/' ||
              !Inside(root, resolved)) {
            tree_->warnings_.push_back("symlink " + rel + " -> " + target.substr(0, 200) +
                                       " points outside the base copy: not written");
            return Status::Ok();
          }
          std::string dest = root.string() + "/" + rel;
          if (!NoSymlinkOnTheWay(root.string(), rel)) {
            tree_->warnings_.push_back("symlink " + rel +
                                       " sits under another symlink: not written");
            return Status::Ok();
          }
          AV_RETURN_IF_ERROR(MakeParent(dest));
          if (::symlink(target.c_str(), dest.c_str()) != 0) {
            return IoError(dest + ": cannot create the symlink: " + std::strerror(errno));
          }
          links_.push_back({dest, rel, target});
          return Status::Ok();
        });
  }

 public:
  // Through other symlinks of the copy a link may still lead out: once every link is
  // written, each is resolved and removed when it lands outside.
  void DropEscapingLinks() {
    std::error_code ec;
    const fs::path real_root = fs::weakly_canonical(tree_->path_, ec);
    for (const WrittenLink& l : links_) {
      std::error_code e;
      fs::path real = fs::weakly_canonical(l.dest, e);
      if (e || !Inside(real_root, real)) {
        ::unlink(l.dest.c_str());
        tree_->warnings_.push_back("symlink " + l.rel + " -> " + l.target.substr(0, 200) +
                                   " leads outside the base copy through other links: not written");
      }
    }
  }

 private:
  // A submodule's files come from the head work tree's clone of it (never fetched).
  Status WriteSubmodule(const std::string& repo, const std::string& prefix, const GitTreeEntry& m,
                        int depth) {
    std::string rel = (prefix.empty() ? "" : prefix + "/") + m.path;
    std::string dest = Dest(prefix, m.path);
    std::error_code ec;
    fs::create_directories(dest, ec);
    if (ec) return IoError(dest + ": cannot create the submodule's folder: " + ec.message());
    const std::string short_id = m.object.substr(0, 12);
    if (depth >= kMaxSubmoduleDepth) {
      tree_->warnings_.push_back("submodule " + rel + " is nested more than " +
                                 std::to_string(kMaxSubmoduleDepth) + " deep: left empty");
      return Status::Ok();
    }
    const std::string clone = repo + "/" + m.path;
    auto top = RunSafeGit(runner_, clone, {"rev-parse", "--show-toplevel"});
    fs::path want = fs::weakly_canonical(clone, ec);
    if (!fs::exists(fs::path(clone) / ".git", ec) || !top.ok() ||
        fs::weakly_canonical(TrimNewlines(*top), ec) != want) {
      tree_->warnings_.push_back(
          "submodule " + rel + " (commit " + short_id +
          ") is not checked out in the head work tree, so the base copy has it empty "
          "(run git submodule update --init, or set [build] base_setup)");
      return Status::Ok();
    }
    auto have = RunSafeGit(
        runner_, clone,
        {"rev-parse", "--verify", "--quiet", "--end-of-options", m.object + "^{commit}"});
    if (!have.ok()) {
      tree_->warnings_.push_back(
          "submodule " + rel + ": commit " + short_id + " is not in the local clone " + rel +
          ", so the base copy has it empty (git -C " + rel + " fetch, or set [build] base_setup)");
      return Status::Ok();
    }
    return Write(clone, m.object, rel, depth + 1);
  }

  struct WrittenLink {
    std::string dest, rel, target;
  };
  ProcessRunner& runner_;
  GitWorktree* tree_;
  int64_t bytes_ = 0;
  std::vector<WrittenLink> links_;
};

Result<std::unique_ptr<GitWorktree>> GitWorktree::Create(ProcessRunner& runner,
                                                         const std::string& repo_dir,
                                                         const std::string& ref) {
  if (ref.empty() || ref[0] == '-') return InvalidInput("--base \"" + ref + "\" is not a revision");
  AV_ASSIGN_OR_RETURN(std::string top,
                      RunSafeGit(runner, repo_dir, {"rev-parse", "--show-toplevel"}));
  std::unique_ptr<GitWorktree> tree(new GitWorktree());
  tree->toplevel_ = TrimNewlines(top);
  AV_ASSIGN_OR_RETURN(std::string commit, RunSafeGit(runner, tree->toplevel_,
                                                     {"rev-parse", "--verify", "--quiet",
                                                      "--end-of-options", ref + "^{commit}"}));
  tree->commit_ = TrimNewlines(commit);
  std::string pattern = (fs::temp_directory_path() / "attnverify-base-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return IoError("cannot create a temporary folder for the base");
  tree->temp_root_ = pattern;
  tree->path_ = pattern + "/src";
  if (::mkdir(tree->path_.c_str(), 0755) != 0) {
    return IoError(tree->path_ + ": cannot create: " + std::strerror(errno));
  }
  TreeWriter writer(runner, tree.get());
  Status written = writer.Write(tree->toplevel_, tree->commit_, "", 0);
  if (!written.ok()) return written.WithContext("--base " + ref);
  writer.DropEscapingLinks();
  return tree;
}

GitWorktree::~GitWorktree() {
  if (temp_root_.empty()) return;
  std::error_code ec;
  fs::remove_all(temp_root_, ec);
}

}  // namespace av
