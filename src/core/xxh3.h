// XXH3-128 digests (Debian libxxhash-dev, header-only use) of byte strings and files, as
// 32 lowercase hex digits: a fast content check, ~20x faster than SHA-256 here, for
// "these bytes have not changed since we wrote them" where evidence needs no
// cryptographic name. The sweep records the SHA-256 of every inputs file (core/sha256.h)
// and checks the file after the candidate ran by this digest, taken at the same write.
// Not for anything an adversary chooses. Stateless functions; any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

std::string Xxh3Hex(std::string_view bytes);

// Streams the file in 1 MiB blocks. A symbolic link, FIFO or device is refused
// (core/file.h OpenRegularFile with Links::kRefuse).
Result<std::string> Xxh3File(const std::string& path);

// The digest of bytes that arrive in pieces. One thread at a time.
class Xxh3Stream {
 public:
  Xxh3Stream();
  ~Xxh3Stream();
  Xxh3Stream(const Xxh3Stream&) = delete;
  Xxh3Stream& operator=(const Xxh3Stream&) = delete;
  void Update(const void* data, size_t n);
  std::string HexDigest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace av
