#include "tensor/npy.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "core/byte_reader.h"
#include "core/file.h"

namespace av {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
// numpy aligns the data to 64 bytes (_format_impl.py: ARRAY_ALIGN) so a mapping of
// the file can be read with any vector width.
constexpr size_t kArrayAlign = 64;
// numpy pads the header with room for the growth axis to reach this many digits, so
// the header can be rewritten in place as the array grows (GROWTH_AXIS_MAX_DIGITS).
constexpr size_t kGrowthAxisMaxDigits = 21;
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

// How one npy descr maps onto a DType.
struct NpyElement {
  DType dtype = DType::kF32;
  bool big_endian = false;  // the bytes of each element must be reversed
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

struct NpyHeader {
  NpyElement element;
  bool fortran_order = false;
  Shape shape;
};

Result<NpyHeader> ParseHeader(std::string_view text, size_t base, const std::string& name) {
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

// Element strides in C (row-major) or Fortran (column-major) order. A product of
// extents can only overflow when some extent is 0; such an array addresses no memory,
// so it gets zero strides instead of wrapped ones.
Shape OrderStrides(const Shape& shape, bool fortran) {
  Shape strides(shape.size());
  int64_t step = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    const size_t i = fortran ? k : shape.size() - 1 - k;
    strides[i] = step;
    const int64_t extent = std::max<int64_t>(shape[i], 1);
    if (step > std::numeric_limits<int64_t>::max() / extent) return Shape(shape.size(), 0);
    step *= extent;
  }
  return strides;
}

std::string ShapeRepr(const Shape& shape) {
  if (shape.size() == 1) return "(" + std::to_string(shape[0]) + ",)";
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + ")";
}

std::string_view WriteDescr(DType dtype) {
  for (const DescrCode& code : kDescrCodes) {
    if (code.dtype == dtype) return code.written;
  }
  return "";  // bf16 and float8: npy has no code for them
}

}  // namespace

Result<Tensor> ParseNpy(std::shared_ptr<const Buffer> bytes, const std::string& name) {
  CHECK(bytes != nullptr) << "ParseNpy: null buffer";
  const std::string_view file = bytes->view();
  ByteReader reader(file);
  std::string_view magic;
  if (!reader.ReadBytes(kMagic.size(), &magic) || magic != kMagic) {
    if (file.size() < kMagic.size() && kMagic.starts_with(file)) {
      return InvalidInput(name + ": file is too short (" + std::to_string(file.size()) +
                          " bytes) to be .npy");
    }
    return InvalidInput(name + ": not an .npy file (it does not start with \\x93NUMPY)");
  }
  uint8_t major = 0;
  uint8_t minor = 0;
  if (!reader.ReadLittleEndian(&major) || !reader.ReadLittleEndian(&minor)) {
    return InvalidInput(name + ": file ends inside the format version");
  }
  if (major < 1 || major > 3 || minor != 0) {
    return Unsupported(name + ": npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)");
  }
  // 1.0 has a u16 header length; 2.0 and 3.0 a u32 (3.0 only changes latin-1 to utf-8,
  // which matters for structured field names we reject anyway).
  uint32_t header_length = 0;
  uint16_t short_length = 0;
  const bool have_length =
      major == 1 ? reader.ReadLittleEndian(&short_length) : reader.ReadLittleEndian(&header_length);
  if (major == 1) header_length = short_length;
  if (!have_length) return InvalidInput(name + ": file ends inside the header length");
  if (header_length > kNpyMaxHeaderBytes) {
    return InvalidInput(name + ": header length " + std::to_string(header_length) +
                        " exceeds the " + std::to_string(kNpyMaxHeaderBytes) + "-byte limit");
  }
  const size_t header_start = reader.position();
  std::string_view header_text;
  if (!reader.ReadBytes(header_length, &header_text)) {
    return InvalidInput(name + ": header length " + std::to_string(header_length) +
                        " runs past the end of the file (" + std::to_string(file.size()) +
                        " bytes)");
  }
  AV_ASSIGN_OR_RETURN(NpyHeader header, ParseHeader(header_text, header_start, name));

  const DType dtype = header.element.dtype;
  auto numel = CheckedNumel(header.shape);
  if (!numel.ok()) return numel.status().WithContext(name);
  const size_t elem = DTypeSize(dtype);
  const size_t data_offset = reader.position();
  if (static_cast<uint64_t>(*numel) > reader.remaining() / elem) {
    return InvalidInput(name + ": data is truncated: shape " + ShapeToString(header.shape) +
                        " of " + std::string(DTypeName(dtype)) + " needs " +
                        (static_cast<uint64_t>(*numel) > SIZE_MAX / elem
                             ? std::string("more than 2^64")
                             : std::to_string(static_cast<uint64_t>(*numel) * elem)) +
                        " bytes after the " + std::to_string(data_offset) +
                        "-byte header, but only " + std::to_string(reader.remaining()) +
                        " are present");
  }
  // Bytes after the data are ignored, as numpy ignores them (np.save may be called
  // repeatedly on one open file; np.load reads the first array).
  const size_t nbytes = static_cast<size_t>(*numel) * elem;
  Shape strides = OrderStrides(header.shape, header.fortran_order);

  std::shared_ptr<const Buffer> storage = std::move(bytes);
  size_t offset = data_offset;
  if (header.element.big_endian) {
    // Big-endian files (written on or for big-endian machines) are byte-swapped once
    // into owned memory in the file's element order, so every later read is native.
    auto owned = std::make_shared<OwnedBuffer>(nbytes);
    const std::byte* src = storage->data() + data_offset;
    std::byte* dst = owned->mutable_data();
    for (size_t i = 0; i < nbytes; i += elem) {
      for (size_t b = 0; b < elem; ++b) dst[i + b] = src[i + elem - 1 - b];
    }
    storage = std::move(owned);
    offset = 0;
  }
  auto tensor = Tensor::FromBuffer(std::move(storage), offset, dtype, std::move(header.shape),
                                   std::move(strides));
  if (!tensor.ok()) return tensor.status().WithContext(name);
  return tensor;
}

Result<Tensor> ReadNpy(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> mapped, MappedFile::Open(path));
  return ParseNpy(std::move(mapped), path);
}

