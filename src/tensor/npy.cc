#include "tensor/npy.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "core/byte_reader.h"
#include "core/file.h"
#include "tensor/npy_header.h"

namespace av {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
// numpy aligns the data to 64 bytes (_format_impl.py: ARRAY_ALIGN) so a mapping of
// the file can be read with any vector width.
constexpr size_t kArrayAlign = 64;
// numpy pads the header with room for the growth axis to reach this many digits, so
// the header can be rewritten in place as the array grows (GROWTH_AXIS_MAX_DIGITS).
constexpr size_t kGrowthAxisMaxDigits = 21;
// Element strides in C (row-major) or Fortran (column-major) order. A product of
// extents can only overflow when some extent is 0; such an array addresses no memory,
// so it gets zero strides instead of wrapped ones.
Shape OrderStrides(const Shape& shape, bool fortran) {
  Shape strides(shape.size());
  int64_t step = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    const size_t i = fortran ? k : shape.size() - 1 - k;
    strides[i] = step;
    const int64_t extent = std::max<int64_t>(shape[i], 1);
    if (step > std::numeric_limits<int64_t>::max() / extent) return Shape(shape.size(), 0);
    step *= extent;
  }
  return strides;
}

std::string ShapeRepr(const Shape& shape) {
  if (shape.size() == 1) return std::string("(").append(std::to_string(shape[0])).append(",)");
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + ")";
}

}  // namespace

Result<Tensor> ParseNpy(std::shared_ptr<const Buffer> bytes, const std::string& name) {
  CHECK(bytes != nullptr) << "ParseNpy: null buffer";
  const std::string_view file = bytes->view();
  ByteReader reader(file);
  std::string_view magic;
  if (!reader.ReadBytes(kMagic.size(), &magic) || magic != kMagic) {
    if (file.size() < kMagic.size() && kMagic.starts_with(file)) {
      return InvalidInput(name + ": file is too short (" + std::to_string(file.size()) +
                          " bytes) to be .npy");
    }
    return InvalidInput(name + ": not an .npy file (it does not start with \\x93NUMPY)");
  }
  uint8_t major = 0;
  uint8_t minor = 0;
  if (!reader.ReadLittleEndian(&major) || !reader.ReadLittleEndian(&minor)) {
    return InvalidInput(name + ": file ends inside the format version");
  }
  if (major < 1 || major > 3 || minor != 0) {
    return Unsupported(name + ": npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)");
  }
  // 1.0 has a u16 header length; 2.0 and 3.0 a u32 (3.0 only changes latin-1 to utf-8,
  // which matters for structured field names we reject anyway).
  uint32_t header_length = 0;
  uint16_t short_length = 0;
  const bool have_length =
      major == 1 ? reader.ReadLittleEndian(&short_length) : reader.ReadLittleEndian(&header_length);
  if (major == 1) header_length = short_length;
  if (!have_length) return InvalidInput(name + ": file ends inside the header length");
  if (header_length > kNpyMaxHeaderBytes) {
    return InvalidInput(name + ": header length " + std::to_string(header_length) +
                        " exceeds the " + std::to_string(kNpyMaxHeaderBytes) + "-byte limit");
  }
  const size_t header_start = reader.position();
  std::string_view header_text;
  if (!reader.ReadBytes(header_length, &header_text)) {
    return InvalidInput(name + ": header length " + std::to_string(header_length) +
                        " runs past the end of the file (" + std::to_string(file.size()) +
                        " bytes)");
  }
  AV_ASSIGN_OR_RETURN(NpyHeader header, ParseNpyHeader(header_text, header_start, name));

  const DType dtype = header.element.dtype;
  auto numel = CheckedNumel(header.shape);
  if (!numel.ok()) return numel.status().WithContext(name);
  const size_t elem = DTypeSize(dtype);
  const size_t data_offset = reader.position();
  if (static_cast<uint64_t>(*numel) > reader.remaining() / elem) {
    return InvalidInput(name + ": data is truncated: shape " + ShapeToString(header.shape) +
                        " of " + std::string(DTypeName(dtype)) + " needs " +
                        (static_cast<uint64_t>(*numel) > SIZE_MAX / elem
                             ? std::string("more than 2^64")
                             : std::to_string(static_cast<uint64_t>(*numel) * elem)) +
                        " bytes after the " + std::to_string(data_offset) +
                        "-byte header, but only " + std::to_string(reader.remaining()) +
                        " are present");
  }
  // Bytes after the data are ignored, as numpy ignores them (np.save may be called
  // repeatedly on one open file; np.load reads the first array).
  const size_t nbytes = static_cast<size_t>(*numel) * elem;
  Shape strides = OrderStrides(header.shape, header.fortran_order);

  std::shared_ptr<const Buffer> storage = std::move(bytes);
  size_t offset = data_offset;
  if (header.element.big_endian) {
    // Big-endian files (written on or for big-endian machines) are byte-swapped once
    // into owned memory in the file's element order, so every later read is native.
    auto owned = std::make_shared<OwnedBuffer>(nbytes);
    const std::byte* src = storage->data() + data_offset;
    std::byte* dst = owned->mutable_data();
    for (size_t i = 0; i < nbytes; i += elem) {
      for (size_t b = 0; b < elem; ++b) dst[i + b] = src[i + elem - 1 - b];
    }
    storage = std::move(owned);
    offset = 0;
  }
  auto tensor = Tensor::FromBuffer(std::move(storage), offset, dtype, std::move(header.shape),
                                   std::move(strides));
  if (!tensor.ok()) return tensor.status().WithContext(name);
  return tensor;
}

