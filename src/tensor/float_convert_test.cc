// Checks float_convert against the vectors in testdata/dtype (made by numpy and
// ml_dtypes, see testdata/dtype/README.md) and against hand-checked saturation cases.

#include "tensor/float_convert.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <ios>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace av {
namespace {

static_assert(std::endian::native == std::endian::little, "vector files are little-endian");

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One format as the test sees it: codes widened to uint32_t, fp8 in IEEE overflow mode.
struct Codec {
  const char* name;
  int bits;
  float (*decode)(uint32_t);
  uint32_t (*from_float)(float);
  uint32_t (*from_double)(double);
};

const Codec kCodecs[] = {
    {"f16", 16, [](uint32_t c) { return HalfToFloat(static_cast<uint16_t>(c)); },
     [](float x) -> uint32_t { return FloatToHalf(x); },
     [](double x) -> uint32_t { return DoubleToHalf(x); }},
    {"bf16", 16, [](uint32_t c) { return BFloat16ToFloat(static_cast<uint16_t>(c)); },
     [](float x) -> uint32_t { return FloatToBFloat16(x); },
     [](double x) -> uint32_t { return DoubleToBFloat16(x); }},
    {"f8_e4m3fn", 8, [](uint32_t c) { return Float8E4M3FNToFloat(static_cast<uint8_t>(c)); },
     [](float x) -> uint32_t { return FloatToFloat8E4M3FN(x); },
     [](double x) -> uint32_t { return DoubleToFloat8E4M3FN(x); }},
    {"f8_e5m2", 8, [](uint32_t c) { return Float8E5M2ToFloat(static_cast<uint8_t>(c)); },
     [](float x) -> uint32_t { return FloatToFloat8E5M2(x); },
     [](double x) -> uint32_t { return DoubleToFloat8E5M2(x); }},
};

// AssertionResult streams each piece separately, so std::hex would not stick.
std::string Hex(uint32_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

uint32_t SignBit(const Codec& c) { return 1u << (c.bits - 1); }

// Codes are equal, or both are NaN of the same sign: NaN payloads differ between
// libraries and are not part of the contract. NaN-ness is judged by decoding, which
// DecodeMatchesVectors checks against the libraries.
::testing::AssertionResult SameCode(const Codec& c, uint32_t actual, uint32_t expected) {
  const bool actual_nan = std::isnan(c.decode(actual));
  const bool expected_nan = std::isnan(c.decode(expected));
  const bool same =
      (actual_nan || expected_nan)
          ? actual_nan && expected_nan && (actual & SignBit(c)) == (expected & SignBit(c))
          : actual == expected;
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << c.name << ": got " << Hex(actual) << ", want " << Hex(expected);
}

// Reads testdata/dtype/<name>; a missing or empty file fails the test, never skips it.
::testing::AssertionResult LoadVectors(const std::string& name, std::string* bytes) {
  const std::string path = std::string(ATTNVERIFY_SOURCE_DIR) + "/testdata/dtype/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ::testing::AssertionFailure()
           << path << ": cannot open (regenerate with testdata/dtype/gen_dtype_vectors.py)";
  }
  bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (bytes->empty()) return ::testing::AssertionFailure() << path << ": empty";
  return ::testing::AssertionSuccess();
}

template <typename Input>
struct Record {
  Input input;
  uint32_t code;
};

// Packed little-endian records: an Input (uint32 float bits or uint64 double bits)
// followed by a uint16 expected code.
template <typename Input>
::testing::AssertionResult LoadRecords(const std::string& name,
                                       std::vector<Record<Input>>* records) {
  std::string bytes;
  if (auto loaded = LoadVectors(name, &bytes); !loaded) return loaded;
  constexpr size_t kSize = sizeof(Input) + sizeof(uint16_t);
  if (bytes.size() % kSize != 0) {
    return ::testing::AssertionFailure()
           << name << ": " << bytes.size() << " bytes is not a whole number of records";
  }
  for (size_t at = 0; at < bytes.size(); at += kSize) {
    Input input;
    uint16_t code;
    std::memcpy(&input, bytes.data() + at, sizeof(input));
    std::memcpy(&code, bytes.data() + at + sizeof(input), sizeof(code));
    records->push_back({input, code});
  }
  return ::testing::AssertionSuccess();
}

// Reports the first few failures of a sweep in full and counts the rest, so that a
// broken encoder yields a readable log rather than 100,000 lines.
class MismatchCounter {
 public:
  template <typename Input>
  void Check(const ::testing::AssertionResult& result, Input input) {
    if (result) return;
    if (++count_ <= 20)
      ADD_FAILURE() << result.message() << " (input " << std::hexfloat << input << ")";
  }
  int count() const { return count_; }

