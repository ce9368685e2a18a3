// NumPy .npz archives: a ZIP file of .npy members, as np.savez (stored) and
// np.savez_compressed (deflated) write them. Parsing reads only the ZIP directories;
// Get() extracts one member on demand: stored members are views of the archive's
// bytes, deflated ones are inflated into owned memory and CRC-checked.
// An NpzArchive is immutable; Get() may be called from many threads at once.
// What we accept and reject, and why: doc/formats/npy.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.h"
#include "core/status.h"
#include "tensor/tensor.h"

namespace av {

class NpzArchive {
 public:
  // Member names in archive order, without the ".npy" suffix (as numpy's NpzFile.files).
  const std::vector<std::string>& names() const { return names_; }
  bool Contains(std::string_view name) const { return Find(name) != nullptr; }
  // The array stored as `name` (or `name`.npy). NotFound names the members present.
  Result<Tensor> Get(std::string_view name) const;
  // The archive's name as given to ParseNpz (usually its path).
  const std::string& archive_name() const { return archive_name_; }

 private:
  friend Result<NpzArchive> ParseNpz(std::shared_ptr<const Buffer> bytes, const std::string& name);

  struct Member {
    std::string name;      // as listed by names()
    std::string filename;  // as stored in the ZIP directory
    uint16_t method = 0;   // 0 stored, 8 deflated
    uint32_t crc = 0;
    uint64_t compressed_size = 0;
    uint64_t uncompressed_size = 0;
    uint64_t data_offset = 0;  // first byte of the member's data in the archive
  };

  const Member* Find(std::string_view name) const;

  std::shared_ptr<const Buffer> bytes_;
  std::string archive_name_;
  std::vector<Member> members_;
  std::vector<std::string> names_;
};

// Parses the ZIP directories of an .npz held in `bytes`; `name` starts every message.
// Checks every member's local header and data range, so Get() can fail only on the
// member's own content (corrupt deflate data, CRC mismatch, a bad .npy inside).
Result<NpzArchive> ParseNpz(std::shared_ptr<const Buffer> bytes, const std::string& name);

// Memory-maps `path` and parses it; the archive keeps the mapping alive.
Result<NpzArchive> ReadNpz(const std::string& path);

}  // namespace av