Result<Tensor> ReadNpy(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> mapped, MappedFile::Open(path));
  return ParseNpy(std::move(mapped), path);
}

Result<std::string> SerializeNpy(const Tensor& tensor) {
  if (!tensor.defined()) return InvalidInput("cannot write an undefined tensor as .npy");
  const std::string_view descr = NpyDescrFor(tensor.dtype());
  if (descr.empty()) {
    return Unsupported("npy has no type code for " + std::string(DTypeName(tensor.dtype())) +
                       " (np.save would store raw void bytes that lose the type); write "
                       "safetensors instead");
  }
  if (static_cast<size_t>(tensor.ndim()) > kNpyMaxRank) {
    return Unsupported("a tensor of rank " + std::to_string(tensor.ndim()) +
                       " cannot be written as .npy (numpy allows at most " +
                       std::to_string(kNpyMaxRank) + " dimensions)");
  }
  // Same text, key order and spare space as numpy's _write_array_header.
  std::string dict = "{'descr': '";
  dict.append(descr).append("', 'fortran_order': False, 'shape': ");
  dict.append(ShapeRepr(tensor.shape())).append(", }");
  if (tensor.ndim() > 0) {
    dict.append(kGrowthAxisMaxDigits - std::to_string(tensor.dim(0)).size(), ' ');
  }
  // Version 1.0 has a u16 header length; 2.0 is only for headers that do not fit.
  const size_t hlen = dict.size() + 1;  // + '\n'
  size_t prefix = kMagic.size() + 2 + 2;
  size_t header_length = hlen + kArrayAlign - (prefix + hlen) % kArrayAlign;
  const bool v2 = header_length > 0xFFFF;
  if (v2) {
    prefix = kMagic.size() + 2 + 4;
    header_length = hlen + kArrayAlign - (prefix + hlen) % kArrayAlign;
  }
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out += static_cast<char>((header_length >> (8 * i)) & 0xFF);
  out += dict;
  out.append(header_length - hlen, ' ');
  out += '\n';

  const Tensor contiguous = tensor.is_contiguous() ? tensor : tensor.Contiguous();
  if (contiguous.nbytes() > 0) {
    out.append(reinterpret_cast<const char*>(contiguous.data()), contiguous.nbytes());
  }
  return out;
}

Status WriteNpy(const std::string& path, const Tensor& tensor) {
  auto bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return bytes.status().WithContext(path);
  return WriteFileAtomically(path, *bytes);
}

}  // namespace av
