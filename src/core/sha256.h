// SHA-256 digests of byte strings and files (OpenSSL EVP), as lowercase hex. Evidence
// names the sha256 of every input and output it judged, and the sweep checks that a
// candidate left its inputs unchanged. Stateless; call from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

// 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

// Streams the file in 1 MiB blocks (memory stays bounded for multi-GB tensors).
Result<std::string> Sha256File(const std::string& path);

// The digest of bytes that arrive in pieces (a file being written). One thread at a time.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void Update(const void* data, size_t n);
  // 64 lowercase hex digits; the stream is finished after this.
  std::string HexDigest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace av
