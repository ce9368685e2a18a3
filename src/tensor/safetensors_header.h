// The safetensors header: the 8-byte length is read by safetensors.cc; this file
// validates the JSON that follows (UTF-8, schema, duplicate keys) with nlohmann's SAX
// parser and returns the entries before their byte ranges are checked. Internal to
// tensor/ (namespace safetensors_detail). Pure functions, safe from any thread.
// Rules and their reasons: doc/formats/safetensors.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace av::safetensors_detail {

// Every dtype string the reference crate (0.8) accepts, with its width in bits (the crate
// checks sizes in bits because F4/F6 pack several elements per byte).
struct FormatDType {
  std::string_view name;
  uint64_t bits;
  std::optional<DType> dtype;  // nullopt: known to the format, not to attnverify
};

// clang-format off
inline constexpr FormatDType kFormatDTypes[] = {
    {"BOOL", 8, DType::kBool}, {"U8", 8, DType::kU8},     {"I8", 8, DType::kI8},
    {"I16", 16, DType::kI16},  {"I32", 32, DType::kI32},  {"I64", 64, DType::kI64},
    {"F16", 16, DType::kF16},  {"BF16", 16, DType::kBF16}, {"F32", 32, DType::kF32},
    {"F64", 64, DType::kF64},
    {"F8_E4M3", 8, DType::kF8E4M3FN},  // OCP E4M3 ("fn": finite, NaN = S.1111.111)
    {"F8_E5M2", 8, DType::kF8E5M2},
    // Known to the format, not (yet) to attnverify's DType.
    {"F4", 4, std::nullopt},  {"F6_E2M3", 6, std::nullopt}, {"F6_E3M2", 6, std::nullopt},
    {"F8_E8M0", 8, std::nullopt}, {"F8_E4M3FNUZ", 8, std::nullopt},
    {"F8_E5M2FNUZ", 8, std::nullopt}, {"U16", 16, std::nullopt}, {"U32", 32, std::nullopt},
    {"U64", 64, std::nullopt}, {"C64", 64, std::nullopt},
};
// clang-format on

// One header entry as written, before its offsets are checked against its neighbours.
struct Entry {
  std::string name;
  const FormatDType* dtype = nullptr;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
  bool has_dtype = false, has_shape = false, has_offsets = false;
};

struct ParsedHeader {
  std::vector<Entry> entries;  // in header order
  std::map<std::string, std::string> metadata;
};

// Validates and parses the header JSON (the bytes after the length field).
Result<ParsedHeader> ParseHeader(std::string_view header);

const FormatDType* FindFormatDType(std::string_view name);
// "name" in double quotes, control and non-ASCII bytes as \xNN, long names cut short.
std::string Quote(std::string_view name);
// "tensor \"name\": " — the prefix of every message about one tensor.
std::string TensorContext(std::string_view name);
// Offset of the first byte that is not well-formed UTF-8 (Rust's rules), or npos.
size_t FindInvalidUtf8(std::string_view s);

}  // namespace av::safetensors_detail
