// Whole-file helpers. Writes are atomic (temporary file in the same folder, fsync,
// rename), so an interrupted run never leaves half a report and never destroys the
// previous one. Reads never block and never map what a candidate could change: every
// open is O_NONBLOCK (a FIFO answers at once) and only a regular file is read; files of
// a case folder are also opened O_NOFOLLOW and read into owned memory with pread, with
// a size cap checked before the first byte is read. Thread-safe for distinct paths.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/buffer.h"
#include "core/status.h"

namespace av {

// How an open treats a symbolic link at the last component of the path.
enum class Links {
  kFollow,  // paths the user names (compare's tensors, --config)
  kRefuse,  // anything inside a case folder or the package that a candidate could plant
};

// A file descriptor closed when the object dies.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Reset();

 private:
  int fd_ = -1;
};

// "a FIFO", "a character device", ...: what a non-regular st_mode is, for messages.
std::string FileTypeName(unsigned mode);

// Opens `name` relative to `dir_fd` (AT_FDCWD: the working directory) for reading:
// O_NONBLOCK, O_NOFOLLOW under Links::kRefuse, then fstat; anything but a regular file is
// refused with a message that starts with `shown` ("out/o.npy: is a FIFO, not a regular
// file"). `size` receives the file's length when not null.
Result<UniqueFd> OpenRegularFileAt(int dir_fd, const std::string& name, const std::string& shown,
                                   Links links, size_t* size = nullptr);
inline Result<UniqueFd> OpenRegularFile(const std::string& path, Links links,
                                        size_t* size = nullptr) {
  return OpenRegularFileAt(-100 /* AT_FDCWD */, path, path, links, size);
}

// Reads the whole of an open regular file into owned memory with pread. A file longer
// than `max_bytes` is refused before anything is read (a 10 GB sparse tail costs
// nothing); one that is cut while being read is an error naming how much was there.
Result<std::shared_ptr<OwnedBuffer>> ReadFdToBuffer(int fd, const std::string& shown,
                                                    size_t max_bytes);
Result<std::shared_ptr<OwnedBuffer>> ReadFileToBuffer(const std::string& path, Links links,
                                                      size_t max_bytes);

Result<std::string> ReadFileToString(const std::string& path);

// Replaces `path` with `contents` atomically; creates no parent folders. A failed write
// (disk full, EFBIG under `ulimit -f`) names the file and leaves no temporary behind.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace av
