#include "core/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <new>
#include <cstring>
#include <random>

namespace av {
namespace {

static_assert(AT_FDCWD == -100, "OpenRegularFile passes AT_FDCWD as -100");

std::string ErrnoText(int err) { return std::strerror(err); }

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

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    Reset();
    fd_ = o.release();
  }
  return *this;
}

void UniqueFd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string FileTypeName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFLNK:
      return "a symbolic link";
  }
  return "not a regular file";
}

Result<UniqueFd> OpenRegularFileAt(int dir_fd, const std::string& name, const std::string& shown,
                                   Links links, size_t* size) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever;
  // O_NOCTTY: a terminal named here never becomes ours.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (links == Links::kRefuse) flags |= O_NOFOLLOW;
  UniqueFd fd(::openat(dir_fd, name.c_str(), flags));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFound(shown + ": no such file");
    if (err == ELOOP && links == Links::kRefuse) {
      return InvalidInput(shown +
                          ": is a symbolic link (not followed: only a regular file is "
                          "read here)");
    }
    return IoError(shown + ": cannot open: " + ErrnoText(err));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return IoError(shown + ": cannot stat: " + ErrnoText(errno));
  if (S_ISDIR(st.st_mode)) return InvalidInput(shown + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode)) {
    return InvalidInput(shown + ": is " + FileTypeName(st.st_mode) + ", not a regular file");
  }
  if (size != nullptr) *size = static_cast<size_t>(st.st_size);
  return fd;
}

Result<std::shared_ptr<OwnedBuffer>> ReadFdToBuffer(int fd, const std::string& shown,
                                                    size_t max_bytes) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return IoError(shown + ": cannot stat: " + ErrnoText(errno));
  const size_t size = static_cast<size_t>(st.st_size);
  if (size > max_bytes) {
    return InvalidInput(shown + ": is " + std::to_string(size) + " bytes, more than the " +
                        std::to_string(max_bytes) + " it may hold (refused unread)");
  }
  auto buffer = std::make_shared<OwnedBuffer>(size);
  char* p = reinterpret_cast<char*>(buffer->mutable_data());
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::pread(fd, p + got, size - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(shown + ": read error: " + ErrnoText(errno));
    if (n == 0) {
      return InvalidInput(shown + ": changed while being read (cut to " + std::to_string(got) +
                          " of " + std::to_string(size) + " bytes)");
    }
    got += static_cast<size_t>(n);
  }
  return buffer;
}

Result<std::shared_ptr<OwnedBuffer>> ReadFileToBuffer(const std::string& path, Links links,
                                                      size_t max_bytes) {
  AV_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, links));
  return ReadFdToBuffer(fd.get(), path, max_bytes);
}

void AdviseHugePages(void* p, size_t size) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (size < 2 * kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

Result<std::shared_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  size_t size = 0;
  AV_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, Links::kFollow, &size));
  if (size == 0) {
    return std::shared_ptr<MappedFile>(new MappedFile(path, nullptr, 0));
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (p == MAP_FAILED) return IoError(path + ": cannot map: " + ErrnoText(errno));
  // Comparisons stream through the file once, front to back.
  ::madvise(p, size, MADV_SEQUENTIAL);
  return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<const std::byte*>(p), size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

OwnedBuffer::OwnedBuffer(size_t size) : size_(size) {
  if (size == 0) return;  // data() is null for an empty buffer
  bytes_.reset(static_cast<std::byte*>(std::calloc(size, 1)));
  if (bytes_ == nullptr) throw std::bad_alloc();
  AdviseHugePages(bytes_.get(), size);
}

void OwnedBuffer::Free::operator()(std::byte* p) const { std::free(p); }

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
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (fd.get() < 0) return IoError(path + ": cannot create temporary file: " + ErrnoText(errno));
  Status st = WriteAll(fd.get(), contents, path);
  if (st.ok() && ::fsync(fd.get()) != 0) st = IoError(path + ": fsync failed: " + ErrnoText(errno));
  if (::close(fd.release()) != 0 && st.ok()) {
    st = IoError(path + ": close failed: " + ErrnoText(errno));
  }
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st = IoError(path + ": cannot rename into place: " + ErrnoText(errno));
  }
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

}  // namespace av
