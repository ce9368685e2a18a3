#include "core/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/text_diff.h"

namespace av {
namespace {

std::string Errno() { return std::strerror(errno); }

std::string Parent(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status MakeFolders(const std::string& dir) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return InvalidInput(dir + ": is a symbolic link; refusing to write through it");
    if (!S_ISDIR(st.st_mode)) return InvalidInput(dir + ": is not a folder");
    return Status::Ok();
  }
  if (dir != "." && dir != "/") AV_RETURN_IF_ERROR(MakeFolders(Parent(dir)));
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return IoError(dir + ": cannot create folder: " + Errno());
  }
  return Status::Ok();
}

Result<std::string> ReadNoFollow(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return IoError(path + ": cannot open: " + Errno());
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return IoError(path + ": cannot read: " + Errno());
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (16 << 20)) {
      ::close(fd);
      return InvalidInput(path + ": larger than 16 MiB; not a config file");
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

Result<PrivateWrite> WritePrivateFile(const std::string& path, const std::string& contents,
                                      bool force) {
  PrivateWrite w;
  std::string dir = Parent(path);
  AV_RETURN_IF_ERROR(MakeFolders(dir));
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return InvalidInput(path + ": is a symbolic link; refusing to write through it");
    if (!S_ISREG(st.st_mode)) return InvalidInput(path + ": exists and is not a regular file");
    w.existed = true;
    AV_ASSIGN_OR_RETURN(std::string old, ReadNoFollow(path));
    if (old == contents) {
      w.unchanged = true;
      if ((st.st_mode & 0777) != 0600) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
        w.mode_note =
            path + " has mode " + mode + ", not 0600 (chmod 600 it, or rewrite it with --force)";
        if (force) {
          if (::chmod(path.c_str(), 0600) != 0) return IoError(path + ": chmod failed: " + Errno());
          w.mode_note.clear();
        }
      }
      return w;
    }
    w.diff = UnifiedLineDiff(old, contents, path, path + " (new)");
    if (!force) return w;
  } else if (errno != ENOENT) {
    return IoError(path + ": cannot stat: " + Errno());
  }
  std::random_device rd;
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return IoError(path + ": cannot create a temporary file: " + Errno());
  Status st_write;
  std::string_view rest = contents;
  while (!rest.empty() && st_write.ok()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      st_write = IoError(path + ": write failed: " + Errno());
      break;
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (st_write.ok() && ::fchmod(fd, 0600) != 0)
    st_write = IoError(path + ": fchmod failed: " + Errno());
  if (st_write.ok() && ::fsync(fd) != 0) st_write = IoError(path + ": fsync failed: " + Errno());
  if (::close(fd) != 0 && st_write.ok()) st_write = IoError(path + ": close failed: " + Errno());
  if (st_write.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st_write = IoError(path + ": cannot rename into place: " + Errno());
  }
  if (!st_write.ok()) {
    ::unlink(tmp.c_str());
    return st_write;
  }
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  w.written = true;
  return w;
}

}  // namespace av