 private:
  int count_ = 0;
};

void PrintTo(const Codec& c, std::ostream* os) { *os << c.name; }

class FloatConvertFormatTest : public ::testing::TestWithParam<Codec> {};

TEST_P(FloatConvertFormatTest, DecodeMatchesVectors) {
  const Codec& c = GetParam();
  std::string bytes;
  ASSERT_TRUE(LoadVectors(std::string("decode_") + c.name + ".bin", &bytes));
  ASSERT_EQ(bytes.size(), (size_t{1} << c.bits) * 4);
  MismatchCounter mismatches;
  for (uint32_t code = 0; code < (1u << c.bits); ++code) {
    uint32_t want;
    std::memcpy(&want, bytes.data() + code * 4, 4);
    const uint32_t got = std::bit_cast<uint32_t>(c.decode(code));
    // NaN: only NaN-ness and sign are compared, as payloads differ between libraries.
    const bool ok = std::isnan(std::bit_cast<float>(want))
                        ? std::isnan(std::bit_cast<float>(got)) && (got >> 31) == (want >> 31)
                        : got == want;
    mismatches.Check(ok ? ::testing::AssertionSuccess()
                        : ::testing::AssertionFailure()
                              << "got float bits " << Hex(got) << ", want " << Hex(want),
                     Hex(code));
  }
  EXPECT_EQ(mismatches.count(), 0);
}

// Each record is checked as stored and mirrored: the generator only stores the positive
// sweep and checked that the libraries are symmetric in sign.
TEST_P(FloatConvertFormatTest, EncodeFloatMatchesVectors) {
  const Codec& c = GetParam();
  std::vector<Record<uint32_t>> records;
  ASSERT_TRUE(LoadRecords(std::string("encode_f32_") + c.name + ".bin", &records));
  ASSERT_GT(records.size(), 4u << (c.bits - 2));  // 4 per positive code: >= 2^bits
  MismatchCounter mismatches;
  for (const auto& r : records) {
    const float x = std::bit_cast<float>(r.input);
    const float mirror = std::bit_cast<float>(r.input ^ 0x80000000u);
    mismatches.Check(SameCode(c, c.from_float(x), r.code), x);
    mismatches.Check(SameCode(c, c.from_float(mirror), r.code ^ SignBit(c)), mirror);
    // Widening is exact, so the double entry point must agree.
    mismatches.Check(SameCode(c, c.from_double(x), r.code), x);
  }
  EXPECT_EQ(mismatches.count(), 0);
}

// Inputs float32 cannot hold: rounding through float would land on a midpoint and
// round a second time. The expected codes round once.
TEST_P(FloatConvertFormatTest, EncodeDoubleMatchesVectors) {
  const Codec& c = GetParam();
  std::vector<Record<uint64_t>> records;
  ASSERT_TRUE(LoadRecords(std::string("encode_f64_") + c.name + ".bin", &records));
  ASSERT_GT(records.size(), 500u);
  MismatchCounter mismatches;
  int through_float_differs = 0;
  for (const auto& r : records) {
    const double x = std::bit_cast<double>(r.input);
    mismatches.Check(SameCode(c, c.from_double(x), r.code), x);
    mismatches.Check(SameCode(c, c.from_double(-x), r.code ^ SignBit(c)), -x);
    if (!SameCode(c, c.from_float(static_cast<float>(x)), r.code)) ++through_float_differs;
  }
  EXPECT_EQ(mismatches.count(), 0);
  // The vectors are only useful if double rounding would have failed many of them.
  EXPECT_GT(through_float_differs, static_cast<int>(records.size() / 5));
}

TEST_P(FloatConvertFormatTest, RoundTripsEveryCode) {
  const Codec& c = GetParam();
  int checked = 0;
  for (uint32_t code = 0; code < (1u << c.bits); ++code) {
    const float x = c.decode(code);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(c.decode(c.from_float(x))));
      continue;
    }
    ASSERT_EQ(c.from_float(x), code) << c.name << " value " << x;
    ASSERT_EQ(c.from_double(x), code) << c.name << " value " << x;
    ++checked;
  }
  EXPECT_GT(checked, (1 << c.bits) * 9 / 10);
}

