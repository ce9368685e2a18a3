#include "tensor/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string TestData(const std::string& file) {
  return std::string(ATTNVERIFY_SOURCE_DIR) + "/testdata/npy/" + file;
}

std::string FileBytes(const std::string& file) {
  auto bytes = ReadFileToString(TestData(file));
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? *bytes : std::string();
}

// Every element in row-major order of the logical shape.
std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.GetDouble(t.Unravel(i)));
  return out;
}

// A .npy file with `dict` as its header text (plus '\n') and `data` after it.
std::string MakeNpy(const std::string& dict, const std::string& data = "", int major = 1) {
  std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string Dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

Result<Tensor> Parse(const std::string& bytes) { return ParseNpy(CopyToBuffer(bytes), "t.npy"); }

// Asserts that parsing fails with `code` and a message containing `text`.
void ExpectError(const Result<Tensor>& r, StatusCode code, const std::string& text) {
  ASSERT_FALSE(r.ok()) << "expected an error containing: " << text;
  EXPECT_EQ(r.status().code(), code) << r.status().message();
  EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().message();
}

// The values gen_npy_testdata.py stores in the (2, 3) files.
const std::vector<double> kFloats = {-1.5, -0.75, 0.0, 0.75, 1.5, 2.25};
const std::vector<double> kInts = {-74, -37, 0, 37, 74, 111};
const std::vector<double> kInt64s = {-2000000000014.0, -1000000000007.0, 0.0,
                                     1000000000007.0,  2000000000014.0,  3000000000021.0};
const std::vector<double> kUints = {0, 50, 100, 150, 200, 250};
const std::vector<double> kBools = {1, 0, 0, 1, 1, 0};

struct DTypeCase {
  const char* file;
  DType dtype;
  const std::vector<double>* values;
};

const DTypeCase kDTypeCases[] = {
    {"f8.npy", DType::kF64, &kFloats},
    {"f4.npy", DType::kF32, &kFloats},
    {"f2.npy", DType::kF16, &kFloats},
    {"i1.npy", DType::kI8, &kInts},
    {"i2.npy", DType::kI16, &kInts},
    {"i4.npy", DType::kI32, &kInts},
    {"i8.npy", DType::kI64, &kInt64s},
    {"u1.npy", DType::kU8, &kUints},
    {"b1.npy", DType::kBool, &kBools},
    {"be_f8.npy", DType::kF64, &kFloats},
    {"be_f4.npy", DType::kF32, &kFloats},
    {"be_f2.npy", DType::kF16, &kFloats},
    {"be_i2.npy", DType::kI16, &kInts},
    {"be_i4.npy", DType::kI32, &kInts},
    {"be_i8.npy", DType::kI64, &kInt64s},
    {"v2_f4.npy", DType::kF32, &kFloats},
    {"v3_f4.npy", DType::kF32, &kFloats},
    {"fortran_f8_2x3.npy", DType::kF64, &kFloats},
    {"be_fortran_f4_2x3.npy", DType::kF32, &kFloats},
};

TEST(NpyReadTest, ReadsEveryFileNumpyWrote) {
  for (const DTypeCase& c : kDTypeCases) {
    SCOPED_TRACE(c.file);
    auto t = ReadNpy(TestData(c.file));
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->dtype(), c.dtype);
    EXPECT_EQ(t->shape(), (Shape{2, 3}));
    EXPECT_EQ(Values(*t), *c.values);
  }
}

