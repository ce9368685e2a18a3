#include "tensor/safetensors_header.h"

#include <nlohmann/json.hpp>
#include <unordered_set>

namespace av::safetensors_detail {
namespace {

// numpy's NPY_MAXDIMS; a cap so a 100 MB header of "1," cannot become 400 MB of shape.
constexpr size_t kMaxRank = 64;
// Names in error messages are cut here: a name may legally be megabytes long.
constexpr size_t kMaxQuotedName = 120;

// nlohmann SAX handler that accepts exactly the header schema. It keeps every key (the
// DOM parser silently keeps the last of duplicate keys), never nests deeper than the
// schema, and stops at the first problem with a message naming the tensor.
class HeaderHandler {
 public:
  using json = nlohmann::json;

  std::vector<Entry>& entries() { return entries_; }
  std::map<std::string, std::string>& metadata() { return metadata_; }
  const Status& error() const { return error_; }

  bool null() {
    if (state_ == State::kTopValue && in_metadata_key_) {  // Option<...> in the Rust crate
      state_ = State::kTop;
      return true;
    }
    return Value("null");
  }
  bool boolean(bool) { return Value("a boolean"); }
  bool number_integer(json::number_integer_t v) {
    // nlohmann reports only literals that begin with '-' as signed.
    if (state_ == State::kShape || state_ == State::kOffsets) {
      return Fail(TensorContext(entry_.name) + FieldName() +
                  " must hold non-negative integers, got " +
                  (v == 0 ? std::string("-0") : std::to_string(v)));
    }
    return Value("a number");
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (state_ == State::kShape) {
      if (entry_.shape.size() == kMaxRank) {
        return Fail(TensorContext(entry_.name) + "rank above " + std::to_string(kMaxRank),
                    StatusCode::kUnsupported);
      }
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Fail(
            TensorContext(entry_.name) + "dimension " + std::to_string(v) + " is above 2^63 - 1",
            StatusCode::kUnsupported);
      }
      entry_.shape.push_back(static_cast<int64_t>(v));
      return true;
    }
    if (state_ == State::kOffsets) {
      if (offsets_seen_ == 2) {
        return Fail(TensorContext(entry_.name) + "data_offsets must hold exactly 2 integers");
      }
      (offsets_seen_++ == 0 ? entry_.begin : entry_.end) = v;
      return true;
    }
    return Value("a number");
  }
  bool number_float(json::number_float_t, const std::string& text) {
    if (state_ == State::kShape || state_ == State::kOffsets) {
      return Fail(TensorContext(entry_.name) + FieldName() + " must hold integers, got " + text);
    }
    return Value("a number");
  }
  bool string(std::string& s) {
    if (state_ == State::kMetadataValue) {
      metadata_[std::move(meta_key_)] = std::move(s);
      state_ = State::kMetadata;
      return true;
    }
    if (state_ == State::kEntryValue && field_ == Field::kDtype) {
      entry_.dtype = FindFormatDType(s);
      if (entry_.dtype == nullptr) {
        return Fail(TensorContext(entry_.name) + "unknown dtype " + Quote(s));
      }
      state_ = State::kEntry;
      return true;
    }
    return Value("a string");
  }
  bool binary(json::binary_t&) { return Value("binary data"); }

  bool start_object(size_t) {
    if (state_ == State::kStart) {
      state_ = State::kTop;
      return true;
    }
    if (state_ == State::kTopValue && !in_metadata_key_) {
      state_ = State::kEntry;
      return true;
    }
    if (state_ == State::kTopValue && in_metadata_key_) {
      state_ = State::kMetadata;
      return true;
    }
    return Value("an object");
  }
  bool key(std::string& k) {
    switch (state_) {
      case State::kTop:
        if (!top_keys_.insert(k).second) return Fail("duplicate key " + Quote(k));
        in_metadata_key_ = (k == "__metadata__");
        if (!in_metadata_key_) {
          entry_ = Entry();
          entry_.name = std::move(k);
        }
        state_ = State::kTopValue;
        return true;
      case State::kMetadata:
        if (metadata_.count(k)) return Fail("__metadata__: duplicate key " + Quote(k));
        meta_key_ = std::move(k);
        state_ = State::kMetadataValue;
        return true;
      case State::kEntry: {
        bool* seen = nullptr;
        if (k == "dtype") {
          field_ = Field::kDtype;
          seen = &entry_.has_dtype;
        } else if (k == "shape") {
          field_ = Field::kShape;
          seen = &entry_.has_shape;
        } else if (k == "data_offsets") {
          field_ = Field::kOffsets;
          seen = &entry_.has_offsets;
        } else {
          return Fail(TensorContext(entry_.name) + "unknown field " + Quote(k) +
                      " (an entry holds only dtype, shape and data_offsets)");
        }
        if (*seen) return Fail(TensorContext(entry_.name) + "duplicate field " + Quote(k));
        *seen = true;
        state_ = State::kEntryValue;
        return true;
      }
      default:
        return Fail("unexpected key " + Quote(k));  // unreachable: keys follow objects
    }
  }
  bool end_object() {
    if (state_ == State::kTop) {
      state_ = State::kDone;
      return true;
    }
    if (state_ == State::kMetadata) {
      state_ = State::kTop;
      return true;
    }
    if (state_ == State::kEntry) {
      const char* missing = !entry_.has_dtype     ? "dtype"
                            : !entry_.has_shape   ? "shape"
                            : !entry_.has_offsets ? "data_offsets"
                                                  : nullptr;
      if (missing != nullptr) {
        return Fail(TensorContext(entry_.name) + "missing field \"" + missing + "\"");
      }
      entries_.push_back(std::move(entry_));
      state_ = State::kTop;
      return true;
    }
    return Fail("unexpected end of object");  // unreachable: the parser pairs braces
  }
  bool start_array(size_t) {
    if (state_ == State::kEntryValue && field_ == Field::kShape) {
      state_ = State::kShape;
      return true;
    }
    if (state_ == State::kEntryValue && field_ == Field::kOffsets) {
      offsets_seen_ = 0;
      state_ = State::kOffsets;
      return true;
    }
    return Value("an array");
  }
  bool end_array() {
    if (state_ == State::kOffsets && offsets_seen_ != 2) {
      return Fail(TensorContext(entry_.name) + "data_offsets must hold exactly 2 integers, got " +
                  std::to_string(offsets_seen_));
    }
    if (state_ == State::kShape || state_ == State::kOffsets) {
      state_ = State::kEntry;
      return true;
    }
    return Fail("unexpected end of array");  // unreachable: the parser pairs brackets
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& ex) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 7: ...".
    std::string_view text = ex.what();
    size_t close = text.find("] ");
    if (close != std::string_view::npos) text.remove_prefix(close + 2);
    return Fail("header is not valid JSON: " + std::string(text));
  }