TEST_P(FloatConvertFormatTest, KeepsSignOfZero) {
  const Codec& c = GetParam();
  EXPECT_EQ(c.from_float(0.0f), 0u);
  EXPECT_EQ(c.from_float(-0.0f), SignBit(c));
  EXPECT_EQ(c.from_double(-0.0), SignBit(c));
  // Too small for any format: the sign survives underflow.
  EXPECT_EQ(c.from_float(-1e-45f), SignBit(c));
  EXPECT_EQ(c.from_double(-1e-300), SignBit(c));
  EXPECT_EQ(c.from_double(5e-324), 0u);
  const float negative_zero = c.decode(SignBit(c));
  EXPECT_EQ(negative_zero, 0.0f);
  EXPECT_TRUE(std::signbit(negative_zero));
  EXPECT_FALSE(std::signbit(c.decode(0)));
}

TEST_P(FloatConvertFormatTest, NaNStaysNaNWithItsSign) {
  const Codec& c = GetParam();
  EXPECT_TRUE(std::isnan(c.decode(c.from_float(kNaN))));
  EXPECT_EQ(c.from_float(kNaN) & SignBit(c), 0u);
  EXPECT_EQ(c.from_float(-kNaN) & SignBit(c), SignBit(c));
  EXPECT_TRUE(std::isnan(c.decode(c.from_double(-std::nan("")))));
  // A signalling NaN whose payload lies only in bits the format drops must not become inf.
  EXPECT_TRUE(std::isnan(c.decode(c.from_float(std::bit_cast<float>(0x7f800001u)))));
}

std::string CodecName(const ::testing::TestParamInfo<Codec>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(FloatConvert, FloatConvertFormatTest, ::testing::ValuesIn(kCodecs),
                         CodecName);

TEST(FloatConvertTest, DoubleRoundsOnceWhereFloatWouldRoundTwice) {
  const double x = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);  // just above a bf16 tie
  EXPECT_EQ(DoubleToBFloat16(x), 0x3f81);                           // 1 + 2^-7
  EXPECT_EQ(FloatToBFloat16(static_cast<float>(x)), 0x3f80);        // float lands on the tie
  const double y = std::ldexp(1.0, -25) + std::ldexp(1.0, -60);     // just above half 2^-24
  EXPECT_EQ(DoubleToHalf(y), 0x0001);
  EXPECT_EQ(DoubleToFloat8E4M3FN(1 + 0.0625 + 1e-12), 0x39);  // 1.125
  EXPECT_EQ(DoubleToFloat8E5M2(1 + 0.125 + 1e-12), 0x3d);     // 1.25
}

// e4m3fn has no inf: beyond the 464 midpoint PyTorch produces NaN, and 464 itself is a
// tie that rounds to the even 448 (mantissa 110).
TEST(FloatConvertTest, E4M3FNOverflowIsNaN) {
  EXPECT_EQ(FloatToFloat8E4M3FN(448.0f), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(449.0f), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(464.0f), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(std::nextafter(464.0f, kInf)), 0x7f);
  EXPECT_EQ(FloatToFloat8E4M3FN(465.0f), 0x7f);
  EXPECT_EQ(FloatToFloat8E4M3FN(-480.0f), 0xff);
  EXPECT_EQ(FloatToFloat8E4M3FN(kInf), 0x7f);
  EXPECT_EQ(FloatToFloat8E4M3FN(-kInf), 0xff);
  EXPECT_EQ(DoubleToFloat8E4M3FN(464.0 + 1e-13), 0x7f);
}

TEST(FloatConvertTest, E5M2OverflowIsInf) {
  EXPECT_EQ(FloatToFloat8E5M2(57344.0f), 0x7b);
  EXPECT_EQ(FloatToFloat8E5M2(61439.0f), 0x7b);
  EXPECT_EQ(FloatToFloat8E5M2(61440.0f), 0x7c);  // tie: the even neighbour is 2^16 = inf
  EXPECT_EQ(FloatToFloat8E5M2(-1e9f), 0xfc);
  EXPECT_EQ(FloatToFloat8E5M2(-kInf), 0xfc);
}

