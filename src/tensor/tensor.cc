#include "tensor/tensor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "tensor/float_convert.h"

namespace av {

Result<int64_t> CheckedNumel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return InvalidInput("dimension " + std::to_string(i) + " is negative (" +
                          std::to_string(shape[i]) + ")");
    }
    if (shape[i] != 0 && n > std::numeric_limits<int64_t>::max() / shape[i]) {
      return InvalidInput("shape " + ShapeToString(shape) + " has too many elements");
    }
    n *= shape[i];
  }
  return n;
}

std::string ShapeToString(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Shape ContiguousStrides(std::span<const int64_t> shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    // Saturate: only an empty tensor can have dimensions whose product overflows, and
    // an empty tensor's strides address nothing.
    const int64_t d = std::max<int64_t>(shape[i], 1);
    s = s > std::numeric_limits<int64_t>::max() / d ? std::numeric_limits<int64_t>::max() : s * d;
  }
  return strides;
}

Tensor::Tensor(std::shared_ptr<const Buffer> buffer, const std::byte* base, DType dtype,
               Shape shape, Shape strides)
    : buffer_(std::move(buffer)),
      base_(base),
      dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(strides)) {
  numel_ = 1;
  for (int64_t d : shape_) numel_ *= d;
}

Tensor Tensor::Zeros(DType dtype, Shape shape) {
  auto numel = CheckedNumel(shape);
  CHECK(numel.ok()) << numel.status().message();
  size_t bytes = static_cast<size_t>(*numel) * DTypeSize(dtype);
  CHECK(bytes / DTypeSize(dtype) == static_cast<size_t>(*numel)) << "tensor too large";
  auto buffer = std::make_shared<OwnedBuffer>(bytes);
  const std::byte* base = buffer->data();
  Shape strides = ContiguousStrides(shape);
  return Tensor(std::move(buffer), base, dtype, std::move(shape), std::move(strides));
}

Result<Tensor> Tensor::FromBuffer(std::shared_ptr<const Buffer> buffer, size_t byte_offset,
                                  DType dtype, Shape shape) {
  Shape strides = ContiguousStrides(shape);
  return FromBuffer(std::move(buffer), byte_offset, dtype, std::move(shape), std::move(strides));
}

Result<Tensor> Tensor::FromBuffer(std::shared_ptr<const Buffer> buffer, size_t byte_offset,
                                  DType dtype, Shape shape, Shape strides) {
  CHECK(buffer != nullptr) << "FromBuffer: null buffer";
  if (shape.size() != strides.size()) {
    return InvalidInput("shape " + ShapeToString(shape) + " and strides " + ShapeToString(strides) +
                        " differ in rank");
  }
  AV_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(shape));
  if (byte_offset > buffer->size()) {
    return InvalidInput("data offset " + std::to_string(byte_offset) + " is past the end (" +
                        std::to_string(buffer->size()) + " bytes)");
  }
  // The furthest element addressed, in elements from the base; all checked for overflow.
  // An empty tensor addresses nothing, whatever its strides.
  int64_t last = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (strides[i] < 0) return InvalidInput("negative stride in dimension " + std::to_string(i));
    if (numel == 0) continue;
    int64_t extent = shape[i] - 1;
    if (strides[i] != 0 && extent > std::numeric_limits<int64_t>::max() / strides[i]) {
      return InvalidInput("strides " + ShapeToString(strides) + " overflow");
    }
    if (last > std::numeric_limits<int64_t>::max() - extent * strides[i]) {
      return InvalidInput("strides " + ShapeToString(strides) + " overflow");
    }
    last += extent * strides[i];
  }
  const uint64_t elem = DTypeSize(dtype);
  const uint64_t available = buffer->size() - byte_offset;
  if (numel > 0) {
    uint64_t span_elems = static_cast<uint64_t>(last) + 1;
    if (span_elems > available / elem) {
      return InvalidInput("tensor of shape " + ShapeToString(shape) + " and dtype " +
                          std::string(DTypeName(dtype)) + " needs " + std::to_string(span_elems) +
                          " elements of " + std::to_string(elem) + " bytes but only " +
                          std::to_string(available) + " bytes are present");
    }
  }
  const std::byte* base = buffer->data() == nullptr ? nullptr : buffer->data() + byte_offset;
  return Tensor(std::move(buffer), base, dtype, std::move(shape), std::move(strides));
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expected) return numel_ == 0;
    expected *= shape_[i];
  }
  return true;
}