TEST(NpyReadTest, LittleEndianDataIsAViewOfTheMapping) {
  auto t = ReadNpy(TestData("f4.npy"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  const auto* mapped = dynamic_cast<const MappedFile*>(t->buffer().get());
  ASSERT_NE(mapped, nullptr) << "the tensor should view the file's mapping";
  EXPECT_EQ(t->data(), mapped->data() + 128);  // numpy's header pads to 128 bytes here
  EXPECT_EQ(t->strides(), (Shape{3, 1}));
}

TEST(NpyReadTest, BigEndianIsSwappedIntoOwnedMemory) {
  auto t = ReadNpy(TestData("be_i4.npy"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(dynamic_cast<const MappedFile*>(t->buffer().get()), nullptr);
  EXPECT_EQ(t->data(), t->buffer()->data());
  EXPECT_EQ(t->At<int32_t>(std::vector<int64_t>{1, 2}), 111);
}

TEST(NpyReadTest, FortranOrderIsAColumnMajorView) {
  auto t = ReadNpy(TestData("fortran_i4_2x3x4.npy"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_NE(dynamic_cast<const MappedFile*>(t->buffer().get()), nullptr);
  EXPECT_EQ(t->shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(t->strides(), (Shape{1, 2, 6}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) {
        EXPECT_EQ(t->At<int32_t>(std::vector<int64_t>{i, j, k}), i * 12 + j * 4 + k);
      }
    }
  }
}

TEST(NpyReadTest, BigEndianFortranKeepsColumnMajorStrides) {
  auto t = ReadNpy(TestData("be_fortran_f4_2x3.npy"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->strides(), (Shape{1, 2}));
  EXPECT_EQ(Values(*t), kFloats);
}

TEST(NpyReadTest, ReadsZeroDimensionalAndEmptyArrays) {
  auto scalar = ReadNpy(TestData("scalar_f8.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->ndim(), 0);
  EXPECT_EQ(scalar->numel(), 1);
  EXPECT_EQ(Values(*scalar), std::vector<double>{3.5});

  auto empty = ReadNpy(TestData("empty_f4_0x3.npy"));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->shape(), (Shape{0, 3}));
  EXPECT_EQ(empty->numel(), 0);
}

struct BadFileCase {
  const char* file;
  StatusCode code;
  const char* text;
};

TEST(NpyReadTest, RejectsMalformedAndUnsupportedFilesWithTheirName) {
  const BadFileCase cases[] = {
      {"bad_truncated_data.npy", StatusCode::kInvalidInput,
       "data is truncated: shape [2, 3] of f64 needs 48 bytes after the 128-byte header, but only "
       "40 are present"},
      {"bad_magic.npy", StatusCode::kInvalidInput, "not an .npy file"},
      {"bad_header_too_long.npy", StatusCode::kInvalidInput,
       "header length 10038 exceeds the 10000-byte limit"},
      {"bad_object.npy", StatusCode::kUnsupported, "descr '|O' holds Python objects"},
      {"bad_structured.npy", StatusCode::kUnsupported, "structured dtype (descr is a list of 2"},
      {"bad_void_v2.npy", StatusCode::kUnsupported, "'|V2' is raw void data"},
      {"bad_unicode.npy", StatusCode::kUnsupported, "'<U2' is a string type"},
      {"bad_complex.npy", StatusCode::kUnsupported, "'<c8' is complex"},
      {"bad_uint16.npy", StatusCode::kUnsupported, "'<u2' is an unsigned integer"},
  };
  for (const BadFileCase& c : cases) {
    SCOPED_TRACE(c.file);
    auto r = ReadNpy(TestData(c.file));
    ExpectError(r, c.code, c.text);
    if (!r.ok()) {
      EXPECT_EQ(r.status().message().rfind(TestData(c.file) + ": ", 0), 0u);
    }
  }
  EXPECT_NE(ReadNpy(TestData("bad_void_v2.npy")).status().message().find("safetensors"),
            std::string::npos);
}

TEST(NpyReadTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadNpy(TestData("no_such_file.npy")).status().code(), StatusCode::kNotFound);
}

TEST(NpyHeaderTest, AcceptsPython2LongsQuotesSpacingAndAnyKeyOrder) {
  std::string data(24, '\0');
  auto t =
      Parse(MakeNpy("  { \"shape\" :(2L, 3L,),\n'descr':\"<i4\" ,'fortran_order':False,}  ", data));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  EXPECT_EQ(t->dtype(), DType::kI32);
}

TEST(NpyHeaderTest, TupleForms) {
  auto one = Parse(MakeNpy(Dict("<f4", "(5,)"), std::string(20, '\0')));
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->shape(), (Shape{5}));
  auto scalar = Parse(MakeNpy(Dict("<f4", "()"), std::string(4, '\0')));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->ndim(), 0);
  // As in Python, "(5)" is the integer 5, not a tuple.
  ExpectError(Parse(MakeNpy(Dict("<f4", "(5)"), std::string(20, '\0'))), StatusCode::kInvalidInput,
              "'shape' must be a tuple of integers, not an integer");
  ExpectError(Parse(MakeNpy(Dict("<f4", "[5]"))), StatusCode::kInvalidInput, "not a list");
  ExpectError(Parse(MakeNpy(Dict("<f4", "(2.5,)"))), StatusCode::kInvalidInput,
              "malformed integer");
  ExpectError(Parse(MakeNpy(Dict("<f4", "(1,,2)"))), StatusCode::kInvalidInput,
              "unexpected character ','");
  ExpectError(Parse(MakeNpy(Dict("<f4", "('a',)"))), StatusCode::kInvalidInput,
              "dimension 0 is a string, not an integer");
}

TEST(NpyHeaderTest, RejectsShapesThatOverflow) {
  ExpectError(Parse(MakeNpy(Dict("<f4", "(4294967296, 4294967296, 4294967296)"))),
              StatusCode::kInvalidInput, "has too many elements");
  // 2^61 elements fit in int64, but 2^61 * 8 bytes do not fit in 64 bits.
  ExpectError(Parse(MakeNpy(Dict("<f8", "(2305843009213693952,)"))), StatusCode::kInvalidInput,
              "needs more than 2^64 bytes");
  ExpectError(Parse(MakeNpy(Dict("<f4", "(99999999999999999999,)"))), StatusCode::kInvalidInput,
              "integer does not fit in 64 bits");
  ExpectError(Parse(MakeNpy(Dict("<f4", "(1000000,)"), std::string(16, '\0'))),
              StatusCode::kInvalidInput, "needs 4000000 bytes");
}

TEST(NpyHeaderTest, EmptyArrayWithHugeExtentsHasNoOverflow) {
  auto t = Parse(MakeNpy(Dict("<f4", "(0, 1099511627776, 1099511627776)")));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->numel(), 0);
}

TEST(NpyHeaderTest, RejectsNegativeDimensions) {
  ExpectError(Parse(MakeNpy(Dict("<f4", "(2, -3)"))), StatusCode::kInvalidInput,
              "dimension 1 is negative (-3)");
}

TEST(NpyHeaderTest, RejectsUnterminatedHeaders) {
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)")),
              StatusCode::kInvalidInput, "the header dict is not closed with '}'");
  ExpectError(Parse(MakeNpy("{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}")),
              StatusCode::kInvalidInput, "expected ',' or '}'");
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,}")),
              StatusCode::kInvalidInput, "'(' is not closed");
  ExpectError(Parse(MakeNpy("{'descr': '<f4")), StatusCode::kInvalidInput,
              "byte 20: string is not terminated");
  // The length field promises more header than the file holds.
  std::string file = MakeNpy(Dict("<f4", "()"));
  ExpectError(Parse(file.substr(0, file.size() - 5)), StatusCode::kInvalidInput,
              "runs past the end of the file");
}

