#include "reference/fast_source.h"

#include <array>
#include <bit>
#include <cstring>
#include <string>

#include "tensor/float_convert.h"

namespace av {
namespace {

// f16 -> float for all 65536 bit patterns: a table lookup is several times faster than
// decoding, and gathers of f16 K/V run once per key block.
const float* HalfTable() {
  static const std::array<float, 65536>* table = [] {
    auto* t = new std::array<float, 65536>;
    for (uint32_t i = 0; i < 65536; ++i) (*t)[i] = HalfToFloat(static_cast<uint16_t>(i));
    return t;
  }();
  return table->data();
}

// fp8 -> float for all 256 bit patterns of each format.
template <float (*Decode)(uint8_t)>
const float* Fp8Table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) t[i] = Decode(static_cast<uint8_t>(i));
    return t;
  }();
  return table.data();
}

}  // namespace

Result<RowSource> RowSource::Make(const Tensor& t, const char* what) {
  if (!t.defined() || t.ndim() < 2 || !IsFloatingPoint(t.dtype())) {
    return InvalidInput(std::string(what) +
                        ": expected a floating tensor [rows..., heads, channels]");
  }
  RowSource s;
  s.holder_ = t;
  const int n = t.ndim();
  // Leading dimensions flatten into one row index when each stride is the next one times
  // its size (size-1 dimensions never matter).
  bool flat = true;
  for (int i = 0; i + 3 < n; ++i) {
    if (t.dim(i) != 1 && t.dim(i + 1) != 1 && t.strides()[i] != t.strides()[i + 1] * t.dim(i + 1)) {
      flat = false;
    }
  }
  if (!flat) s.holder_ = t.Contiguous();
  const Tensor& h = s.holder_;
  const int64_t es = static_cast<int64_t>(h.element_size());
  int64_t row_stride = 0;
  for (int i = n - 3; i >= 0; --i) {
    if (h.dim(i) != 1) {
      row_stride = h.strides()[i];
      break;
    }
  }
  s.base_ = h.data();
  s.dtype_ = h.dtype();
  s.row_stride_ = row_stride * es;
  s.head_stride_ = h.strides()[n - 2] * es;
  s.chan_stride_ = h.strides()[n - 1] * es;
  s.channels_ = h.dim(n - 1);
  s.elem_size_ = es;
  return s;
}

template <typename T>
void RowSource::Read(int64_t row, int64_t head, int64_t n, T scale, T* out) const {
  const std::byte* p = base_ + row * row_stride_ + head * head_stride_;
  const int64_t cs = chan_stride_;
  if (cs == static_cast<int64_t>(DTypeSize(dtype_))) {
    // Contiguous channels (every K/V cache and q we are given): plain loops that the
    // compiler vectorises; the strided loops below are scalar, and Read was 11% of MLA
    // decode samples with them (3% with these, V read from K included). An AVX-512 clone
    // of the bf16 loop measured no faster: the loads wait on memory, not on the lanes.
    if (dtype_ == DType::kBF16) {
      for (int64_t c = 0; c < n; ++c) {
        uint16_t b;
        std::memcpy(&b, p + 2 * c, sizeof b);
        out[c] = scale * static_cast<T>(std::bit_cast<float>(uint32_t{b} << 16));
      }
      return;
    }
    if (dtype_ == DType::kF32) {
      for (int64_t c = 0; c < n; ++c) {
        float x;
        std::memcpy(&x, p + 4 * c, sizeof x);
        out[c] = scale * static_cast<T>(x);
      }
      return;
    }
  }
  switch (dtype_) {
    case DType::kF32:
      for (int64_t c = 0; c < n; ++c) {
        float x;
        std::memcpy(&x, p + c * cs, sizeof x);
        out[c] = scale * static_cast<T>(x);
      }
      return;
    case DType::kBF16:
      for (int64_t c = 0; c < n; ++c) {
        uint16_t b;
        std::memcpy(&b, p + c * cs, sizeof b);
        out[c] = scale * static_cast<T>(std::bit_cast<float>(uint32_t{b} << 16));
      }
      return;
    case DType::kF16: {
      const float* table = HalfTable();
      for (int64_t c = 0; c < n; ++c) {
        uint16_t b;
        std::memcpy(&b, p + c * cs, sizeof b);
        out[c] = scale * static_cast<T>(table[b]);
      }
      return;
    }
    case DType::kF64:
      for (int64_t c = 0; c < n; ++c) {
        double x;
        std::memcpy(&x, p + c * cs, sizeof x);
        out[c] = scale * static_cast<T>(x);
      }
      return;
    case DType::kF8E4M3FN:
    case DType::kF8E5M2: {
      const float* table = dtype_ == DType::kF8E4M3FN ? Fp8Table<Float8E4M3FNToFloat>()
                                                      : Fp8Table<Float8E5M2ToFloat>();
      for (int64_t c = 0; c < n; ++c) out[c] = scale * static_cast<T>(table[uint8_t(p[c * cs])]);
      return;
    }
    default:
      for (int64_t c = 0; c < n; ++c)
        out[c] = scale * static_cast<T>(LoadOneAsDouble(dtype_, p + c * cs));
      return;
  }
}

template void RowSource::Read<float>(int64_t, int64_t, int64_t, float, float*) const;
template void RowSource::Read<double>(int64_t, int64_t, int64_t, double, double*) const;

}  // namespace av
