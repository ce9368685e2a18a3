// DType: the element types attnverify reads, writes and compares, with their sizes
// and names. Names follow PyTorch spelling without the "torch." prefix
// ("float8_e4m3fn" is written f8_e4m3fn); each file format maps its own codes onto
// these (npy descr, safetensors dtype strings) in its own parser.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace av {

enum class DType {
  kF64,
  kF32,
  kF16,
  kBF16,
  kF8E4M3FN,
  kF8E5M2,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kBool,
};

inline constexpr DType kAllDTypes[] = {DType::kF64,      DType::kF32,    DType::kF16, DType::kBF16,
                                       DType::kF8E4M3FN, DType::kF8E5M2, DType::kI8,  DType::kI16,
                                       DType::kI32,      DType::kI64,    DType::kU8,  DType::kBool};

size_t DTypeSize(DType dtype);
// "f64" "f32" "f16" "bf16" "f8_e4m3fn" "f8_e5m2" "i8" "i16" "i32" "i64" "u8" "bool".
std::string_view DTypeName(DType dtype);
// Accepts the names above and common aliases (float32, bfloat16, float8_e4m3fn, int64, ...).
std::optional<DType> ParseDTypeName(std::string_view name);
bool IsFloatingPoint(DType dtype);

}  // namespace av
