// Safetensors: Hugging Face's tensor container — an 8-byte little-endian header length,
// a JSON header naming each tensor's dtype, shape and byte range, then one packed data
// buffer. The reader validates a file completely and returns zero-copy Tensor views of
// its bytes; the writer produces files the reference `safetensors` package loads.
// Every rule we enforce, and why, is in doc/formats/safetensors.md. All functions are
// free of shared state; call them from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/buffer.h"
#include "core/status.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace av {

// The reference implementation refuses headers longer than this (MAX_HEADER_SIZE in the
// Rust crate); so do we, on read and on write.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// A parsed file. Tensors view the file's bytes (a memory map for ReadSafetensors) and
// keep them alive, so a SafetensorsFile may be dropped while its tensors are in use.
struct SafetensorsFile {
  // In file order: ascending data offsets (ties keep header order).
  std::vector<std::pair<std::string, Tensor>> tensors;
  // The "__metadata__" string map; empty when the file has none.
  std::map<std::string, std::string> metadata;

  // The tensor called `name`, or nullptr. Linear search: files hold at most thousands.
  const Tensor* Find(std::string_view name) const;
};

// Parses a whole safetensors file held in `bytes`. `name` (usually the path) starts every
// error message. Errors: InvalidInput for anything the format forbids, Unsupported for
// well-formed files we cannot represent (dtypes such as U16 or F8_E8M0, rank > 64,
// dimensions above 2^63 - 1).
Result<SafetensorsFile> ParseSafetensors(std::shared_ptr<const Buffer> bytes,
                                         const std::string& name);

// Memory-maps `path` and parses it; tensor data is neither copied nor read until used.
Result<SafetensorsFile> ReadSafetensors(const std::string& path);

// The bytes of a safetensors file holding `tensors` in the order given (data packed in
// that order, no gaps) and `metadata` (written first, omitted when empty). Compact JSON
// header padded with spaces to a multiple of 8 bytes. Non-contiguous tensors are written
// in row-major order. Names must be unique, valid UTF-8 and not "__metadata__".
Result<std::string> SerializeSafetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                         const std::map<std::string, std::string>& metadata = {});

// The first bytes of that file: the 8-byte little-endian length and the padded JSON
// header, so a writer can stream the tensors' bytes after it (same checks and errors).
Result<std::string> SerializeSafetensorsHeader(
    const std::vector<std::pair<std::string, Tensor>>& tensors,
    const std::map<std::string, std::string>& metadata = {});

// SerializeSafetensors, then replaces `path` atomically (WriteFileAtomically).
Status WriteSafetensors(const std::string& path,
                        const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata = {});

// The format's spelling of a dtype: "F32", "BF16", "F8_E4M3" (our kF8E4M3FN), "BOOL", ...
std::string_view SafetensorsDTypeName(DType dtype);
// The inverse for the dtypes we support; nullopt for any other string.
std::optional<DType> ParseSafetensorsDType(std::string_view name);

}  // namespace av