struct SaturateCase {
  double input;
  uint8_t e4m3fn;
  uint8_t e5m2;
};

// Hand-checked: e4m3fn max 448 = 0x7e, e5m2 max 57344 = 0x7b, e5m2 448 = 1.75 * 2^8 = 0x5f;
// smallest subnormals 2^-9 (e4m3fn) and 2^-16 (e5m2), whose halves are ties to zero.
const SaturateCase kSaturateCases[] = {
    {INFINITY, 0x7e, 0x7b}, {-INFINITY, 0xfe, 0xfb}, {448, 0x7e, 0x5f},     {449, 0x7e, 0x5f},
    {464, 0x7e, 0x5f},      {465, 0x7e, 0x5f},       {480, 0x7e, 0x60},     {-480, 0xfe, 0xe0},
    {1e6, 0x7e, 0x7b},      {-1e6, 0xfe, 0xfb},      {57344, 0x7e, 0x7b},   {61439, 0x7e, 0x7b},
    {61440, 0x7e, 0x7b},    {-61440, 0xfe, 0xfb},    {65536, 0x7e, 0x7b},   {1e9, 0x7e, 0x7b},
    {1e300, 0x7e, 0x7b},    {-1e300, 0xfe, 0xfb},    {1.0, 0x38, 0x3c},     {-0.0, 0x80, 0x80},
    {0x1p-9, 0x01, 0x18},   {0x1p-10, 0x00, 0x14},   {0x1p-16, 0x00, 0x01}, {-0x1p-17, 0x80, 0x80},
};

TEST(FloatConvertTest, SaturateClampsOverflowAndInf) {
  for (const SaturateCase& t : kSaturateCases) {
    const float f = static_cast<float>(t.input);
    if (std::isfinite(f) || std::isinf(t.input)) {
      EXPECT_EQ(FloatToFloat8E4M3FN(f, Overflow::kSaturate), t.e4m3fn) << t.input;
      EXPECT_EQ(FloatToFloat8E5M2(f, Overflow::kSaturate), t.e5m2) << t.input;
    }
    EXPECT_EQ(DoubleToFloat8E4M3FN(t.input, Overflow::kSaturate), t.e4m3fn) << t.input;
    EXPECT_EQ(DoubleToFloat8E5M2(t.input, Overflow::kSaturate), t.e5m2) << t.input;
  }
}

TEST(FloatConvertTest, SaturateKeepsNaN) {
  EXPECT_EQ(FloatToFloat8E4M3FN(kNaN, Overflow::kSaturate), 0x7f);
  EXPECT_EQ(FloatToFloat8E4M3FN(-kNaN, Overflow::kSaturate), 0xff);
  EXPECT_EQ(DoubleToFloat8E4M3FN(-std::nan(""), Overflow::kSaturate) & 0x80, 0x80);
  EXPECT_TRUE(std::isnan(Float8E5M2ToFloat(FloatToFloat8E5M2(kNaN, Overflow::kSaturate))));
  EXPECT_TRUE(
      std::isnan(Float8E5M2ToFloat(DoubleToFloat8E5M2(-std::nan(""), Overflow::kSaturate))));
  EXPECT_EQ(FloatToFloat8E5M2(-kNaN, Overflow::kSaturate) & 0x80, 0x80);
}

// FloatToBFloat16 is a bit trick; the generic encoder (through DoubleToBFloat16) is the
// reference. Every upper half with a spread of lower halves, plus random patterns.
TEST(FloatConvertTest, BFloat16FastPathMatchesGenericEncoder) {
  const Codec& c = kCodecs[1];
  const uint32_t kLow[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xc000, 0xffff};
  for (uint32_t high = 0; high < 0x10000; ++high) {
    for (uint32_t low : kLow) {
      const float x = std::bit_cast<float>(high << 16 | low);
      ASSERT_TRUE(SameCode(c, FloatToBFloat16(x), DoubleToBFloat16(x))) << "input " << x;
    }
  }
  std::mt19937 random(20240229);
  for (int i = 0; i < 1000000; ++i) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(random()));
    ASSERT_TRUE(SameCode(c, FloatToBFloat16(x), DoubleToBFloat16(x))) << "input " << x;
  }
}

}  // namespace
}  // namespace av