std::byte* Tensor::mutable_data() {
  CHECK(buffer_ != nullptr) << "mutable_data on an undefined tensor";
  // Only OwnedBuffers expose mutable memory; a mapped file never does.
  CHECK(buffer_->writable()) << "tensor is read-only (it views a file)";
  std::byte* writable = const_cast<Buffer&>(*buffer_).mutable_data();
  if (writable == nullptr) return nullptr;  // an empty buffer: nothing to write
  return writable + (base_ - buffer_->data());
}

int64_t Tensor::ByteOffset(std::span<const int64_t> index) const {
  CHECK(index.size() == shape_.size())
      << "index rank " << index.size() << " != tensor rank " << shape_.size();
  int64_t offset = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    CHECK(index[i] >= 0 && index[i] < shape_[i])
        << "index " << index[i] << " out of range for dimension " << i << " of size " << shape_[i];
    offset += index[i] * strides_[i];
  }
  return offset * static_cast<int64_t>(element_size());
}

std::vector<int64_t> Tensor::Unravel(int64_t linear) const {
  std::vector<int64_t> index(shape_.size());
  for (size_t i = shape_.size(); i-- > 0;) {
    index[i] = linear % shape_[i];
    linear /= shape_[i];
  }
  return index;
}

double Tensor::GetDouble(std::span<const int64_t> index) const {
  return LoadOneAsDouble(dtype_, base_ + ByteOffset(index));
}

void Tensor::SetDouble(std::span<const int64_t> index, double value) {
  StoreFromDouble(dtype_, value, mutable_data() + ByteOffset(index));
}

Result<Tensor> Tensor::Slice(int dim, int64_t start, int64_t stop, int64_t step) const {
  if (dim < 0 || dim >= ndim()) {
    return InvalidInput("slice dimension " + std::to_string(dim) + " out of range for rank " +
                        std::to_string(ndim()));
  }
  const int64_t size = shape_[static_cast<size_t>(dim)];
  if (step <= 0) return InvalidInput("slice step must be positive, got " + std::to_string(step));
  if (start < 0 || start > size || stop < start || stop > size) {
    return InvalidInput("slice [" + std::to_string(start) + ":" + std::to_string(stop) +
                        "] out of range for dimension " + std::to_string(dim) + " of size " +
                        std::to_string(size));
  }
  Tensor out = *this;
  out.shape_[static_cast<size_t>(dim)] = (stop - start + step - 1) / step;
  out.strides_[static_cast<size_t>(dim)] *= step;
  if (out.shape_[static_cast<size_t>(dim)] > 0) {
    out.base_ += start * strides_[static_cast<size_t>(dim)] * static_cast<int64_t>(element_size());
  }
  out.numel_ = 1;
  for (int64_t d : out.shape_) out.numel_ *= d;
  return out;
}

Result<Tensor> Tensor::Permute(std::span<const int> order) const {
  if (order.size() != shape_.size()) {
    return InvalidInput("permutation has " + std::to_string(order.size()) +
                        " entries for a tensor of rank " + std::to_string(ndim()));
  }
  std::vector<bool> seen(order.size(), false);
  Tensor out = *this;
  for (size_t i = 0; i < order.size(); ++i) {
    int d = order[i];
    if (d < 0 || d >= ndim() || seen[static_cast<size_t>(d)]) {
      return InvalidInput("invalid permutation: dimension " + std::to_string(d) +
                          " repeated or out of range");
    }
    seen[static_cast<size_t>(d)] = true;
    out.shape_[i] = shape_[static_cast<size_t>(d)];
    out.strides_[i] = strides_[static_cast<size_t>(d)];
  }
  return out;
}

