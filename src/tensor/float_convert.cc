// One encoder and one decoder, parameterised by the format's layout, serve all four
// narrow formats; doc/dtypes.md describes the formats and why each choice was made.

#include "tensor/float_convert.h"

#include <bit>
#include <cstdint>
#include <limits>

namespace av {
namespace {

// Layout and special values of a narrow format; codes are magnitudes (sign bit clear).
struct Format {
  int exp_bits;
  int man_bits;
  bool has_inf;         // IEEE-style: exponent all ones is inf (mantissa 0) or NaN.
  uint32_t max_finite;  // largest finite magnitude code; inf, if any, is max_finite + 1
  uint32_t quiet_nan;   // the NaN the encoder produces
};

constexpr Format kHalf = {5, 10, true, 0x7bff, 0x7e00};
constexpr Format kBFloat16 = {8, 7, true, 0x7f7f, 0x7fc0};
// e4m3fn spends exponent 15 on finite values up to 448 and keeps only 0x7f for NaN.
constexpr Format kE4M3FN = {4, 3, false, 0x7e, 0x7f};
constexpr Format kE5M2 = {5, 2, true, 0x7b, 0x7e};

constexpr int Bias(const Format& f) { return (1 << (f.exp_bits - 1)) - 1; }
constexpr uint32_t SignBit(const Format& f) { return 1u << (f.exp_bits + f.man_bits); }

// 2^k as a double, for -1022 <= k <= 1023 (every scale the decoder needs).
double Pow2(int k) { return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52); }

bool IsNanCode(uint32_t magnitude, const Format& f) {
  if (!f.has_inf) return magnitude == f.quiet_nan;
  return magnitude > f.max_finite + 1;
}

// Exact: every value of the four formats is a float. The value is built in double as
// significand * 2^scale (both exact), then narrowed without rounding.
float Decode(uint32_t code, const Format& f) {
  const bool negative = (code & SignBit(f)) != 0;
  const uint32_t magnitude = code & (SignBit(f) - 1);
  if (IsNanCode(magnitude, f)) {
    // Quiet NaN of the same sign; the payload moves to the top of float's mantissa.
    const uint32_t payload = (magnitude & ((1u << f.man_bits) - 1)) << (23 - f.man_bits);
    return std::bit_cast<float>((negative ? 0x80000000u : 0u) | 0x7fc00000u | payload);
  }
  if (f.has_inf && magnitude == f.max_finite + 1) {
    return negative ? -std::numeric_limits<float>::infinity()
                    : std::numeric_limits<float>::infinity();
  }
  const int exponent = static_cast<int>(magnitude >> f.man_bits);
  const uint32_t mantissa = magnitude & ((1u << f.man_bits) - 1);
  // Subnormals (exponent field 0) have no implicit bit and the scale of exponent 1.
  const uint32_t significand = exponent == 0 ? mantissa : mantissa | (1u << f.man_bits);
  const int scale = (exponent == 0 ? 1 : exponent) - Bias(f) - f.man_bits;
  const double value = static_cast<double>(significand) * Pow2(scale);
  return static_cast<float>(negative ? -value : value);
}

// Rounds `value` to the nearest code, ties to even, in one step from the double's
// 53-bit significand: the result never passes through an intermediate format.
uint32_t Encode(double value, const Format& f, Overflow overflow) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const uint32_t sign = (bits >> 63) != 0 ? SignBit(f) : 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const uint32_t overflowed = overflow == Overflow::kSaturate ? f.max_finite
                              : f.has_inf                     ? f.max_finite + 1
                                                              : f.quiet_nan;
  if (biased == 0x7ff) {
    if (fraction != 0) return sign | f.quiet_nan;
    return sign | overflowed;  // inf: kept as inf, or NaN for e4m3fn, or saturated
  }
  // Double subnormals (< 2^-1022) are far below half the smallest subnormal of any of
  // the formats (2^-134 for bfloat16), so they round to zero.
  if (biased == 0) return sign;

  const int exponent = biased - 1023;  // |value| = significand * 2^(exponent - 52)
  const uint64_t significand = fraction | (uint64_t{1} << 52);
  const int min_exponent = 1 - Bias(f);
  const int max_exponent = static_cast<int>(f.max_finite >> f.man_bits) - Bias(f);
  if (exponent > max_exponent) return sign | overflowed;  // |value| >= 2^(emax+1) > max

  // The format's quantum at this exponent is 2^(target - man_bits); below the normal
  // range the quantum stays at that of min_exponent (gradual underflow).
  const int target = exponent < min_exponent ? min_exponent : exponent;
  const int shift = 52 - f.man_bits + (target - exponent);  // >= 42: man_bits <= 10
  // Past 54 the shifts below would overflow; |value| < quantum / 4 there, so it is zero.
  if (shift > 54) return sign;
  uint64_t rounded = significand >> shift;
  const uint64_t remainder = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (remainder > half || (remainder == half && (rounded & 1) != 0)) ++rounded;

  // For a normal result, rounded is in [2^m, 2^(m+1)] and the implicit bit adds one to
  // the exponent field, hence the "- 1". A subnormal result has target == min_exponent,
  // so the exponent term is 0 and the code is the mantissa itself. Rounding up across
  // a binade (rounded == 2^(m+1)) carries into the exponent field by itself.
  const uint64_t code = (static_cast<uint64_t>(target + Bias(f) - 1) << f.man_bits) + rounded;
  if (code > f.max_finite) return sign | overflowed;
  return sign | static_cast<uint32_t>(code);
}

}  // namespace

float HalfToFloat(uint16_t bits) { return Decode(bits, kHalf); }
uint16_t FloatToHalf(float value) { return DoubleToHalf(value); }
uint16_t DoubleToHalf(double value) {
  return static_cast<uint16_t>(Encode(value, kHalf, Overflow::kIeee));
}

// bfloat16 is the top half of a float, so both directions have exact bit-level forms.
float BFloat16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
uint16_t FloatToBFloat16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // quiet, sign and payload kept
  }
  // Adding 0x7fff plus the lowest kept bit rounds to nearest even; a carry out of the
  // mantissa moves to the next binade, and past the largest finite value to inf.
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}
uint16_t DoubleToBFloat16(double value) {
  return static_cast<uint16_t>(Encode(value, kBFloat16, Overflow::kIeee));
}

float Float8E4M3FNToFloat(uint8_t bits) { return Decode(bits, kE4M3FN); }
uint8_t FloatToFloat8E4M3FN(float value, Overflow overflow) {
  return DoubleToFloat8E4M3FN(value, overflow);
}
uint8_t DoubleToFloat8E4M3FN(double value, Overflow overflow) {
  return static_cast<uint8_t>(Encode(value, kE4M3FN, overflow));
}

float Float8E5M2ToFloat(uint8_t bits) { return Decode(bits, kE5M2); }
uint8_t FloatToFloat8E5M2(float value, Overflow overflow) {
  return DoubleToFloat8E5M2(value, overflow);
}
uint8_t DoubleToFloat8E5M2(double value, Overflow overflow) {
  return static_cast<uint8_t>(Encode(value, kE5M2, overflow));
}

}  // namespace av
