#include "core/json_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_dump.h"

namespace av {
namespace {

using nlohmann::json;

// Pure helpers over a document's bytes (no parser state).
std::string Printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (c >= 0x20 && c != '"' && c != '\\') ? c : '?';
  return out + (s.size() > 80 ? "..." : "");
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool Hex4(std::string_view text, size_t at, uint32_t* out) {
  *out = 0;
  for (size_t i = 0; i < 4; ++i) {
    const int d = at + i < text.size() ? HexDigit(text[at + i]) : -1;
    if (d < 0) return false;
    *out = *out * 16 + static_cast<uint32_t>(d);
  }
  return true;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The length of the UTF-8 sequence starting at `at` (1..4), or 0 when it is invalid
// (overlong, a surrogate, above U+10FFFF, cut short).
size_t Utf8Length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u;
  };
  const unsigned c = byte(0);
  const auto cont = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return byte(1) >= lo && byte(1) <= hi && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return byte(1) >= lo && byte(1) <= hi && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// A recursive-descent parser over the bytes of one document. nlohmann's own parser
// cannot say where a key was, lets the last of two equal keys win, and throws on a number
// it cannot hold; this one refuses all three with a position. With `locate` it records
// where each value starts and lets the last of two equal keys win, listing them.
class Parser {
 public:
  Parser(std::string_view text, const std::string& file, const JsonLimits& limits,
         JsonLines* locate = nullptr)
      : text_(text), file_(file), limits_(limits), locate_(locate) {}

  Result<json> Document();

 private:
  struct Where {
    size_t line = 1, col = 1;
  };

  // Positions and the first error.
  Where WhereIs(size_t at) const;
  static std::string Text(Where w) { return std::to_string(w.line) + ":" + std::to_string(w.col); }
  // Records the first error (at byte `at`) and returns false, so callers `return Fail(...)`.
  bool Fail(size_t at, const std::string& what);
  std::string Describe(size_t at) const;
  void SkipSpace();
  // Locate mode: the 1-based line of byte `at` (`at` never decreases between calls).
  int LineAt(size_t at);

  // Structure: a value, an object, an array (depth counts the open brackets).
  bool Value(json* out, int depth);
  bool ObjectValue(json* out, int depth);
  bool ArrayValue(json* out, int depth);

  // Scalars: a string with its escapes, a number.
  bool String(std::string* out);
  // One escape after the backslash at pos_ - 1.
  bool Escape(std::string* out);
  bool Digits(size_t* at);
  bool Number(json* out);

  std::string_view text_;
  const std::string& file_;
  JsonLimits limits_;
  size_t pos_ = 0;
  bool failed_ = false;
  Status error_;
  // Locate mode: the JSON pointer of the value being read, and LineAt's place.
  JsonLines* locate_ = nullptr;
  std::string pointer_;
  size_t line_at_ = 0;
  int line_ = 1;
};

Result<json> Parser::Document() {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  json value;
  SkipSpace();
  if (!Value(&value, 1)) return error_;
  SkipSpace();
  if (pos_ < text_.size()) {
    Fail(pos_, "unexpected " + Describe(pos_) + " after the JSON value");
    return error_;
  }
  return value;
}

Parser::Where Parser::WhereIs(size_t at) const {
  Where w;
  for (size_t i = 0; i < at && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++w.line;
      w.col = 1;
    } else {
      ++w.col;
    }
  }
  return w;
}

bool Parser::Fail(size_t at, const std::string& what) {
  if (failed_) return false;
  failed_ = true;
  error_ = InvalidInput(file_ + ":" + Text(WhereIs(at)) + ": " + what);
  return false;
}

std::string Parser::Describe(size_t at) const {
  if (at >= text_.size()) return "end of file";
  const unsigned char c = static_cast<unsigned char>(text_[at]);
  if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return std::string("byte ") + buf;
}

int Parser::LineAt(size_t at) {
  for (; line_at_ < at && line_at_ < text_.size(); ++line_at_) {
    if (text_[line_at_] == '\n') ++line_;
  }
  return line_;
}

void Parser::SkipSpace() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    ++pos_;
  }
}

