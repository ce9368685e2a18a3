// Reading JSON: every JSON file attnverify reads (shapes.json, tolerances.json, the evidence
// files, manifest.json, merge inputs) is parsed once by ParseJson and then walked with a
// JsonReader, so that every error names the file and where: "shapes.json:3:14: duplicate
// key ..." for the text, "evidence/numerics.json: $.cases[3].outputs: must be an array"
// for the document. The files come from the code under review, so the parser is strict
// and bounded. Format notes: doc/formats/json.md. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

struct JsonLimits {
  // Nesting deeper than this is refused: a nesting bomb must not exhaust the stack of
  // the parser or of nlohmann's recursive copy. attnverify's deepest file nests 9.
  int max_depth = 128;
};

// Parses the whole of `text` as one JSON value (RFC 8259: no comments, no trailing
// commas; a leading UTF-8 byte order mark is skipped). Refused with an InvalidInput
// "FILE:LINE:COL: what" (LINE and COL 1-based, COL in bytes): a syntax error, invalid
// UTF-8 or an unpaired surrogate in a string, a number outside the range of a double
// ("number out of range"), a duplicate key in any object (naming the key and the first
// one's position), nesting deeper than `limits.max_depth`, anything after the value.
// Non-negative integers become unsigned numbers and negative ones signed, as nlohmann's
// own parser makes them; integers beyond 64 bits become doubles.
Result<nlohmann::json> ParseJson(std::string_view text, const std::string& file,
                                 const JsonLimits& limits = {});

// Where each value of a JSON document starts, by JSON pointer ("/permissions/allow/2" ->
// line 14), so findings about a file a person edits (an agent's settings) can say
// file:line. Duplicate object keys are listed: a reviewer reading the first may miss the
// one that counts.
struct JsonLines {
  std::map<std::string, int> lines;         // pointer -> 1-based line of the value
  std::vector<std::string> duplicate_keys;  // pointers of keys seen twice in one object

  // The line of `pointer`, else of its nearest ancestor that has one, else 1.
  int LineOf(const std::string& pointer) const;
};

// ParseJson's parser, with two differences for files written for other programs: a
// duplicate key is accepted (the last one wins, as in nlohmann and JavaScript) and listed
// in `duplicate_keys`, and the line of every value is recorded. Nesting is capped at 256
// levels. Errors are ParseJson's ("FILE:LINE:COL: what").
Result<JsonLines> LocateJsonValues(std::string_view text, const std::string& file);

// RFC 6901 escaping of one reference token ("a/b" -> "a~1b").
std::string JsonPointerToken(std::string_view key);

// Typed, path-aware reads of one parsed document; every error is "FILE: WHERE: what",
// WHERE a JSON path ("$.cases[3].outputs"). Absent keys and nulls leave the output
// unchanged (readers set defaults first); a present value of the wrong type is an error.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  // Parses `text` as this reader's file; the document must be a JSON object.
  Result<nlohmann::json> ParseObject(std::string_view text, const JsonLimits& limits = {}) const;

  Status Error(const std::string& where, const std::string& what) const;

  // The value at `key` of `object`; null when `object` is not an object, the key is
  // absent or its value is null.
  static const nlohmann::json* Get(const nlohmann::json& object, std::string_view key);

  Status Str(const nlohmann::json& object, std::string_view key, const std::string& where,
             std::string* out) const;
  // An integer; a float with an integral value below 2^53 is taken too.
  Status Int(const nlohmann::json& object, std::string_view key, const std::string& where,
             int64_t* out) const;
  // A number, or one of the strings "nan", "inf", "-inf" (how writers store the values
  // JSON cannot hold).
  Status Num(const nlohmann::json& object, std::string_view key, const std::string& where,
             double* out) const;
  Status Bool(const nlohmann::json& object, std::string_view key, const std::string& where,
              bool* out) const;
  Status Strings(const nlohmann::json& object, std::string_view key, const std::string& where,
                 std::vector<std::string>* out) const;
  // The array or object at `key`; null when absent.
  Result<const nlohmann::json*> Array(const nlohmann::json& object, std::string_view key,
                                      const std::string& where) const;
  Result<const nlohmann::json*> Object(const nlohmann::json& object, std::string_view key,
                                       const std::string& where) const;

  // Every key of `object` must be in `allowed` (a typo must not silently weaken a test).
  Status CheckKeys(const nlohmann::json& object, const std::string& where,
                   const std::set<std::string>& allowed) const;
  // `$.version` must be present and equal to `version`.
  Status CheckVersion(const nlohmann::json& doc, int version) const;
  // `$.schema` must be one of `accepted` ("attnverify.numerics/1", ...); when absent,
  // `absent_ok` decides.
  Status CheckSchema(const nlohmann::json& doc, const std::vector<std::string>& accepted,
                     bool absent_ok) const;

  // "a string", "a number", ... for messages.
  static std::string Kind(const nlohmann::json& value);
  // "$.cases" + 3 -> "$.cases[3]"; "$" + "shapes" -> "$.shapes" (or `$["a b"]`).
  static std::string Index(const std::string& where, size_t i);
  static std::string Member(const std::string& where, std::string_view key);

 private:
  std::string file_;
};

}  // namespace av