TEST(NpyHeaderTest, RejectsHeadersThatAreNotADict) {
  ExpectError(Parse(MakeNpy("['descr', '<f4']")), StatusCode::kInvalidInput,
              "must be a Python dict literal");
  ExpectError(Parse(MakeNpy("")), StatusCode::kInvalidInput, "must be a Python dict literal");
  ExpectError(Parse(MakeNpy(Dict("<f4", "()") + " x")), StatusCode::kInvalidInput,
              "unexpected text after the header dict");
  ExpectError(Parse(MakeNpy("{1: 2}")), StatusCode::kInvalidInput, "dict keys must be strings");
  ExpectError(Parse(MakeNpy("{'descr': {'a': 1}}")), StatusCode::kInvalidInput,
              "nested dicts are not allowed");
  ExpectError(Parse(MakeNpy("{'descr': '<f\\x34'}")), StatusCode::kInvalidInput,
              "escape sequences are not supported");
  ExpectError(Parse(MakeNpy("{'descr': nan}")), StatusCode::kInvalidInput, "unexpected name 'nan'");
  ExpectError(Parse(MakeNpy("{'descr': " + std::string(40, '[') + "}")), StatusCode::kInvalidInput,
              "nested deeper than 16 levels");
}

TEST(NpyHeaderTest, ErrorsNameTheByteOffsetInTheFile) {
  // The header starts at byte 10; the value that should follow a ':' is 9 bytes into it.
  ExpectError(Parse(MakeNpy("{'descr' '<f4'}")), StatusCode::kInvalidInput,
              "t.npy: byte 19: expected ':' after a dict key");
}

TEST(NpyHeaderTest, RejectsDuplicateMissingAndExtraKeys) {
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, "
                            "'shape': ()}")),
              StatusCode::kInvalidInput, "byte 27: duplicate key 'descr'");
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'fortran_order': False}")), StatusCode::kInvalidInput,
              "the header lacks the key 'shape'");
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'shape': ()}")), StatusCode::kInvalidInput,
              "the header lacks the key 'fortran_order'");
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (), "
                            "'extra': 1}")),
              StatusCode::kInvalidInput, "unexpected key 'extra'");
  ExpectError(Parse(MakeNpy("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}")),
              StatusCode::kInvalidInput, "'fortran_order' must be True or False, not an integer");
}

