// SHA-256 digests of byte strings and files (OpenSSL EVP), as lowercase hex. Evidence
// names the sha256 of every input and output it judged, and the sweep checks that a
// candidate left its inputs unchanged. Stateless; call from any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

// 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

// Streams the file in 1 MiB blocks (memory stays bounded for multi-GB tensors).
Result<std::string> Sha256File(const std::string& path);

}  // namespace av
