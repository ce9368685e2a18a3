// SpilledTensors: named tensors moved out of memory into a temporary file while something
// larger needs the room, and read back a chunk at a time as doubles. The oracle referee
// spills the fast reference's results (512 MiB for a 4096 x 32768 GEMM) while the oracle
// computes its own (1 GiB in float64), then checks that the two agree from the file
// (sweep/numerics_run_referee.h). Memory is only borrowed: a spill that fails leaves the
// caller to keep its tensors.
// The file has no name (O_TMPFILE, else created and unlinked at once): no other process
// can open it by path, and it is gone when the object is. The XXH3 of each tensor's
// bytes, taken as they were written, is checked as they are read back. One reader at a
// time per object; distinct objects on distinct threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/status.h"
#include "core/xxh3.h"
#include "reference/ref_ops.h"

namespace av {

class SpilledTensors {
 public:
  struct Entry {
    std::string name;
    DType dtype = DType::kF32;
    Shape shape;
    int64_t offset = 0;  // of its first byte in the file
    int64_t bytes = 0;
    std::string xxh3;  // of those bytes, as written
  };

  // Writes every tensor's elements (row-major, its own dtype) to a nameless file in `dir`.
  // The tensors are left as they are: the caller frees them once this succeeded.
  static Result<SpilledTensors> Write(const NamedTensors& tensors, const std::string& dir);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* Find(const std::string& name) const;
  int64_t total_bytes() const;

  // Reads one entry's elements back as doubles, in row-major order.
  class Reader {
   public:
    // Fills out[0..n) with the next n <= max elements and returns n: `max` unless the
    // tensor ends first; 0 at the end or after an error (then status() says what).
    int64_t Fill(double* out, int64_t max);
    // Not ok when a read failed, or when the bytes read back, all of them read, do not
    // hash to what was written.
    const Status& status() const { return status_; }

   private:
    friend class SpilledTensors;
    Reader(std::shared_ptr<const UniqueFd> fd, const Entry& entry);
    std::shared_ptr<const UniqueFd> fd_;
    const Entry& entry_;
    int64_t read_ = 0;  // bytes
    std::vector<std::byte> bytes_;
    std::unique_ptr<Xxh3Stream> hash_;
    Status status_;
  };
  Reader Open(const Entry& entry) const { return Reader(fd_, entry); }

 private:
  std::shared_ptr<const UniqueFd> fd_;
  std::vector<Entry> entries_;
};

}  // namespace av
