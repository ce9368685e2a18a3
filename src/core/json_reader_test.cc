#include "core/json_reader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/json_dump.h"

namespace av {
namespace {

using nlohmann::json;

std::string ErrorOf(std::string_view text, const std::string& file = "f.json") {
  Result<json> r = ParseJson(text, file);
  return r.ok() ? "(parsed)" : r.status().message();
}

TEST(JsonParse, ReadsWhatNlohmannReads) {
  const std::string text =
      R"({"a": [1, -2, 3.5, 1e3, true, false, null], "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00",)"
      R"( "o": {"k": {}}, "e": [], "big": 18446744073709551615, "huge": 123456789012345678901234})";
  Result<json> ours = ParseJson(text, "f.json");
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  EXPECT_EQ(*ours, json::parse(text));
  EXPECT_TRUE((*ours)["a"][0].is_number_unsigned());
  EXPECT_TRUE((*ours)["a"][1].is_number_integer());
  EXPECT_TRUE((*ours)["huge"].is_number_float());
}

TEST(JsonParse, SkipsAByteOrderMark) {
  Result<json> r = ParseJson("\xEF\xBB\xBF{\"a\": 1}", "f.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["a"], 1);
}

TEST(JsonParse, TinyNumbersUnderflowToZeroOrSubnormal) {
  Result<json> r = ParseJson("[1e-400, 5e-324, -0.0]", "f.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].get<double>(), 0.0);
  EXPECT_GT((*r)[1].get<double>(), 0.0);
}

// M2: 1e400 aborted every command that read it (nlohmann's out_of_range.406 escaped).
TEST(JsonRegression, NumberOutOfDoubleRangeIsRefusedWithItsPosition) {
  EXPECT_EQ(ErrorOf("{\"zz\": 1e400}", "evidence/numerics.json"),
            "evidence/numerics.json:1:8: number out of range: 1e400 does not fit in a double "
            "(the largest is about 1.8e308)");
  EXPECT_NE(ErrorOf("[\n  -2.5e99999\n]").find("f.json:2:3: number out of range"),
            std::string::npos);
}

// L9: "sweeps": [...], "sweeps": [] ran 0 cases: the last key won.
TEST(JsonRegression, DuplicateKeyIsRefusedNamingBothPositions) {
  EXPECT_EQ(ErrorOf("{\"sweeps\": [1],\n \"sweeps\": []}", "shapes.json"),
            "shapes.json:2:2: duplicate key \"sweeps\" (first at 1:2): one file must not mean "
            "two things");
  // At any depth.
  EXPECT_NE(ErrorOf(R"({"ops": {"gemm": {"d": 1, "d": 2}}})").find("duplicate key \"d\""),
            std::string::npos);
  // Equal after unescaping is equal.
  EXPECT_NE(ErrorOf(R"({"a": 1, "\u0061": 2})").find("duplicate key \"a\""), std::string::npos);
  // The same key in two objects is fine.
  EXPECT_EQ(ErrorOf(R"([{"a": 1}, {"a": 2}])"), "(parsed)");
}

TEST(JsonRegression, NestingBombIsRefusedNotAStackOverflow) {
  const std::string bomb = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(ErrorOf(bomb), "f.json:1:129: nesting deeper than 128 levels");
  const std::string ok = std::string(128, '[') + std::string(128, ']');
  EXPECT_EQ(ErrorOf(ok), "(parsed)");
  JsonLimits tight;
  tight.max_depth = 2;
  EXPECT_FALSE(ParseJson(R"({"a": {"b": {}}})", "f.json", tight).ok());
}

TEST(JsonParse, SyntaxErrorsNameLineAndColumn) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"", "f.json:1:1: unexpected end of file: expected a value"},
      {"{\"a\": 1,}", "f.json:1:9: unexpected '}': expected a key in quotes"},
      {"{\"a\" 1}", "f.json:1:6: unexpected '1': expected ':' after a key"},
      {"[1 2]", "f.json:1:4: unexpected '2': expected ',' or ']' in an array"},
      {"{\"a\": 1} x", "f.json:1:10: unexpected 'x' after the JSON value"},
      {"{\n  \"a\": tru\n}", "f.json:2:8: unexpected 't': expected a value"},
      {"[01]", "f.json:1:3: unexpected '1': expected ',' or ']' in an array"},
      {"[1.]", "f.json:1:2: invalid number: expected a digit after '.'"},
      {"[-]", "f.json:1:2: invalid number: expected a digit after '-'"},
      {"[1e+]", "f.json:1:2: invalid number: expected a digit in the exponent"},
      {"[NaN]", "f.json:1:2: unexpected 'N': expected a value"},
      {"\"abc", "f.json:1:1: string not closed before the end of file"},
      {"\"a\tb\"", "f.json:1:3: control character byte 0x09 in a string"},
      {"\"\\x\"", "f.json:1:2: invalid escape \\x"},
      {"\"\\u12\"", "f.json:1:2: \\u must be followed by four hex digits"},
      {"\"\\udc00\"", "f.json:1:2: unpaired low surrogate \\u in a string"},
      {"\"\\ud800x\"", "f.json:1:2: unpaired high surrogate \\u in a string"},
      {"// c\n{}", "f.json:1:1: unexpected '/': expected a value"},
  };
  for (const Case& c : cases) EXPECT_EQ(ErrorOf(c.text), c.error) << c.text;
}

TEST(JsonParse, InvalidUtf8InAStringIsRefused) {
  EXPECT_EQ(ErrorOf("[\"a\xff\"]"), "f.json:1:4: invalid UTF-8 (byte 0xFF) in a string");
  EXPECT_EQ(ErrorOf("[\"\xc3\"]"), "f.json:1:3: invalid UTF-8 (byte 0xC3) in a string");
  EXPECT_NE(ErrorOf("[\"\xc0\xaf\"]").find("invalid UTF-8"), std::string::npos);  // overlong
  EXPECT_NE(ErrorOf("[\"\xed\xa0\x80\"]").find("invalid UTF-8"), std::string::npos);  // surrogate
  EXPECT_EQ(ErrorOf("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]"), "(parsed)");
}

TEST(JsonReader, ErrorsNameFileAndJsonPath) {
  const JsonReader in("evidence/numerics.json");
  Result<json> doc = in.ParseObject(R"({"cases": [{"outputs": 3, "n": "x", "ok": 1, "i": 1.5}]})");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const json& c = (*doc)["cases"][0];
  const std::string where = JsonReader::Index("$.cases", 3);
  Result<const json*> outputs = in.Array(c, "outputs", where);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "evidence/numerics.json: $.cases[3].outputs: must be an array, got a number");
  double d = 0;
  EXPECT_EQ(in.Num(c, "n", "$", &d).message(),
            "evidence/numerics.json: $.n: must be a number, got \"x\"");
  bool b = false;
  EXPECT_EQ(in.Bool(c, "ok", "$", &b).message(),
            "evidence/numerics.json: $.ok: must be true or false, got a number");
  int64_t i = 0;
  EXPECT_FALSE(in.Int(c, "i", "$", &i).ok());
  std::string s = "default";
  EXPECT_TRUE(in.Str(c, "absent", "$", &s).ok());
  EXPECT_EQ(s, "default");
  EXPECT_EQ(JsonReader::Member("$", "a b"), "$[\"a b\"]");
}

