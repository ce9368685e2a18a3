// Buffer: an immutable run of bytes that tensors view without copying — either owned
// memory or a read-only memory map of a file. Shared by shared_ptr; safe to read from
// many threads. Only an OwnedBuffer may be written, and only before it is shared.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual const std::byte* data() const = 0;
  virtual size_t size() const = 0;
  // Whether mutable_data() may be written through (only OwnedBuffer).
  virtual bool writable() const { return false; }
  // Writable bytes of a writable buffer (null for an empty one); null otherwise.
  virtual std::byte* mutable_data() { return nullptr; }

  std::string_view view() const {
    return std::string_view(reinterpret_cast<const char*>(data()), size());
  }
};

// `size` zero bytes, from calloc: a large block comes straight from the kernel's zeroed
// pages, with no second pass that writes zeros over them (std::vector's value
// initialisation had written all 302 MB of an MLA cache buffer before a read overwrote
// them). Aborts when the memory cannot be had, as `new` would.
class OwnedBuffer final : public Buffer {
 public:
  explicit OwnedBuffer(size_t size);
  const std::byte* data() const override { return bytes_.get(); }
  size_t size() const override { return size_; }
  bool writable() const override { return true; }
  std::byte* mutable_data() override { return bytes_.get(); }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], Free> bytes_;
  size_t size_;
};

// A read-only private mapping of a whole file. Empty files map to an empty buffer.
class MappedFile final : public Buffer {
 public:
  static Result<std::shared_ptr<MappedFile>> Open(const std::string& path);
  ~MappedFile() override;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const override { return data_; }
  size_t size() const override { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, const std::byte* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  const std::byte* data_;
  size_t size_;
};

// A buffer holding a copy of `bytes` (tests, small in-memory inputs, fuzzers).
std::shared_ptr<Buffer> CopyToBuffer(std::string_view bytes);

// Asks the kernel for transparent huge pages over the 2 MiB-aligned part of [p, p + size)
// when it spans at least two of them (a hint; the memory is unchanged). A fresh block of
// zero pages then faults in up to 512 times less often: OwnedBuffer asks for every large
// block (the fast causal prefill of bench/reference_bench, whose float64 output is
// 64 MiB, went from 425 to 386 ms).
void AdviseHugePages(void* p, size_t size);

}  // namespace av