TEST(NpyHeaderTest, DescrAllowlist) {
  const std::pair<const char*, DType> accepted[] = {
      {"<f8", DType::kF64}, {">f8", DType::kF64}, {"<f4", DType::kF32}, {"<f2", DType::kF16},
      {"<i1", DType::kI8},  {"|i1", DType::kI8},  {"<i2", DType::kI16}, {">i4", DType::kI32},
      {"<i8", DType::kI64}, {"|u1", DType::kU8},  {"<u1", DType::kU8},  {"|b1", DType::kBool},
  };
  for (const auto& [descr, dtype] : accepted) {
    SCOPED_TRACE(descr);
    auto t = Parse(MakeNpy(Dict(descr, "(1,)"), std::string(8, '\0')));
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->dtype(), dtype);
  }
  const std::pair<const char*, const char*> rejected[] = {
      {"|f8", "has no byte order ('|') but its elements are 8 bytes wide"},
      {"=f4", "does not start with a byte order"},
      {"f4", "does not start with a byte order"},
      {"<u4", "unsigned integer wider than 8 bits"},
      {"<f16", "extended precision"},
      {"<i3", "not a numpy type code attnverify reads"},
      {"<f", "not a numpy type code"},
      {"<M8[ns]", "datetime"},
      {"<V1", "safetensors"},
  };
  for (const auto& [descr, text] : rejected) {
    SCOPED_TRACE(descr);
    auto r = Parse(MakeNpy(Dict(descr, "(1,)"), std::string(8, '\0')));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(std::string("'") + descr + "'"), std::string::npos)
        << "the message should name the descr: " << r.status().message();
  }
  ExpectError(Parse(MakeNpy("{'descr': ('<f4', (2,)), 'fortran_order': False, 'shape': ()}")),
              StatusCode::kInvalidInput, "'descr' must be a type string");
}

TEST(NpyHeaderTest, RejectsBadPrefixes) {
  ExpectError(Parse(""), StatusCode::kInvalidInput, "file is too short (0 bytes)");
  ExpectError(Parse("\x93NUM"), StatusCode::kInvalidInput, "file is too short (4 bytes)");
  ExpectError(Parse("PK\x03\x04rest"), StatusCode::kInvalidInput, "not an .npy file");
  ExpectError(Parse("\x93NUMPY\x01"), StatusCode::kInvalidInput, "ends inside the format version");
  ExpectError(Parse(std::string("\x93NUMPY\x01\x00\x05", 9)), StatusCode::kInvalidInput,
              "ends inside the header length");
  ExpectError(Parse(std::string("\x93NUMPY\x02\x00\x05\x00\x00", 11)), StatusCode::kInvalidInput,
              "ends inside the header length");
  ExpectError(Parse(MakeNpy(Dict("<f4", "()"), "", 4)), StatusCode::kUnsupported,
              "npy format version 4.0 is not supported");
  std::string v11 = MakeNpy(Dict("<f4", "()"), std::string(4, '\0'));
  v11[7] = 1;
  ExpectError(Parse(v11), StatusCode::kUnsupported, "version 1.1");
  // Version 2.0 lengths are u32: a 70000-byte claim is over the limit, not past the end.
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8) + std::string("\x70\x11\x01\x00", 4);
  ExpectError(Parse(v2), StatusCode::kInvalidInput,
              "t.npy: header length 70000 exceeds the 10000-byte limit");
}

TEST(NpyHeaderTest, RejectsMoreThan64Dimensions) {
  std::string shape = "(";
  for (int i = 0; i < 65; ++i) shape += "1, ";
  ExpectError(Parse(MakeNpy(Dict("<f4", shape + ")"))), StatusCode::kInvalidInput,
              "has 65 dimensions; numpy allows at most 64");
}

TEST(NpyHeaderTest, IgnoresBytesAfterTheData) {
  std::string data = std::string("\x01\x02", 2) + "trailing garbage";
  auto t = Parse(MakeNpy(Dict("|u1", "(2,)"), data));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(Values(*t), (std::vector<double>{1, 2}));
}

// Files whose data starts at an odd offset (other writers do not pad) still read.
TEST(NpyHeaderTest, ReadsUnalignedData) {
  const double v = 1.25;
  auto t =
      Parse(MakeNpy(Dict("<f8", "(1,)") + " ", std::string(reinterpret_cast<const char*>(&v), 8)));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(Values(*t), std::vector<double>{1.25});
}