TEST(JsonReader, DocumentMustBeAnObjectWithTheRightSchema) {
  const JsonReader in("m.json");
  EXPECT_EQ(in.ParseObject("[1]").status().message(),
            "m.json: $: must be a JSON object, got an array");
  Result<json> doc = in.ParseObject(R"({"schema": "attnverify.x/9"})");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(in.CheckSchema(*doc, {"attnverify.x/1", "attnverify.x/2"}, false).message(),
            "m.json: $.schema: expected \"attnverify.x/1\" or \"attnverify.x/2\", got "
            "\"attnverify.x/9\"");
  EXPECT_TRUE(in.CheckSchema(json::object(), {"attnverify.x/1"}, true).ok());
}

TEST(JsonReader, NonFiniteStringsAreNumbers) {
  const JsonReader in("f.json");
  json o = {{"a", "nan"}, {"b", "-inf"}};
  double a = 0, b = 0;
  ASSERT_TRUE(in.Num(o, "a", "$", &a).ok());
  ASSERT_TRUE(in.Num(o, "b", "$", &b).ok());
  EXPECT_TRUE(std::isnan(a));
  EXPECT_TRUE(std::isinf(b) && b < 0);
}

// M1: any string that is not UTF-8 made nlohmann's dump() throw type_error.316.
TEST(JsonRegression, DumpReplacesInvalidUtf8InsteadOfThrowing) {
  json doc = {{"stderr_tail", std::string("Fehler: ung\xc3")},  // cut inside a character
              {"path", std::string("/tmp/dir_\xe9/attnverify.toml")},
              {"base", std::string("HEAD~1\xff")}};
  std::string text;
  ASSERT_NO_THROW(text = JsonFileText(doc));
  Result<json> back = ParseJson(text, "out.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ((*back)["base"], "HEAD~1\xEF\xBF\xBD");
  EXPECT_EQ(ValidUtf8("a\xffz"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(text.back(), '\n');
}

TEST(JsonLocate, RecordsTheLineOfEveryValueByPointer) {
  const std::string text =
      "{\n"
      "  \"permissions\": {\n"
      "    \"allow\": [\n"
      "      \"Bash(ls)\",\n"
      "      \"Bash(git status)\"\n"
      "    ]\n"
      "  },\n"
      "  \"a/b~c\": {\"x\": [1, {\"y\": null}]}\n"
      "}\n";
  Result<JsonLines> r = LocateJsonValues(text, "settings.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->lines.at(""), 1);
  EXPECT_EQ(r->lines.at("/permissions"), 2);
  EXPECT_EQ(r->lines.at("/permissions/allow"), 3);
  EXPECT_EQ(r->lines.at("/permissions/allow/0"), 4);
  EXPECT_EQ(r->lines.at("/permissions/allow/1"), 5);
  EXPECT_EQ(r->lines.at("/a~1b~0c/x/1/y"), 8);
  EXPECT_TRUE(r->duplicate_keys.empty());
  // A pointer without a value of its own takes its nearest ancestor's line.
  EXPECT_EQ(r->LineOf("/permissions/allow/7"), 3);
  EXPECT_EQ(r->LineOf("/nowhere"), 1);
  EXPECT_EQ(JsonPointerToken("a/b~c"), "a~1b~0c");
}

TEST(JsonLocate, ListsDuplicateKeysAndTheLastOneWins) {
  const std::string text =
      "{\"env\": {\"A\": 1,\n"
      "  \"A\": 2},\n"
      " \"env\": {\"B\": 3}}";
  Result<JsonLines> r = LocateJsonValues(text, "settings.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->duplicate_keys, (std::vector<std::string>{"/env/A", "/env"}));
  EXPECT_EQ(r->lines.at("/env/A"), 2);  // the later value's line
  EXPECT_EQ(r->lines.at("/env"), 3);
  // ParseJson itself still refuses the same text.
  EXPECT_NE(ErrorOf(text).find("duplicate key \"A\""), std::string::npos) << ErrorOf(text);
}

TEST(JsonLocate, RefusesWhatIsNotJsonNamingFileAndLine) {
  Result<JsonLines> r = LocateJsonValues("{\n  \"a\": [1,]\n}", "settings.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("settings.json:2:", 0), 0u) << r.status().message();
  std::string deep(300, '[');
  deep += std::string(300, ']');
  Result<JsonLines> d = LocateJsonValues(deep, "deep.json");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("nesting deeper than 256"), std::string::npos)
      << d.status().message();
}

}  // namespace
}  // namespace av