bool Parser::Value(json* out, int depth) {
  if (locate_ != nullptr) locate_->lines[pointer_] = LineAt(pos_);
  if (pos_ >= text_.size()) return Fail(pos_, "unexpected end of file: expected a value");
  const char c = text_[pos_];
  if (c == '{' || c == '[') {
    if (depth > limits_.max_depth) {
      return Fail(pos_, "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    }
    return c == '{' ? ObjectValue(out, depth) : ArrayValue(out, depth);
  }
  if (c == '"') {
    std::string s;
    if (!String(&s)) return false;
    *out = std::move(s);
    return true;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
  for (auto [word, value] :
       {std::pair<std::string_view, json>{"true", true}, {"false", false}, {"null", nullptr}}) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      *out = value;
      return true;
    }
  }
  return Fail(pos_, "unexpected " + Describe(pos_) + ": expected a value");
}

bool Parser::ObjectValue(json* out, int depth) {
  *out = json::object();
  std::map<std::string, size_t> seen;  // key -> where it started
  ++pos_;
  SkipSpace();
  if (pos_ < text_.size() && text_[pos_] == '}') {
    ++pos_;
    return true;
  }
  while (true) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      return Fail(pos_, "unexpected " + Describe(pos_) + ": expected a key in quotes");
    }
    const size_t key_at = pos_;
    std::string key;
    if (!String(&key)) return false;
    const size_t parent = pointer_.size();
    if (locate_ != nullptr) pointer_ += "/" + JsonPointerToken(key);
    auto [it, fresh] = seen.emplace(key, key_at);
    if (!fresh && locate_ != nullptr) {
      locate_->duplicate_keys.push_back(pointer_);
    } else if (!fresh) {
      return Fail(key_at, "duplicate key \"" + Printable(key) + "\" (first at " +
                              Text(WhereIs(it->second)) + "): one file must not mean two things");
    }
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != ':') {
      return Fail(pos_, "unexpected " + Describe(pos_) + ": expected ':' after a key");
    }
    ++pos_;
    SkipSpace();
    json value;
    if (!Value(&value, depth + 1)) return false;
    pointer_.resize(parent);
    (*out)[key] = std::move(value);
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    return Fail(pos_, "unexpected " + Describe(pos_) + ": expected ',' or '}' in an object");
  }
}

bool Parser::ArrayValue(json* out, int depth) {
  *out = json::array();
  ++pos_;
  SkipSpace();
  if (pos_ < text_.size() && text_[pos_] == ']') {
    ++pos_;
    return true;
  }
  for (size_t i = 0;; ++i) {
    SkipSpace();
    const size_t parent = pointer_.size();
    if (locate_ != nullptr) pointer_ += "/" + std::to_string(i);
    json value;
    if (!Value(&value, depth + 1)) return false;
    pointer_.resize(parent);
    out->push_back(std::move(value));
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    return Fail(pos_, "unexpected " + Describe(pos_) + ": expected ',' or ']' in an array");
  }
}

bool Parser::String(std::string* out) {
  const size_t start = pos_++;
  while (true) {
    if (pos_ >= text_.size()) return Fail(start, "string not closed before the end of file");
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      ++pos_;
      return true;
    }
    if (c == '\\') {
      ++pos_;
      if (!Escape(out)) return false;
      continue;
    }
    if (c < 0x20) return Fail(pos_, "control character " + Describe(pos_) + " in a string");
    const size_t n = Utf8Length(text_, pos_);
    if (n == 0) return Fail(pos_, "invalid UTF-8 (" + Describe(pos_) + ") in a string");
    out->append(text_.substr(pos_, n));
    pos_ += n;
  }
}

bool Parser::Escape(std::string* out) {
  if (pos_ >= text_.size()) return Fail(pos_, "unexpected end of file in a string");
  const size_t at = pos_ - 1;
  const char c = text_[pos_++];
  switch (c) {
    case '"':
    case '\\':
    case '/':
      *out += c;
      return true;
    case 'b':
      *out += '\b';
      return true;
    case 'f':
      *out += '\f';
      return true;
    case 'n':
      *out += '\n';
      return true;
    case 'r':
      *out += '\r';
      return true;
    case 't':
      *out += '\t';
      return true;
    case 'u':
      break;
    default:
      return Fail(at, std::string("invalid escape \\") + (c >= 0x21 && c < 0x7F ? c : '?'));
  }
  uint32_t cp = 0;
  if (!Hex4(text_, pos_, &cp)) return Fail(at, "\\u must be followed by four hex digits");
  pos_ += 4;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail(at, "unpaired low surrogate \\u in a string");
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    uint32_t low = 0;
    if (text_.substr(pos_, 2) != "\\u" || !Hex4(text_, pos_ + 2, &low) || low < 0xDC00 ||
        low > 0xDFFF) {
      return Fail(at, "unpaired high surrogate \\u in a string");
    }
    pos_ += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  AppendUtf8(cp, out);
  return true;
}