Result<std::string> SerializeNpy(const Tensor& tensor) {
  if (!tensor.defined()) return InvalidInput("cannot write an undefined tensor as .npy");
  const std::string_view descr = WriteDescr(tensor.dtype());
  if (descr.empty()) {
    return Unsupported("npy has no type code for " + std::string(DTypeName(tensor.dtype())) +
                       " (np.save would store raw void bytes that lose the type); write "
                       "safetensors instead");
  }
  if (static_cast<size_t>(tensor.ndim()) > kNpyMaxRank) {
    return Unsupported("a tensor of rank " + std::to_string(tensor.ndim()) +
                       " cannot be written as .npy (numpy allows at most " +
                       std::to_string(kNpyMaxRank) + " dimensions)");
  }
  // Same text, key order and spare space as numpy's _write_array_header.
  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': " + ShapeRepr(tensor.shape()) + ", }";
  if (tensor.ndim() > 0) {
    dict.append(kGrowthAxisMaxDigits - std::to_string(tensor.dim(0)).size(), ' ');
  }
  // Version 1.0 has a u16 header length; 2.0 is only for headers that do not fit.
  const size_t hlen = dict.size() + 1;  // + '\n'
  size_t prefix = kMagic.size() + 2 + 2;
  size_t header_length = hlen + kArrayAlign - (prefix + hlen) % kArrayAlign;
  const bool v2 = header_length > 0xFFFF;
  if (v2) {
    prefix = kMagic.size() + 2 + 4;
    header_length = hlen + kArrayAlign - (prefix + hlen) % kArrayAlign;
  }
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out += static_cast<char>((header_length >> (8 * i)) & 0xFF);
  out += dict;
  out.append(header_length - hlen, ' ');
  out += '\n';

  const Tensor contiguous = tensor.is_contiguous() ? tensor : tensor.Contiguous();
  if (contiguous.nbytes() > 0) {
    out.append(reinterpret_cast<const char*>(contiguous.data()), contiguous.nbytes());
  }
  return out;
}

Status WriteNpy(const std::string& path, const Tensor& tensor) {
  auto bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return bytes.status().WithContext(path);
  return WriteFileAtomically(path, *bytes);
}

}  // namespace av
