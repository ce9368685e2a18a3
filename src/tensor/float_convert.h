// Exact conversions between float/double and the narrow floating formats attnverify
// compares: IEEE binary16 (f16), bfloat16, and the OCP FP8 formats e4m3fn and e5m2.
// Decoding is exact. Encoding rounds to nearest, ties to even, once, directly from the
// input value (no double rounding through float), handles subnormals and signed zero,
// and follows PyTorch for special values:
//   f16, bf16, e5m2: overflow -> +-inf, inf -> inf, NaN -> a quiet NaN of the same sign;
//   e4m3fn (no inf): overflow (|x| > 464, the midpoint above 448) and +-inf -> NaN
//   (0x7f | sign), as c10::Float8_e4m3fn does.
// Overflow::kSaturate instead clamps finite overflow and infinities to +-max finite
// (448 for e4m3fn, 57344 for e5m2), as CUDA's __NV_SATFINITE does; NaN stays NaN.
// Pure functions: callable from any thread.
#pragma once

#include <cstdint>

namespace av {

enum class Overflow { kIeee, kSaturate };

float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);
uint16_t DoubleToHalf(double value);

float BFloat16ToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
uint16_t DoubleToBFloat16(double value);

float Float8E4M3FNToFloat(uint8_t bits);
uint8_t FloatToFloat8E4M3FN(float value, Overflow overflow = Overflow::kIeee);
uint8_t DoubleToFloat8E4M3FN(double value, Overflow overflow = Overflow::kIeee);

float Float8E5M2ToFloat(uint8_t bits);
uint8_t FloatToFloat8E5M2(float value, Overflow overflow = Overflow::kIeee);
uint8_t DoubleToFloat8E5M2(double value, Overflow overflow = Overflow::kIeee);

}  // namespace av