bool Parser::Digits(size_t* at) {
  const size_t begin = *at;
  while (*at < text_.size() && text_[*at] >= '0' && text_[*at] <= '9') ++*at;
  return *at > begin;
}

bool Parser::Number(json* out) {
  const size_t start = pos_;
  size_t at = pos_;
  if (text_[at] == '-') ++at;
  if (at < text_.size() && text_[at] == '0') {
    ++at;
  } else if (!Digits(&at)) {
    return Fail(start, "invalid number: expected a digit after '-'");
  }
  bool integral = true;
  if (at < text_.size() && text_[at] == '.') {
    ++at;
    integral = false;
    if (!Digits(&at)) return Fail(start, "invalid number: expected a digit after '.'");
  }
  if (at < text_.size() && (text_[at] == 'e' || text_[at] == 'E')) {
    ++at;
    integral = false;
    if (at < text_.size() && (text_[at] == '+' || text_[at] == '-')) ++at;
    if (!Digits(&at)) return Fail(start, "invalid number: expected a digit in the exponent");
  }
  pos_ = at;
  const std::string token(text_.substr(start, at - start));
  if (integral) {
    errno = 0;
    char* end = nullptr;
    if (token[0] == '-') {
      const long long v = std::strtoll(token.c_str(), &end, 10);
      if (errno == 0) {
        *out = static_cast<int64_t>(v);
        return true;
      }
    } else {
      const unsigned long long v = std::strtoull(token.c_str(), &end, 10);
      if (errno == 0) {
        *out = static_cast<uint64_t>(v);
        return true;
      }
    }
    // Beyond 64 bits: a double, as nlohmann does.
  }
  // The grammar above admits only what strtod reads the same in every locale, save the
  // decimal point: attnverify never sets a locale, so it is '.'.
  errno = 0;
  const double v = std::strtod(token.c_str(), nullptr);
  if (std::isinf(v)) {
    return Fail(start, "number out of range: " + token.substr(0, 40) +
                           " does not fit in a double (the largest is about 1.8e308)");
  }
  *out = v;
  return true;
}

}  // namespace

Result<json> ParseJson(std::string_view text, const std::string& file, const JsonLimits& limits) {
  Parser parser(text, file, limits);
  return parser.Document();
}

int JsonLines::LineOf(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    auto it = lines.find(p);
    if (it != lines.end()) return it->second;
    size_t slash = p.rfind('/');
    if (slash == std::string::npos) return 1;
    p.resize(slash);
  }
}

Result<JsonLines> LocateJsonValues(std::string_view text, const std::string& file) {
  JsonLines lines;
  Parser parser(text, file, JsonLimits{256}, &lines);
  Result<json> doc = parser.Document();
  if (!doc.ok()) return doc.status();
  return lines;
}

std::string JsonPointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Result<json> JsonReader::ParseObject(std::string_view text, const JsonLimits& limits) const {
  AV_ASSIGN_OR_RETURN(json doc, ParseJson(text, file_, limits));
  if (!doc.is_object()) return Error("$", "must be a JSON object, got " + Kind(doc));
  return doc;
}

Status JsonReader::Error(const std::string& where, const std::string& what) const {
  return InvalidInput(file_ + ": " + where + ": " + what);
}

