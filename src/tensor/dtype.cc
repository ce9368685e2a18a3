#include "tensor/dtype.h"

#include <bit>

#include "core/check.h"

namespace av {

// File formats we read are little-endian on disk; we view them in place.
static_assert(std::endian::native == std::endian::little, "attnverify needs a little-endian host");

namespace {

struct DTypeInfo {
  DType dtype;
  size_t size;
  std::string_view name;
  bool floating;
};

constexpr DTypeInfo kInfo[] = {
    {DType::kF64, 8, "f64", true},
    {DType::kF32, 4, "f32", true},
    {DType::kF16, 2, "f16", true},
    {DType::kBF16, 2, "bf16", true},
    {DType::kF8E4M3FN, 1, "f8_e4m3fn", true},
    {DType::kF8E5M2, 1, "f8_e5m2", true},
    {DType::kI8, 1, "i8", false},
    {DType::kI16, 2, "i16", false},
    {DType::kI32, 4, "i32", false},
    {DType::kI64, 8, "i64", false},
    {DType::kU8, 1, "u8", false},
    {DType::kBool, 1, "bool", false},
};

const DTypeInfo& Info(DType dtype) {
  for (const auto& info : kInfo) {
    if (info.dtype == dtype) return info;
  }
  CHECK(false) << "unknown DType " << static_cast<int>(dtype);
  return kInfo[0];
}

struct Alias {
  std::string_view name;
  DType dtype;
};

constexpr Alias kAliases[] = {
    {"float64", DType::kF64},   {"double", DType::kF64},
    {"float32", DType::kF32},   {"float", DType::kF32},
    {"float16", DType::kF16},   {"half", DType::kF16},
    {"bfloat16", DType::kBF16}, {"float8_e4m3fn", DType::kF8E4M3FN},
    {"e4m3", DType::kF8E4M3FN}, {"float8_e5m2", DType::kF8E5M2},
    {"e5m2", DType::kF8E5M2},   {"int8", DType::kI8},
    {"int16", DType::kI16},     {"int32", DType::kI32},
    {"int64", DType::kI64},     {"uint8", DType::kU8},
};

}  // namespace

size_t DTypeSize(DType dtype) { return Info(dtype).size; }
std::string_view DTypeName(DType dtype) { return Info(dtype).name; }
bool IsFloatingPoint(DType dtype) { return Info(dtype).floating; }

std::optional<DType> ParseDTypeName(std::string_view name) {
  for (const auto& info : kInfo) {
    if (info.name == name) return info.dtype;
  }
  for (const auto& alias : kAliases) {
    if (alias.name == name) return alias.dtype;
  }
  return std::nullopt;
}

}  // namespace av
