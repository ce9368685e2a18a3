// ParamValue: the JSON type a parameter was written with survives the trip from
// shapes.json to case.json / numerics.json, and the typed reads the builders use.
#include "sweep/param_value.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sweep/op_schema.h"

namespace av {
namespace {

using nlohmann::json;

TEST(ParamValue, LiteralsTakeTheirOwnType) {
  EXPECT_TRUE(ParamValue(4).is_integer());
  EXPECT_TRUE(ParamValue(true).is_bool());
  EXPECT_TRUE(ParamValue(0.5).is_number());
  EXPECT_FALSE(ParamValue(0.5).is_integer());
  // A string literal is a string, not the pointer-to-bool conversion.
  EXPECT_TRUE(ParamValue("randn").is_string());
  EXPECT_EQ(ParamValue("randn").AsString(), "randn");
  EXPECT_TRUE(ParamValue().is_null());
}

TEST(ParamValue, JsonRoundTripKeepsTheWrittenForm) {
  for (const char* text : {"1", "-3", "1.0", "30.5", "true", "\"paged\"", "null",
                           "18446744073709551615", "9223372036854775807", "1e300"}) {
    const json in = json::parse(text);
    std::optional<ParamValue> v = ParamValueFromJson(in);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_EQ(ParamValueToJson(*v).dump(), in.dump()) << text;
  }
  EXPECT_FALSE(ParamValueFromJson(json::array({1})).has_value());
  EXPECT_FALSE(ParamValueFromJson(json::object()).has_value());
}

TEST(ParamValue, NumbersCompareByValueAsJsonDoes) {
  EXPECT_EQ(ParamValue(1), ParamValue(1.0));
  EXPECT_EQ(ParamValue(uint64_t{7}), ParamValue(int64_t{7}));
  EXPECT_FALSE(ParamValue(1) == ParamValue(true));
  EXPECT_FALSE(ParamValue("1") == ParamValue(1));
  EXPECT_FALSE(ParamValue(2) == ParamValue(2.5));
}

TEST(ParamValue, TypedReadsConvertNumbers) {
  EXPECT_EQ(ParamValue(3).AsDouble(), 3.0);
  EXPECT_EQ(ParamValue(int64_t{-5}).AsInt(), -5);
  EXPECT_EQ(ParamValue(uint64_t{1} << 63).AsUnsigned(), uint64_t{1} << 63);
  EXPECT_TRUE(ParamValue(false).AsBool() == false);
}

TEST(ParamValue, MapToJsonIsAnObjectEvenWhenEmpty) {
  EXPECT_EQ(ParamMapToJson({}).dump(), "{}");
  EXPECT_EQ(ParamMapToJson({{"b", 2}, {"causal", true}, {"softcap", 30.0}}).dump(),
            R"({"b":2,"causal":true,"softcap":30.0})");
}

TEST(ParamValue, CaseParamsFallsBackToTheOpsDefault) {
  const SweepOp* op = FindSweepOp("attention");
  ASSERT_NE(op, nullptr);
  const ParamMap values{{"b", 3}};
  CaseParams p(*op, values);
  EXPECT_EQ(p.Int("b"), 3);
  const ParamSpec* causal = FindParam(*op, "causal");
  ASSERT_NE(causal, nullptr);
  EXPECT_EQ(p.Bool("causal"), causal->fallback.AsBool());
}

}  // namespace
}  // namespace av
