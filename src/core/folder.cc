#include "core/folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace av {
namespace {

constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr int kMaxDepth = 128;

std::string LinkTarget(int dir_fd, const std::string& name) {
  char buf[4096];
  ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf, sizeof(buf));
  return n < 0 ? std::string("?") : std::string(buf, static_cast<size_t>(n));
}

Status RemoveContents(int dir_fd, const std::string& shown, int depth);

Status RemoveTree(int dir_fd, const std::string& name, const std::string& shown, int depth) {
  struct stat st;
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return IoError(shown + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT)
      return IoError(shown + ": cannot remove: " + std::strerror(errno));
    return Status::Ok();
  }
  if (depth >= kMaxDepth) return IoError(shown + ": nested more than 128 folders deep");
  UniqueFd sub(::openat(dir_fd, name.c_str(), kFolderFlags));
  if (sub.get() < 0) return IoError(shown + ": cannot open: " + std::strerror(errno));
  AV_RETURN_IF_ERROR(RemoveContents(sub.get(), shown, depth + 1));
  sub.Reset();
  if (::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
    return IoError(shown + ": cannot remove: " + std::strerror(errno));
  return Status::Ok();
}

Status RemoveContents(int dir_fd, const std::string& shown, int depth) {
  AV_ASSIGN_OR_RETURN(std::vector<std::string> names, ListFolder(dir_fd, shown));
  for (const std::string& n : names)
    AV_RETURN_IF_ERROR(RemoveTree(dir_fd, n, shown + "/" + n, depth));
  return Status::Ok();
}

}  // namespace

Result<UniqueFd> OpenFolderNoFollow(const std::string& path, bool create) {
  UniqueFd fd(::open(path.c_str(), kFolderFlags));
  if (fd.get() < 0 && errno == ENOENT && create) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return IoError(path + ": cannot create folder: " + ec.message());
    fd = UniqueFd(::open(path.c_str(), kFolderFlags));
  }
  if (fd.get() >= 0) return fd;
  const int err = errno;
  // O_DIRECTORY | O_NOFOLLOW on a link gives ENOTDIR (or ELOOP): lstat tells which.
  struct stat st;
  if ((err == ELOOP || err == ENOTDIR) && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char buf[4096];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
    return InvalidInput(path + ": is a symbolic link (to " +
                        (n < 0 ? std::string("?") : std::string(buf, static_cast<size_t>(n))) +
                        "); attnverify does not follow links in its work folder: name the real "
                        "folder instead (e.g. [numerics] work_dir)");
  }
  if (err == ENOTDIR) return InvalidInput(path + ": is not a folder");
  if (err == ENOENT) return NotFound(path + ": no such folder");
  return IoError(path + ": cannot open folder: " + std::strerror(err));
}

Result<UniqueFd> OpenFolderAt(int dir_fd, const std::string& name, const std::string& shown,
                              bool create, NotAFolder not_a_folder, std::string* replaced) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    UniqueFd fd(::openat(dir_fd, name.c_str(), kFolderFlags));
    if (fd.get() >= 0) return fd;
    const int err = errno;
    if (err == ENOENT) {
      if (!create) return NotFound(shown + ": no such folder");
      if (::mkdirat(dir_fd, name.c_str(), 0755) != 0 && errno != EEXIST)
        return IoError(shown + ": cannot create folder: " + std::strerror(errno));
      continue;
    }
    if (err != ELOOP && err != ENOTDIR) {
      return IoError(shown + ": cannot open folder: " + std::strerror(err));
    }
    struct stat st;
    const bool is_link =
        ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    const std::string what =
        is_link ? "a symbolic link (to " + LinkTarget(dir_fd, name) + ")" : "not a folder";
    if (not_a_folder == NotAFolder::kRefuse) {
      return InvalidInput(shown + ": is " + what + "; attnverify does not follow it");
    }
    // Only the entry itself goes: unlinking a link never touches what it points to.
    if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT)
      return IoError(shown + ": is " + what + " and cannot be removed: " + std::strerror(errno));
    if (replaced != nullptr) {
      *replaced = shown + " was " + what +
                  ": replaced by a real folder (nothing it pointed "
                  "to was touched)";
    }
  }
  return IoError(shown + ": keeps changing while attnverify opens it");
}

Status RemoveTreeAt(int dir_fd, const std::string& name, const std::string& shown) {
  return RemoveTree(dir_fd, name, shown, 0);
}

Result<std::vector<std::string>> ListFolder(int dir_fd, const std::string& shown) {
  // fdopendir takes ownership of the descriptor it is given: a duplicate, so dir_fd
  // stays open, rewound to list from the start.
  int dup_fd = ::openat(dir_fd, ".", kFolderFlags);
  if (dup_fd < 0) return IoError(shown + ": cannot list folder: " + std::strerror(errno));
  DIR* d = ::fdopendir(dup_fd);
  if (d == nullptr) {
    const int err = errno;
    ::close(dup_fd);
    return IoError(shown + ": cannot list folder: " + std::strerror(err));
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) return IoError(shown + ": cannot list folder: " + std::strerror(err));
  return names;
}

}  // namespace av