Result<Tensor> Tensor::Reshape(Shape shape) const {
  AV_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(shape));
  if (numel != numel_) {
    return InvalidInput("cannot reshape " + ShapeToString(shape_) + " (" + std::to_string(numel_) +
                        " elements) to " + ShapeToString(shape));
  }
  if (!is_contiguous()) {
    return InvalidInput("reshape needs a contiguous tensor; call Contiguous() first");
  }
  Tensor out = *this;
  out.strides_ = ContiguousStrides(shape);
  out.shape_ = std::move(shape);
  return out;
}

Tensor Tensor::Contiguous() const {
  if (is_contiguous() && buffer_ != nullptr && buffer_->writable()) {
    return *this;
  }
  Tensor out = Zeros(dtype_, shape_);
  const size_t elem = element_size();
  std::byte* dst = out.mutable_data();
  if (numel_ == 0) return out;
  if (is_contiguous()) {  // read-only memory (a mapped file): one copy
    std::memcpy(dst, base_, nbytes());
    return out;
  }
  // Row by row over the last dimension: one memcpy per row when its elements are
  // adjacent, else element by element; the row's start advances like an odometer.
  const size_t nd = shape_.size();
  const int64_t row_len = shape_.back();
  const int64_t last_stride = strides_.back();
  const int64_t rows = numel_ / row_len;
  std::vector<int64_t> index(nd - 1, 0);
  int64_t offset = 0;  // elements from base_ to the row's first element
  for (int64_t r = 0; r < rows; ++r) {
    std::byte* row_dst = dst + static_cast<size_t>(r * row_len) * elem;
    const std::byte* row_src = base_ + offset * static_cast<int64_t>(elem);
    if (last_stride == 1) {
      std::memcpy(row_dst, row_src, static_cast<size_t>(row_len) * elem);
    } else {
      for (int64_t c = 0; c < row_len; ++c) {
        std::memcpy(row_dst + static_cast<size_t>(c) * elem,
                    row_src + c * last_stride * static_cast<int64_t>(elem), elem);
      }
    }
    for (size_t d = nd - 1; d-- > 0;) {
      offset += strides_[d];
      if (++index[d] < shape_[d]) break;
      offset -= strides_[d] * shape_[d];
      index[d] = 0;
    }
  }
  return out;
}

