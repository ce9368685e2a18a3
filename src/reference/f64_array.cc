#include "reference/f64_array.h"

#include <algorithm>

namespace av {

F64Array F64Array::Zeros(Shape shape) {
  auto numel = CheckedNumel(shape);
  CHECK(numel.ok()) << numel.status().message();
  F64Array a;
  a.shape = std::move(shape);
  a.data.assign(static_cast<size_t>(*numel), 0.0);
  return a;
}

F64Array F64Array::Reshaped(Shape new_shape) const {
  auto count = CheckedNumel(new_shape);
  CHECK(count.ok() && *count == numel()) << "F64Array::Reshaped: element count changes";
  F64Array out;
  out.shape = std::move(new_shape);
  out.data = data;
  return out;
}

Tensor F64Array::ToTensor(DType dtype) const {
  Tensor t = Tensor::Zeros(dtype, shape);
  std::byte* dst = t.mutable_data();
  const size_t size = DTypeSize(dtype);
  for (size_t i = 0; i < data.size(); ++i) StoreFromDouble(dtype, data[i], dst + i * size);
  return t;
}

Tensor ConvertTensor(const Tensor& tensor, DType dtype) {
  Tensor out = Tensor::Zeros(dtype, tensor.shape());
  if (out.numel() == 0) return out;
  const Tensor c = tensor.is_contiguous() ? tensor : tensor.Contiguous();
  const int64_t in_size = static_cast<int64_t>(c.element_size());
  const size_t out_size = DTypeSize(dtype);
  std::byte* dst = out.mutable_data();
  constexpr int64_t kChunk = 4096;
  double buf[kChunk];
  for (int64_t at = 0; at < c.numel(); at += kChunk) {
    const int64_t n = std::min(kChunk, c.numel() - at);
    LoadAsDouble(c.dtype(), c.data() + at * in_size, in_size, n, buf);
    for (int64_t i = 0; i < n; ++i)
      StoreFromDouble(dtype, buf[i], dst + static_cast<size_t>(at + i) * out_size);
  }
  return out;
}

F64Array LoadF64(const Tensor& tensor) {
  F64Array a = F64Array::Zeros(tensor.shape());
  if (a.data.empty()) return a;
  // A contiguous tensor (a mapped input file) is read in place; others are packed first.
  const Tensor c = tensor.is_contiguous() ? tensor : tensor.Contiguous();
  LoadAsDouble(c.dtype(), c.data(), static_cast<int64_t>(c.element_size()), c.numel(),
               a.data.data());
  return a;
}

Result<std::vector<int64_t>> LoadIndices(const Tensor& tensor, const std::string& what) {
  switch (tensor.dtype()) {
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kU8:
      break;
    default:
      return InvalidInput(what + ": expected an integer tensor (int32 or int64), got " +
                          std::string(DTypeName(tensor.dtype())));
  }
  std::vector<int64_t> out(static_cast<size_t>(tensor.numel()));
  if (out.empty()) return out;
  Tensor c = tensor.Contiguous();
  const size_t size = c.element_size();
  for (size_t i = 0; i < out.size(); ++i) {
    const std::byte* p = c.data() + i * size;
    switch (c.dtype()) {
      case DType::kI8:
        out[i] = static_cast<int8_t>(p[0]);
        break;
      case DType::kU8:
        out[i] = static_cast<uint8_t>(p[0]);
        break;
      case DType::kI16: {
        int16_t v;
        std::memcpy(&v, p, 2);
        out[i] = v;
        break;
      }
      case DType::kI32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        out[i] = v;
        break;
      }
      default: {
        int64_t v;
        std::memcpy(&v, p, 8);
        out[i] = v;
        break;
      }
    }
  }
  return out;
}

Status ExpectRank(const Tensor& tensor, int rank, const std::string& what,
                  const std::string& layout) {
  if (tensor.ndim() == rank) return Status::Ok();
  return InvalidInput(what + ": expected rank " + std::to_string(rank) + " " + layout + ", got " +
                      ShapeToString(tensor.shape()));
}

Status ExpectFloating(const Tensor& tensor, const std::string& what) {
  if (IsFloatingPoint(tensor.dtype())) return Status::Ok();
  return InvalidInput(what + ": expected a floating-point tensor, got " +
                      std::string(DTypeName(tensor.dtype())));
}

Status ExpectDim(const Tensor& tensor, int dim, int64_t expected, const std::string& what,
                 const std::string& dim_name) {
  if (tensor.dim(dim) == expected) return Status::Ok();
  return InvalidInput(what + ": dimension " + std::to_string(dim) + " (" + dim_name + ") is " +
                      std::to_string(tensor.dim(dim)) + ", expected " + std::to_string(expected) +
                      " (shape " + ShapeToString(tensor.shape()) + ")");
}

}  // namespace av
