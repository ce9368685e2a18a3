#include "core/xxh3.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/check.h"
#include "core/file.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace av {
namespace {

std::string Hex(XXH128_hash_t h) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  static const char kHex[] = "0123456789abcdef";
  std::string out(2 * sizeof(c.digest), '0');
  for (size_t i = 0; i < sizeof(c.digest); ++i) {
    out[2 * i] = kHex[c.digest[i] >> 4];
    out[2 * i + 1] = kHex[c.digest[i] & 15];
  }
  return out;
}

}  // namespace

struct Xxh3Stream::State {
  State() : s(XXH3_createState()) {
    CHECK(s != nullptr) << "XXH3_createState failed";
    XXH3_128bits_reset(s);
  }
  ~State() { XXH3_freeState(s); }
  XXH3_state_t* s;
};

Xxh3Stream::Xxh3Stream() : state_(std::make_unique<State>()) {}
Xxh3Stream::~Xxh3Stream() = default;

void Xxh3Stream::Update(const void* data, size_t n) { XXH3_128bits_update(state_->s, data, n); }

std::string Xxh3Stream::HexDigest() const { return Hex(XXH3_128bits_digest(state_->s)); }

std::string Xxh3Hex(std::string_view bytes) {
  return Hex(XXH3_128bits(bytes.data(), bytes.size()));
}

Result<std::string> Xxh3File(const std::string& path) {
  // Only ever pointed at case files: a link, FIFO or device a candidate left there is
  // refused at once instead of followed, waited on or read forever.
  AV_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, Links::kRefuse));
  Xxh3Stream stream;
  // One block per thread, reused: a fresh zeroed MiB per file cost more than hashing
  // a small file.
  constexpr size_t kBlock = size_t{1} << 20;
  thread_local const std::unique_ptr<char[]> buf(new char[kBlock]);
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.get(), kBlock);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(path + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    stream.Update(buf.get(), static_cast<size_t>(n));
  }
  return stream.HexDigest();
}

}  // namespace av