// ---- Writer ----

TEST(NpyWriteTest, MatchesNumpyByteForByte) {
  const char* files[] = {"f8.npy", "f4.npy", "f2.npy", "i1.npy",        "i2.npy",          "i4.npy",
                         "i8.npy", "u1.npy", "b1.npy", "scalar_f8.npy", "empty_f4_0x3.npy"};
  for (const char* file : files) {
    SCOPED_TRACE(file);
    auto t = ReadNpy(TestData(file));
    ASSERT_TRUE(t.ok()) << t.status().message();
    auto bytes = SerializeNpy(*t);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    EXPECT_EQ(*bytes, FileBytes(file));
  }
}

// Whatever layout we read (Fortran order, big-endian, version 2 or 3), we write what
// np.save writes for the same logical array.
TEST(NpyWriteTest, WritesCOrderLittleEndianVersion1) {
  const std::pair<const char*, const char*> cases[] = {
      {"fortran_f8_2x3.npy", "f8.npy"},
      {"be_f8.npy", "f8.npy"},
      {"be_fortran_f4_2x3.npy", "f4.npy"},
      {"v2_f4.npy", "f4.npy"},
      {"v3_f4.npy", "f4.npy"},
      {"be_i8.npy", "i8.npy"},
  };
  for (const auto& [input, golden] : cases) {
    SCOPED_TRACE(input);
    auto t = ReadNpy(TestData(input));
    ASSERT_TRUE(t.ok()) << t.status().message();
    auto bytes = SerializeNpy(*t);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    EXPECT_EQ(*bytes, FileBytes(golden));
  }
}

TEST(NpyWriteTest, DataStartsOnA64ByteBoundaryForEveryRank) {
  const Shape shapes[] = {
      {},
      {1},
      {7},
      {0, 1234567890123},
      {1234567890123, 0},
      {2, 3, 4},
      {1, 1, 1, 1, 1},
      {0, 1, 2, 3, 4, 5, 6, 7},
      Shape(64, 1),
      {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1},
  };
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(ShapeToString(shape));
    Tensor t = Tensor::Zeros(DType::kF32, shape);
    auto bytes = SerializeNpy(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    const size_t data_start = bytes->size() - t.nbytes();
    EXPECT_EQ(data_start % 64, 0u);
    EXPECT_EQ((*bytes)[6], '\x01');
    EXPECT_EQ((*bytes)[data_start - 1], '\n');
    auto back = Parse(*bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->shape(), shape);
  }
}

TEST(NpyWriteTest, RoundTripsANonContiguousView) {
  Tensor t = Tensor::Zeros(DType::kI16, {3, 4});
  for (int64_t i = 0; i < 12; ++i) t.SetDouble(t.Unravel(i), static_cast<double>(i * 3 - 7));
  const int order[] = {1, 0};
  auto transposed = t.Permute(order);
  ASSERT_TRUE(transposed.ok());
  ASSERT_FALSE(transposed->is_contiguous());
  auto bytes = SerializeNpy(*transposed);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto back = Parse(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->shape(), (Shape{4, 3}));
  EXPECT_EQ(Values(*back), Values(*transposed));
}

TEST(NpyWriteTest, RejectsTypesNpyCannotName) {
  for (DType dtype : {DType::kBF16, DType::kF8E4M3FN, DType::kF8E5M2}) {
    auto bytes = SerializeNpy(Tensor::Zeros(dtype, {2}));
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(bytes.status().message().find("safetensors"), std::string::npos);
  }
  EXPECT_EQ(SerializeNpy(Tensor()).status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(SerializeNpy(Tensor::Zeros(DType::kF32, Shape(65, 1))).status().code(),
            StatusCode::kUnsupported);
}

TEST(NpyWriteTest, WriteNpyReplacesTheFileAtomically) {
  const std::string path =
      ::testing::TempDir() + "npy_write_test_" + std::to_string(::getpid()) + ".npy";
  Tensor t = Tensor::Zeros(DType::kF64, {2, 2});
  t.SetDouble(std::vector<int64_t>{1, 0}, 6.5);
  ASSERT_TRUE(WriteNpy(path, t).ok());
  auto back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Values(*back), (std::vector<double>{0, 0, 6.5, 0}));
  Status bf16 = WriteNpy(path, Tensor::Zeros(DType::kBF16, {1}));
  EXPECT_EQ(bf16.code(), StatusCode::kUnsupported);
  EXPECT_EQ(bf16.message().rfind(path + ": ", 0), 0u) << bf16.message();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace av
