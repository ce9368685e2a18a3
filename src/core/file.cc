#include "core/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "core/buffer.h"

namespace av {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Closes a descriptor on every return path.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(path + ": write failed: " + ErrnoText(errno));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound(path + ": no such file");
    return IoError(path + ": cannot open: " + ErrnoText(err));
  }
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return IoError(path + ": cannot stat: " + ErrnoText(errno));
  if (S_ISDIR(st.st_mode)) return InvalidInput(path + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode)) return InvalidInput(path + ": is not a regular file");
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    return std::shared_ptr<MappedFile>(new MappedFile(path, nullptr, 0));
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return IoError(path + ": cannot map: " + ErrnoText(errno));
  // Comparisons stream through the file once, front to back.
  ::madvise(p, size, MADV_SEQUENTIAL);
  return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<const std::byte*>(p), size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

std::shared_ptr<Buffer> CopyToBuffer(std::string_view bytes) {
  auto buffer = std::make_shared<OwnedBuffer>(bytes.size());
  if (!bytes.empty()) std::memcpy(buffer->mutable_data(), bytes.data(), bytes.size());
  return buffer;
}

Result<std::string> ReadFileToString(const std::string& path) {
  AV_ASSIGN_OR_RETURN(auto mapped, MappedFile::Open(path));
  return std::string(mapped->view());
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  // The temporary name is unique per call so that concurrent writers of different
  // files in one folder never collide.
  std::random_device rd;
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(path + ": cannot create temporary file: " + ErrnoText(errno));
  FdCloser closer(fd);
  Status st = WriteAll(fd, contents, path);
  if (st.ok() && ::fsync(fd) != 0) st = IoError(path + ": fsync failed: " + ErrnoText(errno));
  if (::close(closer.release()) != 0 && st.ok()) {
    st = IoError(path + ": close failed: " + ErrnoText(errno));
  }
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st = IoError(path + ": cannot rename into place: " + ErrnoText(errno));
  }
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

}  // namespace av
