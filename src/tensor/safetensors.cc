#include "tensor/safetensors.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/byte_reader.h"
#include "core/file.h"
#include "core/json_dump.h"
#include "tensor/safetensors_header.h"

namespace av {
namespace {

using safetensors_detail::Entry;
using safetensors_detail::FindFormatDType;
using safetensors_detail::FindInvalidUtf8;
using safetensors_detail::FormatDType;
using safetensors_detail::kFormatDTypes;
using safetensors_detail::ParsedHeader;
using safetensors_detail::ParseHeader;
using safetensors_detail::Quote;
using safetensors_detail::TensorContext;

constexpr size_t kLengthBytes = 8;
// Checks that the sorted entries tile [0, data_size) exactly and that each byte range
// matches its shape and dtype (the reference crate's Metadata::validate, plus the
// file-size check of read_metadata).
Status CheckLayout(const std::vector<Entry>& entries, uint64_t data_size) {
  uint64_t expected = 0;
  for (const Entry& e : entries) {
    const std::string offsets =
        "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    if (e.begin > expected) {
      return InvalidInput(TensorContext(e.name) + offsets + " leave bytes [" +
                          std::to_string(expected) + ", " + std::to_string(e.begin) +
                          ") of the data buffer unused; tensors must cover it without holes");
    }
    if (e.begin < expected) {
      return InvalidInput(TensorContext(e.name) + offsets +
                          " overlap the previous tensor, which ends at " +
                          std::to_string(expected));
    }
    if (e.end < e.begin) {
      return InvalidInput(TensorContext(e.name) + offsets + " end before they begin");
    }
    Result<int64_t> numel = CheckedNumel(e.shape);
    if (!numel.ok()) return numel.status().WithContext("tensor " + Quote(e.name));
    const uint64_t n = static_cast<uint64_t>(*numel);
    const std::string needs =
        "shape " + ShapeToString(e.shape) + " of " + std::string(e.dtype->name);
    if (n > std::numeric_limits<uint64_t>::max() / e.dtype->bits) {
      return InvalidInput(TensorContext(e.name) + needs + " needs more than 2^64 bits");
    }
    const uint64_t bits = n * e.dtype->bits;
    if (bits % 8 != 0) {
      return InvalidInput(TensorContext(e.name) + needs + " needs " + std::to_string(bits) +
                          " bits, which does not end on a byte boundary");
    }
    if (e.end - e.begin != bits / 8) {
      return InvalidInput(TensorContext(e.name) + offsets + " hold " +
                          std::to_string(e.end - e.begin) + " bytes but " + needs + " needs " +
                          std::to_string(bits / 8));
    }
    expected = e.end;
  }
  if (expected != data_size) {
    return InvalidInput("the tensors cover " + std::to_string(expected) +
                        " bytes of data but the file holds " + std::to_string(data_size) +
                        " after the header" +
                        (expected < data_size ? " (trailing bytes)" : " (truncated file?)"));
  }
  return Status::Ok();
}

Result<SafetensorsFile> Parse(const std::shared_ptr<const Buffer>& bytes) {
  const std::string_view file = bytes->view();
  ByteReader reader(file);
  uint64_t header_len = 0;
  if (!reader.ReadLittleEndian(&header_len)) {
    return InvalidInput("file is " + std::to_string(file.size()) +
                        " bytes, too short for the 8-byte header length");
  }
  if (header_len > kSafetensorsMaxHeaderBytes) {
    return InvalidInput("header length " + std::to_string(header_len) + " is above the limit of " +
                        std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
  }
  std::string_view header;
  if (!reader.ReadBytes(header_len, &header)) {
    return InvalidInput("header length " + std::to_string(header_len) + " is more than the " +
                        std::to_string(reader.remaining()) +
                        " bytes after the length field (truncated file?)");
  }
  AV_ASSIGN_OR_RETURN(ParsedHeader parsed, ParseHeader(header));
  std::vector<Entry>& entries = parsed.entries;
  // The format does not order entries in the header; file order is offset order.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  AV_RETURN_IF_ERROR(CheckLayout(entries, reader.remaining()));

  SafetensorsFile out;
  out.metadata = std::move(parsed.metadata);
  out.tensors.reserve(entries.size());
  const size_t data_start = reader.position();
  for (Entry& e : entries) {
    if (!e.dtype->dtype) {
      return Unsupported(TensorContext(e.name) + "dtype " + std::string(e.dtype->name) +
                         " is not supported (attnverify reads BOOL, U8, I8, I16, I32, I64, F16, "
                         "BF16, F32, F64, F8_E4M3, F8_E5M2)");
    }
    Result<Tensor> t =
        Tensor::FromBuffer(bytes, data_start + e.begin, *e.dtype->dtype, std::move(e.shape));
    if (!t.ok()) return Internal(TensorContext(e.name) + t.status().message());
    out.tensors.emplace_back(std::move(e.name), std::move(*t));
  }
  return out;
}

// JSON string literal for `s` (already checked to be UTF-8), escaped as serde_json does.
std::string JsonString(const std::string& s) { return DumpJson(nlohmann::json(s)); }

}  // namespace

const Tensor* SafetensorsFile::Find(std::string_view name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::string_view SafetensorsDTypeName(DType dtype) {
  for (const auto& d : kFormatDTypes) {
    if (d.dtype == dtype) return d.name;
  }
  CHECK(false) << "no safetensors name for dtype " << DTypeName(dtype);
  return "";
}

std::optional<DType> ParseSafetensorsDType(std::string_view name) {
  const FormatDType* d = FindFormatDType(name);
  return d == nullptr ? std::nullopt : d->dtype;
}

Result<SafetensorsFile> ParseSafetensors(std::shared_ptr<const Buffer> bytes,
                                         const std::string& name) {
  CHECK(bytes != nullptr) << "ParseSafetensors: null buffer";
  Result<SafetensorsFile> file = Parse(bytes);
  if (!file.ok()) return file.status().WithContext(name);
  return file;
}

Result<SafetensorsFile> ReadSafetensors(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> mapped, MappedFile::Open(path));
  return ParseSafetensors(std::move(mapped), path);
}

Result<std::string> SerializeSafetensorsHeader(
    const std::vector<std::pair<std::string, Tensor>>& tensors,
    const std::map<std::string, std::string>& metadata) {
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      if (FindInvalidUtf8(k) != std::string::npos || FindInvalidUtf8(v) != std::string::npos) {
        return InvalidInput("metadata " + Quote(k) + ": key and value must be valid UTF-8");
      }
      if (!first) header += ',';
      header += JsonString(k);
      header += ':';
      header += JsonString(v);
      first = false;
    }
    header += "}";
  }
  std::unordered_set<std::string_view> names;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (!t.defined()) return InvalidInput(TensorContext(name) + "has no data");
    if (name == "__metadata__") return InvalidInput(TensorContext(name) + "the name is reserved");
    if (FindInvalidUtf8(name) != std::string::npos) {
      return InvalidInput(TensorContext(name) + "the name is not valid UTF-8");
    }
    if (!names.insert(name).second) return InvalidInput(TensorContext(name) + "duplicate name");
    std::string shape;
    for (int64_t d : t.shape()) {
      if (!shape.empty()) shape += ',';
      shape += std::to_string(d);
    }
    const uint64_t end = offset + t.nbytes();
    if (header.size() > 1) header += ",";
    header += JsonString(name) + ":{\"dtype\":\"" + std::string(SafetensorsDTypeName(t.dtype())) +
              "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(end) + "]}";
    offset = end;
    if (header.size() > kSafetensorsMaxHeaderBytes) {
      return InvalidInput("header would be above the format's limit of " +
                          std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
    }
  }
  header += "}";
  // Writers pad to 8 bytes so the data buffer starts aligned in a mapped file.
  header.append((kLengthBytes - header.size() % kLengthBytes) % kLengthBytes, ' ');
  if (header.size() > kSafetensorsMaxHeaderBytes) {
    return InvalidInput("header would be above the format's limit of " +
                        std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
  }
  std::string out;
  out.reserve(kLengthBytes + header.size());
  const uint64_t n = header.size();
  for (size_t i = 0; i < kLengthBytes; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  out += header;
  return out;
}

Result<std::string> SerializeSafetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                         const std::map<std::string, std::string>& metadata) {
  AV_ASSIGN_OR_RETURN(std::string out, SerializeSafetensorsHeader(tensors, metadata));
  for (const auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    const Tensor packed = t.is_contiguous() ? t : t.Contiguous();
    out.append(reinterpret_cast<const char*>(packed.data()), packed.nbytes());
  }
  return out;
}

Status WriteSafetensors(const std::string& path,
                        const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  Result<std::string> bytes = SerializeSafetensors(tensors, metadata);
  if (!bytes.ok()) return bytes.status().WithContext(path);
  return WriteFileAtomically(path, *bytes);
}

}  // namespace av