 private:
  enum class State {
    kStart,
    kTop,
    kTopValue,
    kMetadata,
    kMetadataValue,
    kEntry,
    kEntryValue,
    kShape,
    kOffsets,
    kDone
  };
  enum class Field { kDtype, kShape, kOffsets };

  std::string FieldName() const { return state_ == State::kShape ? "shape" : "data_offsets"; }

  // A value of the wrong kind (`what`) for the current position in the schema.
  bool Value(const char* what) {
    std::string got = std::string(", got ") + what;
    switch (state_) {
      case State::kStart:
        return Fail("header must be a JSON object" + got);
      case State::kTopValue:
        if (in_metadata_key_) return Fail("__metadata__ must be an object of strings" + got);
        return Fail(TensorContext(entry_.name) +
                    "entry must be an object with dtype, shape and data_offsets" + got);
      case State::kMetadataValue:
        return Fail("__metadata__: value of " + Quote(meta_key_) + " must be a string" + got);
      case State::kEntryValue:
        return Fail(TensorContext(entry_.name) +
                    (field_ == Field::kDtype   ? "dtype must be a string"
                     : field_ == Field::kShape ? "shape must be an array of integers"
                                               : "data_offsets must be an array of 2 integers") +
                    got);
      case State::kShape:
      case State::kOffsets:
        return Fail(TensorContext(entry_.name) + FieldName() + " must hold integers" + got);
      default:
        return Fail("unexpected value" + got);  // unreachable: values follow keys
    }
  }

  bool Fail(std::string message, StatusCode code = StatusCode::kInvalidInput) {
    if (error_.ok()) error_ = Status(code, std::move(message));
    return false;
  }

  State state_ = State::kStart;
  Field field_ = Field::kDtype;
  bool in_metadata_key_ = false;
  int offsets_seen_ = 0;
  Entry entry_;
  std::string meta_key_;
  std::unordered_set<std::string> top_keys_;
  std::vector<Entry> entries_;
  std::map<std::string, std::string> metadata_;
  Status error_;
};

}  // namespace

const FormatDType* FindFormatDType(std::string_view name) {
  for (const auto& d : kFormatDTypes) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// "name" in double quotes, control and non-ASCII bytes as \xNN, long names cut short.
std::string Quote(std::string_view name) {
  std::string out = "\"";
  for (size_t i = 0; i < name.size() && i < kMaxQuotedName; ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (name.size() > kMaxQuotedName) out += "...";
  return out + "\"";
}

std::string TensorContext(std::string_view name) { return "tensor " + Quote(name) + ": "; }

// Offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or npos. Rust's str::from_utf8 rules.
size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;  // overlong
      if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
    } else {
      return i;
    }
    if (s.size() - i < len) return i;
    for (size_t k = 1; k < len; ++k) {
      unsigned char b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf)) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

Result<ParsedHeader> ParseHeader(std::string_view header) {
  if (size_t bad = FindInvalidUtf8(header); bad != std::string_view::npos) {
    return InvalidInput("header is not valid UTF-8 (byte " + std::to_string(bad) +
                        " of the header)");
  }
  if (header.empty() || header[0] != '{') {
    return InvalidInput("header must begin with '{' (a JSON object)");
  }
  // nlohmann's lexer takes a NUL byte outside a string for the end of input, so
  // "{}\0junk" would parse; JSON allows no raw NUL anywhere.
  if (size_t nul = header.find('\0'); nul != std::string_view::npos) {
    return InvalidInput("header is not valid JSON: NUL byte at byte " + std::to_string(nul) +
                        " of the header");
  }

  HeaderHandler handler;
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(header.begin(), header.end(), &handler);
  } catch (const std::exception& ex) {  // the handler does not throw; the parser may
    return InvalidInput(std::string("header is not valid JSON: ") + ex.what());
  }
  if (!parsed) {
    if (!handler.error().ok()) return handler.error();
    return InvalidInput("header is not valid JSON");
  }

  return ParsedHeader{std::move(handler.entries()), std::move(handler.metadata())};
}

}  // namespace av::safetensors_detail
