// ByteReader: bounds-checked, little-endian reads from untrusted bytes (bloaty's
// ReadFixed). Every read says whether the bytes were there; nothing reads past the end.
// Used by the npy, npz and safetensors parsers. Not thread-safe (it has a cursor).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace av {

class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  std::string_view rest() const { return data_.substr(pos_); }

  // Reads an unsigned little-endian integer of sizeof(T) bytes.
  template <typename T>
  bool ReadLittleEndian(T* out) {
    static_assert(std::is_unsigned_v<T>);
    if (remaining() < sizeof(T)) return false;
    T value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      value |= static_cast<T>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof(T);
    *out = value;
    return true;
  }

  bool ReadBytes(size_t n, std::string_view* out) {
    if (remaining() < n) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }

  bool Skip(size_t n) {
    if (remaining() < n) return false;
    pos_ += n;
    return true;
  }

  bool Seek(size_t position) {
    if (position > data_.size()) return false;
    pos_ = position;
    return true;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Reads a little-endian unsigned integer at `offset` of `data`; the caller has checked bounds.
template <typename T>
T LoadLittleEndian(const void* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;  // every target we build for is little-endian (static_assert in tensor/dtype.cc)
}

}  // namespace av
