// NumPy .npy files: one array, a small Python-literal header, then the raw elements.
// The reader views the file's bytes without copying (memory-mapped by ReadNpy); the
// writer emits exactly what np.save writes. Pure functions, safe from any thread.
// What we accept and reject, and why: doc/formats/npy.md.
#pragma once

#include <memory>
#include <string>

#include "core/buffer.h"
#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

// numpy refuses headers longer than this unless the caller trusts the file
// (numpy/lib/_format_impl.py: _MAX_HEADER_SIZE); we apply the same limit.
inline constexpr size_t kNpyMaxHeaderBytes = 10000;
// numpy's NPY_MAXDIMS (since numpy 2.0); no file numpy writes has more dimensions.
inline constexpr size_t kNpyMaxRank = 64;

// Parses a whole .npy file held in `bytes`. `name` (usually the path) starts every
// error message. Little-endian and one-byte data is viewed in place (Fortran order as
// column-major strides); big-endian data is byte-swapped into an owned buffer.
// Trailing bytes after the data are ignored, as numpy ignores them.
Result<Tensor> ParseNpy(std::shared_ptr<const Buffer> bytes, const std::string& name);

// Memory-maps `path` and parses it; the tensor keeps the mapping alive.
Result<Tensor> ReadNpy(const std::string& path);

// The bytes np.save would write for `tensor` (C order, little-endian, version 1.0
// unless the header needs 2.0, data starting at a multiple of 64 bytes).
// bf16 and float8 have no npy descr: Unsupported (use safetensors).
Result<std::string> SerializeNpy(const Tensor& tensor);

// SerializeNpy, then replaces `path` atomically.
Status WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace av
