#include "tensor/npy_header.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tensor/npy.h"

namespace av {
namespace {

// Deeper than any header numpy writes (structured descrs nest 3 levels); stops a
// hostile header from recursing the parser off the stack.
constexpr int kMaxNesting = 16;

// Bytes from the file, safe to put into a message: printable ASCII kept, the rest
// as \xNN, long strings cut.
std::string Quote(std::string_view s) {
  constexpr size_t kMaxShown = 40;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < std::min(s.size(), kMaxShown); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > kMaxShown) out += "...";
  return out + "'";
}

// A value of the Python literal subset numpy headers use.
struct PyValue {
  enum class Kind { kString, kBool, kInt, kNone, kTuple, kList };
  Kind kind = Kind::kNone;
  size_t pos = 0;  // offset of its first byte in the file
  std::string text;
  bool boolean = false;
  int64_t integer = 0;
  std::vector<PyValue> items;

  static PyValue At(Kind kind, size_t pos) {
    PyValue v;
    v.kind = kind;
    v.pos = pos;
    return v;
  }
};

const char* KindName(PyValue::Kind kind) {
  static constexpr const char* kNames[] = {"a string", "a bool",  "an integer",
                                           "None",     "a tuple", "a list"};
  return kNames[static_cast<int>(kind)];
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) {
  return IsDigit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

using DictEntries = std::vector<std::pair<PyValue, PyValue>>;

// Parses the header text as a Python dict literal: strings in ' or ", True/False/None,
// integers (with the L suffix Python 2 wrote), tuples and lists, trailing commas and
// whitespace. Anything else is an error naming its byte offset in the file.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, size_t base, const std::string& name)
      : text_(text), base_(base), name_(name) {}

  Result<DictEntries> ParseDict() {
    // ast.literal_eval, which numpy uses, also skips leading spaces and tabs.
    SkipSpace();
    if (AtEnd() || text_[pos_] != '{') {
      return Error(pos_, "the header must be a Python dict literal starting with '{'");
    }
    const size_t open = pos_++;
    DictEntries entries;
    while (true) {
      SkipSpace();
      if (AtEnd()) return Error(open, "the header dict is not closed with '}'");
      if (text_[pos_] == '}') break;
      if (text_[pos_] != '\'' && text_[pos_] != '"')
        return Error(pos_, "dict keys must be strings");
      AV_ASSIGN_OR_RETURN(PyValue key, ParseString());
      SkipSpace();
      if (AtEnd() || text_[pos_] != ':') return Error(pos_, "expected ':' after a dict key");
      ++pos_;
      AV_ASSIGN_OR_RETURN(PyValue value, ParseValue(1));
      entries.emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (AtEnd()) return Error(open, "the header dict is not closed with '}'");
      if (text_[pos_] == ',') {
        ++pos_;
      } else if (text_[pos_] != '}') {
        return Error(pos_, "expected ',' or '}' in the header dict");
      }
    }
    ++pos_;
    SkipSpace();  // numpy pads with spaces and ends with '\n'
    if (!AtEnd()) return Error(pos_, "unexpected text after the header dict");
    return entries;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  void SkipSpace() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }
  Status Error(size_t pos, const std::string& what) const {
    return InvalidInput(name_ + ": byte " + std::to_string(base_ + pos) + ": " + what);
  }

  Result<PyValue> ParseValue(int depth) {
    SkipSpace();
    if (AtEnd()) return Error(pos_, "the header ends where a value was expected");
    if (depth > kMaxNesting) {
      return Error(pos_, "values nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    const char c = text_[pos_];
    if (c == '\'' || c == '"') return ParseString();
    if (c == '(') return ParseSequence(')', depth);
    if (c == '[') return ParseSequence(']', depth);
    if (c == '-' || c == '+' || IsDigit(c)) return ParseInt();
    if (IsNameChar(c)) return ParseName();
    if (c == '{') return Error(pos_, "nested dicts are not allowed");
    return Error(pos_, "unexpected character " + Quote(text_.substr(pos_, 1)));
  }

  Result<PyValue> ParseString() {
    PyValue v = PyValue::At(PyValue::Kind::kString, base_ + pos_);
    const size_t open = pos_;
    const char quote = text_[pos_++];
    while (true) {
      if (AtEnd() || text_[pos_] == '\n') return Error(open, "string is not terminated");
      const char c = text_[pos_];
      if (c == '\\') return Error(pos_, "escape sequences are not supported in the header");
      ++pos_;
      if (c == quote) return v;
      v.text += c;
    }
  }

  Result<PyValue> ParseInt() {
    PyValue v = PyValue::At(PyValue::Kind::kInt, base_ + pos_);
    bool negative = false;
    if (text_[pos_] == '-' || text_[pos_] == '+') negative = text_[pos_++] == '-';
    if (AtEnd() || !IsDigit(text_[pos_])) return Error(pos_, "expected digits");
    uint64_t magnitude = 0;
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    while (!AtEnd() && IsDigit(text_[pos_])) {
      const auto digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (magnitude > (kMax - digit) / 10) {
        return Error(v.pos - base_, "integer does not fit in 64 bits");
      }
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    // Python 2 wrote longs as 2L; numpy still reads those files.
    if (!AtEnd() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    if (!AtEnd() && (text_[pos_] == '.' || IsNameChar(text_[pos_]))) {
      return Error(v.pos - base_, "malformed integer (only plain decimal integers are allowed)");
    }
    v.integer = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return v;
  }

  Result<PyValue> ParseName() {
    const size_t start = pos_;
    while (!AtEnd() && IsNameChar(text_[pos_])) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    PyValue v = PyValue::At(PyValue::Kind::kNone, base_ + start);
    if (word == "True" || word == "False") {
      v.kind = PyValue::Kind::kBool;
      v.boolean = word == "True";
    } else if (word == "None") {
      v.kind = PyValue::Kind::kNone;
    } else {
      return Error(start, "unexpected name " + Quote(word));
    }
    return v;
  }

  // "(...)" or "[...]". "(x)" without a comma is x itself, as in Python.
  Result<PyValue> ParseSequence(char close, int depth) {
    const size_t open = pos_++;
    PyValue v =
        PyValue::At(close == ')' ? PyValue::Kind::kTuple : PyValue::Kind::kList, base_ + open);
    bool saw_comma = false;
    const std::string not_closed = std::string("'") + text_[open] + "' is not closed";
    while (true) {
      SkipSpace();
      if (AtEnd()) return Error(open, not_closed);
      if (text_[pos_] == close) break;
      if (text_[pos_] == ')' || text_[pos_] == ']' || text_[pos_] == '}') {
        return Error(open, not_closed);
      }
      AV_ASSIGN_OR_RETURN(PyValue item, ParseValue(depth + 1));
      v.items.push_back(std::move(item));
      SkipSpace();
      if (AtEnd()) return Error(open, not_closed);
      if (text_[pos_] == ',') {
        saw_comma = true;
        ++pos_;
      } else if (text_[pos_] != close) {
        return Error(pos_, std::string("expected ',' or '") + close + "'");
      }
    }
    ++pos_;
    if (close == ')' && v.items.size() == 1 && !saw_comma) return std::move(v.items[0]);
    return v;
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t base_;
  const std::string& name_;
};

// The descrs we read: kind letter and size after the byte-order character. The first
// entry for a DType is also what the writer emits (numpy's spelling: '|' for one byte).
struct DescrCode {
  char kind;
  size_t size;
  DType dtype;
  std::string_view written;
};

constexpr DescrCode kDescrCodes[] = {
    {'f', 8, DType::kF64, "<f8"}, {'f', 4, DType::kF32, "<f4"}, {'f', 2, DType::kF16, "<f2"},
    {'i', 1, DType::kI8, "|i1"},  {'i', 2, DType::kI16, "<i2"}, {'i', 4, DType::kI32, "<i4"},
    {'i', 8, DType::kI64, "<i8"}, {'u', 1, DType::kU8, "|u1"},  {'b', 1, DType::kBool, "|b1"},
};

// Kinds numpy writes that attnverify refuses, and why (doc/formats/npy.md).
struct RefusedKind {
  std::string_view kinds;
  const char* why;
};

constexpr RefusedKind kRefusedKinds[] = {
    {"O",
     " holds Python objects, which only pickle can read, and attnverify never unpickles; "
     "save a numeric array"},
    {"V",
     " is raw void data: np.save writes ml_dtypes bfloat16 and float8 arrays this way "
     "without recording the element type; save them with safetensors instead"},
    {"USa", " is a string type; only numeric arrays can be compared"},
    {"c", " is complex; save the real and imaginary parts as float arrays"},
    {"Mm", " is a datetime or timedelta type; only numeric arrays are read"},
};

// Maps a descr string ('<f4', '|u1', '>i8', ...) onto a DType. Messages lack the file name.
Result<NpyElement> ParseDescr(std::string_view descr) {
  const std::string q = "descr " + Quote(descr);
  if (descr.size() < 2 || (descr[0] != '<' && descr[0] != '>' && descr[0] != '|')) {
    return InvalidInput(q + " does not start with a byte order ('<', '>' or '|')");
  }
  const char kind = descr[1];
  for (const RefusedKind& refused : kRefusedKinds) {
    if (refused.kinds.find(kind) != std::string_view::npos) return Unsupported(q + refused.why);
  }
  std::string_view digits = descr.substr(2);
  if (digits.empty() || digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), IsDigit)) {
    return InvalidInput(q + " is not a numpy type code");
  }
  size_t size = 0;
  for (char d : digits) size = size * 10 + static_cast<size_t>(d - '0');
  if (kind == 'u' && size > 1) {
    return Unsupported(q +
                       " is an unsigned integer wider than 8 bits; convert it to a signed "
                       "type (np.int64) first");
  }
  if (kind == 'f' && (size == 12 || size == 16)) {
    return Unsupported(q + " is extended precision (long double); convert it to float64 first");
  }
  for (const DescrCode& code : kDescrCodes) {
    if (code.kind != kind || code.size != size) continue;
    if (size > 1 && descr[0] == '|') {
      return InvalidInput(q + " has no byte order ('|') but its elements are " +
                          std::to_string(size) + " bytes wide");
    }
    return NpyElement{code.dtype, size > 1 && descr[0] == '>'};
  }
  return InvalidInput(q +
                      " is not a numpy type code attnverify reads (it reads f2 f4 f8 i1 "
                      "i2 i4 i8 u1 b1)");
}

}  // namespace

Result<NpyHeader> ParseNpyHeader(std::string_view text, size_t base, const std::string& name) {
  HeaderParser parser(text, base, name);
  AV_ASSIGN_OR_RETURN(DictEntries entries, parser.ParseDict());
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  auto at = [&](const PyValue& v, const std::string& what) {
    return InvalidInput(name + ": byte " + std::to_string(v.pos) + ": " + what);
  };
  for (const auto& [key, value] : entries) {
    const PyValue** slot = key.text == "descr"           ? &descr
                           : key.text == "fortran_order" ? &fortran
                           : key.text == "shape"         ? &shape
                                                         : nullptr;
    if (slot == nullptr) {
      return at(key, "unexpected key " + Quote(key.text) +
                         "; the header has exactly 'descr', 'fortran_order' and 'shape'");
    }
    if (*slot != nullptr) return at(key, "duplicate key " + Quote(key.text));
    *slot = &value;
  }
  for (auto [slot, key] : {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"},
                           std::pair{shape, "shape"}}) {
    if (slot == nullptr) return InvalidInput(name + ": the header lacks the key '" + key + "'");
  }

  NpyHeader header;
  if (fortran->kind != PyValue::Kind::kBool) {
    return at(*fortran,
              std::string("'fortran_order' must be True or False, not ") + KindName(fortran->kind));
  }
  header.fortran_order = fortran->boolean;

  if (shape->kind != PyValue::Kind::kTuple) {
    return at(*shape,
              std::string("'shape' must be a tuple of integers, not ") + KindName(shape->kind));
  }
  if (shape->items.size() > kNpyMaxRank) {
    return at(*shape, "'shape' has " + std::to_string(shape->items.size()) +
                          " dimensions; numpy allows at most " + std::to_string(kNpyMaxRank));
  }
  for (size_t i = 0; i < shape->items.size(); ++i) {
    const PyValue& dim = shape->items[i];
    if (dim.kind != PyValue::Kind::kInt) {
      return at(
          dim, "dimension " + std::to_string(i) + " is " + KindName(dim.kind) + ", not an integer");
    }
    if (dim.integer < 0) {
      return at(dim, "dimension " + std::to_string(i) + " is negative (" +
                         std::to_string(dim.integer) + ")");
    }
    header.shape.push_back(dim.integer);
  }

  if (descr->kind == PyValue::Kind::kList) {
    return Unsupported(name + ": structured dtype (descr is a list of " +
                       std::to_string(descr->items.size()) +
                       " fields); save each field as its own array");
  }
  if (descr->kind != PyValue::Kind::kString) {
    return at(*descr, std::string("'descr' must be a type string such as '<f4', not ") +
                          KindName(descr->kind));
  }
  auto element = ParseDescr(descr->text);
  if (!element.ok()) return element.status().WithContext(name);
  header.element = *element;
  return header;
}

std::string_view NpyDescrFor(DType dtype) {
  for (const DescrCode& code : kDescrCodes) {
    if (code.dtype == dtype) return code.written;
  }
  return "";  // bf16 and float8: npy has no code for them
}

}  // namespace av