const json* JsonReader::Get(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

Status JsonReader::Str(const json& o, std::string_view key, const std::string& where,
                       std::string* out) const {
  const json* v = Get(o, key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_string()) return Error(Member(where, key), "must be a string, got " + Kind(*v));
  *out = v->get<std::string>();
  return Status::Ok();
}

Status JsonReader::Int(const json& o, std::string_view key, const std::string& where,
                       int64_t* out) const {
  const json* v = Get(o, key);
  if (v == nullptr) return Status::Ok();
  if (v->is_number_unsigned()) {
    if (v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Error(Member(where, key), "integer too large");
    *out = static_cast<int64_t>(v->get<uint64_t>());
    return Status::Ok();
  }
  if (v->is_number_integer()) {
    *out = v->get<int64_t>();
    return Status::Ok();
  }
  if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
      std::fabs(v->get<double>()) < 9e15) {
    *out = static_cast<int64_t>(v->get<double>());
    return Status::Ok();
  }
  return Error(Member(where, key), "must be an integer, got " + Kind(*v));
}

Status JsonReader::Num(const json& o, std::string_view key, const std::string& where,
                       double* out) const {
  const json* v = Get(o, key);
  if (v == nullptr) return Status::Ok();
  if (v->is_number()) {
    *out = v->get<double>();
    return Status::Ok();
  }
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s == "nan") {
      *out = std::numeric_limits<double>::quiet_NaN();
    } else if (s == "inf") {
      *out = std::numeric_limits<double>::infinity();
    } else if (s == "-inf") {
      *out = -std::numeric_limits<double>::infinity();
    } else {
      return Error(Member(where, key), "must be a number, got \"" + s.substr(0, 40) + "\"");
    }
    return Status::Ok();
  }
  return Error(Member(where, key), "must be a number, got " + Kind(*v));
}

Status JsonReader::Bool(const json& o, std::string_view key, const std::string& where,
                        bool* out) const {
  const json* v = Get(o, key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_boolean()) return Error(Member(where, key), "must be true or false, got " + Kind(*v));
  *out = v->get<bool>();
  return Status::Ok();
}

Status JsonReader::Strings(const json& o, std::string_view key, const std::string& where,
                           std::vector<std::string>* out) const {
  AV_ASSIGN_OR_RETURN(const json* arr, Array(o, key, where));
  if (arr == nullptr) return Status::Ok();
  for (size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string()) {
      return Error(Index(Member(where, key), i), "must be a string, got " + Kind((*arr)[i]));
    }
    out->push_back((*arr)[i].get<std::string>());
  }
  return Status::Ok();
}

Result<const json*> JsonReader::Array(const json& o, std::string_view key,
                                      const std::string& where) const {
  const json* v = Get(o, key);
  if (v == nullptr) return static_cast<const json*>(nullptr);
  if (!v->is_array()) return Error(Member(where, key), "must be an array, got " + Kind(*v));
  return v;
}

Result<const json*> JsonReader::Object(const json& o, std::string_view key,
                                       const std::string& where) const {
  const json* v = Get(o, key);
  if (v == nullptr) return static_cast<const json*>(nullptr);
  if (!v->is_object()) return Error(Member(where, key), "must be an object, got " + Kind(*v));
  return v;
}

Status JsonReader::CheckKeys(const json& object, const std::string& where,
                             const std::set<std::string>& allowed) const {
  for (const auto& [key, value] : object.items()) {
    if (allowed.count(key)) continue;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return Error(where, "unknown key \"" + key + "\" (allowed: " + list + ")");
  }
  return Status::Ok();
}

Status JsonReader::CheckVersion(const json& doc, int version) const {
  const json* v = Get(doc, "version");
  if (v != nullptr && *v == version) return Status::Ok();
  return Error("$.version", "must be " + std::to_string(version) + ", got " +
                                (v != nullptr ? DumpJson(*v) : std::string("nothing")));
}

Status JsonReader::CheckSchema(const json& doc, const std::vector<std::string>& accepted,
                               bool absent_ok) const {
  const json* v = Get(doc, "schema");
  if (v == nullptr && absent_ok) return Status::Ok();
  if (v != nullptr && v->is_string()) {
    for (const std::string& a : accepted) {
      if (v->get_ref<const std::string&>() == a) return Status::Ok();
    }
  }
  std::string list;
  for (const std::string& a : accepted) list += (list.empty() ? "\"" : " or \"") + a + "\"";
  return Error("$.schema", "expected " + list + ", got " +
                               (v != nullptr ? DumpJson(*v) : std::string("nothing")));
}

std::string JsonReader::Kind(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string JsonReader::Index(const std::string& where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

std::string JsonReader::Member(const std::string& where, std::string_view key) {
  bool plain = !key.empty();
  for (char c : key) {
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_');
  }
  if (plain) return where + "." + std::string(key);
  std::string quoted;
  for (char c : key) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return where + "[\"" + quoted + "\"]";
}

}  // namespace av
