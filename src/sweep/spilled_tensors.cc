#include "sweep/spilled_tensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace av {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// A nameless read-write file in dir: O_TMPFILE where the file system has it, else a
// mkstemp file unlinked before anything is written to it.
Result<UniqueFd> OpenNameless(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return UniqueFd(fd);
  std::string path = dir + "/.attnverify-spill.XXXXXX";
  fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return IoError(dir + ": cannot create a temporary file: " + ErrnoText(errno));
  UniqueFd owned(fd);
  if (::unlink(path.c_str()) != 0)
    return IoError(path + ": cannot unlink the temporary file: " + ErrnoText(errno));
  return owned;
}

Status WriteAt(int fd, const std::byte* p, int64_t n, int64_t at, const std::string& shown) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, static_cast<size_t>(std::min<int64_t>(n, 1 << 30)), at);
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError(shown + ": write failed: " + ErrnoText(errno));
    }
    p += w, n -= w, at += w;
  }
  return Status::Ok();
}

}  // namespace

Result<SpilledTensors> SpilledTensors::Write(const NamedTensors& tensors, const std::string& dir) {
  AV_ASSIGN_OR_RETURN(UniqueFd fd, OpenNameless(dir));
  SpilledTensors s;
  const std::string shown = "a temporary file in " + dir;
  int64_t at = 0;
  for (const auto& [name, t] : tensors) {
    const Tensor c = t.Contiguous();  // the fast results are: no copy
    Entry e;
    e.name = name;
    e.dtype = c.dtype();
    e.shape = c.shape();
    e.offset = at;
    e.bytes = static_cast<int64_t>(c.nbytes());
    e.xxh3 = Xxh3Hex(std::string_view(reinterpret_cast<const char*>(c.data()), c.nbytes()));
    AV_RETURN_IF_ERROR(WriteAt(fd.get(), c.data(), e.bytes, at, shown));
    at += e.bytes;
    s.entries_.push_back(std::move(e));
  }
  s.fd_ = std::make_shared<const UniqueFd>(std::move(fd));
  return s;
}

const SpilledTensors::Entry* SpilledTensors::Find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

int64_t SpilledTensors::total_bytes() const {
  int64_t n = 0;
  for (const Entry& e : entries_) n += e.bytes;
  return n;
}

SpilledTensors::Reader::Reader(std::shared_ptr<const UniqueFd> fd, const Entry& entry)
    : fd_(std::move(fd)), entry_(entry), hash_(std::make_unique<Xxh3Stream>()) {}

int64_t SpilledTensors::Reader::Fill(double* out, int64_t max) {
  if (!status_.ok()) return 0;
  const int64_t es = static_cast<int64_t>(DTypeSize(entry_.dtype));
  const int64_t want = std::min(max * es, entry_.bytes - read_);
  if (want <= 0) return 0;
  bytes_.resize(static_cast<size_t>(want));
  for (int64_t got = 0; got < want;) {
    const ssize_t r = ::pread(fd_->get(), bytes_.data() + got, static_cast<size_t>(want - got),
                              entry_.offset + read_ + got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      status_ = IoError("spilled " + entry_.name + ": read failed at byte " +
                        std::to_string(read_ + got) + ": " +
                        (r < 0 ? ErrnoText(errno) : std::string("the file ended")));
      return 0;
    }
    got += r;
  }
  hash_->Update(bytes_.data(), bytes_.size());
  read_ += want;
  if (read_ == entry_.bytes && hash_->HexDigest() != entry_.xxh3) {
    status_ = Internal("spilled " + entry_.name +
                       ": the bytes read back differ from those written (XXH3 " +
                       hash_->HexDigest() + ", written " + entry_.xxh3 + ")");
    return 0;
  }
  const int64_t n = want / es;
  LoadAsDouble(entry_.dtype, bytes_.data(), es, n, out);
  return n;
}

}  // namespace av