namespace {

template <typename T>
T LoadRaw(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void StoreRaw(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Truncates toward zero and saturates at the integer type's range; NaN stores 0
// (C++ leaves these cases undefined; we define them so no input can crash a tool).
template <typename T>
T SaturatingCast(double value) {
  if (std::isnan(value)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
  // max()+1 is a power of two, exactly representable as a double.
  constexpr double hi_exclusive = static_cast<double>(std::numeric_limits<T>::max() / 2 + 1) * 2;
  if (value <= lo) return std::numeric_limits<T>::min();
  if (value >= hi_exclusive) return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

// Decoding tables for the 16- and 8-bit floating formats: a lookup beats the bit
// manipulation (and a call per element) by several times in comparison loops.
// Built once, thread-safely, on first use.
template <int kBits, float (*Decode)(uint16_t)>
const std::vector<float>& DecodeTable() {
  static const std::vector<float> table = [] {
    std::vector<float> t(size_t{1} << kBits);
    for (size_t code = 0; code < t.size(); ++code) t[code] = Decode(static_cast<uint16_t>(code));
    return t;
  }();
  return table;
}
float DecodeE4M3(uint16_t code) { return Float8E4M3FNToFloat(static_cast<uint8_t>(code)); }
float DecodeE5M2(uint16_t code) { return Float8E5M2ToFloat(static_cast<uint8_t>(code)); }

// One instantiation per dtype so the inner loop has no switch.
template <typename Decode>
void LoadLoop(const std::byte* src, int64_t stride, int64_t count, double* out, Decode decode) {
  for (int64_t i = 0; i < count; ++i) out[i] = decode(src + i * stride);
}

}  // namespace

void LoadAsDouble(DType dtype, const std::byte* src, int64_t stride, int64_t count, double* out) {
  switch (dtype) {
    case DType::kF64:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return LoadRaw<double>(p); });
    case DType::kF32:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return double{LoadRaw<float>(p)}; });
    case DType::kF16: {
      const float* table = DecodeTable<16, HalfToFloat>().data();
      return LoadLoop(src, stride, count, out,
                      [table](const std::byte* p) { return double{table[LoadRaw<uint16_t>(p)]}; });
    }
    case DType::kBF16:
      // bfloat16 is the top half of a float32: the shift is exact, NaN payloads included.
      return LoadLoop(src, stride, count, out, [](const std::byte* p) {
        return double{std::bit_cast<float>(uint32_t{LoadRaw<uint16_t>(p)} << 16)};
      });
    case DType::kF8E4M3FN: {
      const float* table = DecodeTable<8, DecodeE4M3>().data();
      return LoadLoop(src, stride, count, out,
                      [table](const std::byte* p) { return double{table[LoadRaw<uint8_t>(p)]}; });
    }
    case DType::kF8E5M2: {
      const float* table = DecodeTable<8, DecodeE5M2>().data();
      return LoadLoop(src, stride, count, out,
                      [table](const std::byte* p) { return double{table[LoadRaw<uint8_t>(p)]}; });
    }
    case DType::kI8:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return double(LoadRaw<int8_t>(p)); });
    case DType::kI16:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return double(LoadRaw<int16_t>(p)); });
    case DType::kI32:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return double(LoadRaw<int32_t>(p)); });
    case DType::kI64:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return double(LoadRaw<int64_t>(p)); });
    case DType::kU8:
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return double(LoadRaw<uint8_t>(p)); });
    case DType::kBool:
      // Any non-zero byte is true, as numpy reads it.
      return LoadLoop(src, stride, count, out,
                      [](const std::byte* p) { return LoadRaw<uint8_t>(p) != 0 ? 1.0 : 0.0; });
  }
  CHECK(false) << "unhandled dtype";
}

double LoadOneAsDouble(DType dtype, const std::byte* src) {
  double v;
  LoadAsDouble(dtype, src, 0, 1, &v);
  return v;
}

void StoreFromDouble(DType dtype, double value, std::byte* dst) {
  switch (dtype) {
    case DType::kF64:
      return StoreRaw(dst, value);
    case DType::kF32:
      return StoreRaw(dst, static_cast<float>(value));
    case DType::kF16:
      return StoreRaw(dst, DoubleToHalf(value));
    case DType::kBF16:
      return StoreRaw(dst, DoubleToBFloat16(value));
    case DType::kF8E4M3FN:
      return StoreRaw(dst, DoubleToFloat8E4M3FN(value));
    case DType::kF8E5M2:
      return StoreRaw(dst, DoubleToFloat8E5M2(value));
    case DType::kI8:
      return StoreRaw(dst, SaturatingCast<int8_t>(value));
    case DType::kI16:
      return StoreRaw(dst, SaturatingCast<int16_t>(value));
    case DType::kI32:
      return StoreRaw(dst, SaturatingCast<int32_t>(value));
    case DType::kI64:
      return StoreRaw(dst, SaturatingCast<int64_t>(value));
    case DType::kU8:
      return StoreRaw(dst, SaturatingCast<uint8_t>(value));
    case DType::kBool:
      return StoreRaw(dst, static_cast<uint8_t>(value != 0.0 ? 1 : 0));
  }
  CHECK(false) << "unhandled dtype";
}

}  // namespace av
