#include "tensor/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/byte_reader.h"
#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using Tensors = std::vector<std::pair<std::string, Tensor>>;
using StringMap = std::map<std::string, std::string>;

std::string TestdataPath(const std::string& name) {
  return std::string(ATTNVERIFY_SOURCE_DIR) + "/testdata/safetensors/" + name;
}

nlohmann::json LoadJson(const std::string& name) {
  Result<std::string> text = ReadFileToString(TestdataPath(name));
  CHECK(text.ok()) << text.status().message();
  return nlohmann::json::parse(*text);
}

std::string CodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidInput:
      return "InvalidInput";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kIoError:
      return "IoError";
    case StatusCode::kUnsupported:
      return "Unsupported";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "?";
}

// A file by hand: 8-byte little-endian header length, header, data.
std::string Raw(const std::string& header, const std::string& data = "") {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

Result<SafetensorsFile> ParseBytes(const std::string& bytes, const std::string& name = "t") {
  return ParseSafetensors(CopyToBuffer(bytes), name);
}

std::vector<double> Values(const Tensor& t) {
  if (t.numel() == 0) return {};
  Tensor c = t.Contiguous();
  std::vector<double> out(static_cast<size_t>(c.numel()));
  LoadAsDouble(c.dtype(), c.data(), static_cast<int64_t>(c.element_size()), c.numel(), out.data());
  return out;
}

std::string Bytes(const Tensor& t) {
  if (t.numel() == 0) return "";
  Tensor c = t.Contiguous();
  return std::string(reinterpret_cast<const char*>(c.data()), c.nbytes());
}

Tensor Iota(DType dtype, Shape shape) {
  Tensor t = Tensor::Zeros(dtype, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.SetDouble(t.Unravel(i), static_cast<double>(i % 5) - 1);
  return t;
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/safetensors_test_" + std::to_string(::getpid()) + "_" + name;
}

TEST(SafetensorsTestdata, ReferenceFilesHoldTheExpectedValues) {
  const nlohmann::json expected = LoadJson("expected.json");
  ASSERT_GE(expected.size(), 4u);
  for (const auto& [file, want] : expected.items()) {
    SCOPED_TRACE(file);
    Result<SafetensorsFile> got = ReadSafetensors(TestdataPath(file));
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(got->metadata, want["metadata"].get<StringMap>());
    ASSERT_EQ(got->tensors.size(), want["tensors"].size());
    for (size_t i = 0; i < got->tensors.size(); ++i) {
      const auto& [name, t] = got->tensors[i];
      const nlohmann::json& w = want["tensors"][i];
      SCOPED_TRACE(name);
      EXPECT_EQ(name, w["name"].get<std::string>());  // offset order
      EXPECT_EQ(SafetensorsDTypeName(t.dtype()), w["dtype"].get<std::string>());
      EXPECT_EQ(t.shape(), w["shape"].get<Shape>());
      EXPECT_EQ(Values(t), w["values"].get<std::vector<double>>());
      EXPECT_EQ(got->Find(name), &t);
    }
  }
}

TEST(SafetensorsTestdata, EveryCaseGetsItsVerdict) {
  const nlohmann::json cases = LoadJson("cases.json")["cases"];
  ASSERT_GE(cases.size(), 50u);
  for (const nlohmann::json& c : cases) {
    const std::string file = c["file"];
    SCOPED_TRACE(file);
    const std::string path = TestdataPath(file);
    Result<SafetensorsFile> got = ReadSafetensors(path);
    const std::string expect = c["expect"];
    if (expect == "ok") {
      EXPECT_TRUE(got.ok()) << got.status().message();
      continue;
    }
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(CodeName(got.status().code()), expect) << got.status().message();
    EXPECT_EQ(got.status().message().rfind(path + ": ", 0), 0u) << got.status().message();
    EXPECT_NE(got.status().message().find(c["message"].get<std::string>()), std::string::npos)
        << got.status().message();
  }
}

// We may refuse what the Rust crate accepts only where cases.json says why (and
// doc/formats/safetensors.md repeats it); we never accept what it refuses.
TEST(SafetensorsTestdata, DeviationsFromReferenceAreDeclared) {
  const nlohmann::json cases = LoadJson("cases.json")["cases"];
  int deviations = 0;
  for (const nlohmann::json& c : cases) {
    SCOPED_TRACE(c["file"].get<std::string>());
    const bool reference_ok = c["reference"].get<std::string>().rfind("ok", 0) == 0;
    const bool we_accept = c["expect"] == "ok";
    if (we_accept) {
      EXPECT_TRUE(reference_ok) << c["reference"];
    }
    EXPECT_EQ(!we_accept && reference_ok, !c["deviation"].is_null());
    deviations += !c["deviation"].is_null();
  }
  EXPECT_EQ(deviations, 12);
}

TEST(SafetensorsTestdata, EveryFileIsACase) {
  std::set<std::string> listed;
  const nlohmann::json cases = LoadJson("cases.json")["cases"];
  for (const nlohmann::json& c : cases) listed.insert(c["file"]);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TestdataPath(""))) {
    if (entry.path().extension() != ".safetensors") continue;
    ++files;
    EXPECT_TRUE(listed.count(entry.path().filename().string())) << entry.path();
  }
  EXPECT_EQ(files, static_cast<int>(listed.size()));
}

// Files from the Python writer, re-serialized in file order, come out byte for byte.
TEST(SafetensorsTestdata, ReferenceFilesReserializeIdentically) {
  const nlohmann::json expected = LoadJson("expected.json");
  for (const auto& [file, want] : expected.items()) {
    SCOPED_TRACE(file);
    Result<std::string> original = ReadFileToString(TestdataPath(file));
    ASSERT_TRUE(original.ok());
    Result<SafetensorsFile> parsed = ParseBytes(*original, file);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    Result<std::string> again = SerializeSafetensors(parsed->tensors, parsed->metadata);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(*again, *original);
  }
}

TEST(SafetensorsRead, TensorsViewTheMappingWithoutCopying) {
  Result<SafetensorsFile> file = ReadSafetensors(TestdataPath("all_dtypes.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  const auto* mapped = dynamic_cast<const MappedFile*>(file->tensors[0].second.buffer().get());
  ASSERT_NE(mapped, nullptr);
  const uint64_t header_len = LoadLittleEndian<uint64_t>(mapped->data());
  const std::byte* data_start = mapped->data() + 8 + header_len;
  EXPECT_EQ(file->tensors[0].second.data(), data_start);
  const std::byte* next = data_start;
  for (const auto& [name, t] : file->tensors) {
    EXPECT_EQ(t.buffer().get(), mapped) << name;
    EXPECT_EQ(t.data(), next) << name;
    next += t.nbytes();
  }
  EXPECT_EQ(next, mapped->data() + mapped->size());
}

TEST(SafetensorsRead, TensorsOutliveTheirFile) {
  Tensor kept;
  {
    Result<SafetensorsFile> file = ReadSafetensors(TestdataPath("scalar_and_empty.safetensors"));
    ASSERT_TRUE(file.ok());
    ASSERT_NE(file->Find("scalar"), nullptr);
    kept = *file->Find("scalar");
    EXPECT_EQ(file->Find("absent"), nullptr);
  }
  EXPECT_EQ(kept.ndim(), 0);
  EXPECT_EQ(Values(kept), std::vector<double>{2.5});
}

TEST(SafetensorsRead, MissingFileIsNotFound) {
  Result<SafetensorsFile> file = ReadSafetensors(TestdataPath("no_such.safetensors"));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
}

TEST(SafetensorsParse, SizeMismatchMessageNamesFileTensorAndSizes) {
  Result<SafetensorsFile> got = ParseBytes(
      Raw(R"({"o":{"dtype":"F32","shape":[2,3],"data_offsets":[0,100]}})", std::string(100, '\0')),
      "out.safetensors");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "out.safetensors: tensor \"o\": data_offsets [0, 100] hold 100 bytes but shape [2, 3] "
            "of F32 needs 24");
}

TEST(SafetensorsParse, HeaderLengthLimitIsInclusive) {
  auto with_length = [](uint64_t n) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return ParseBytes(bytes + "{}");
  };
  Result<SafetensorsFile> at_limit = with_length(kSafetensorsMaxHeaderBytes);
  ASSERT_FALSE(at_limit.ok());
  EXPECT_NE(at_limit.status().message().find("is more than the 2 bytes"), std::string::npos)
      << at_limit.status().message();
  Result<SafetensorsFile> above = with_length(kSafetensorsMaxHeaderBytes + 1);
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.status().message().find("above the limit"), std::string::npos);
}

TEST(SafetensorsParse, UnalignedDataIsReadCorrectly) {
  // A 3-byte-longer header than the writer's padding would give: every F32 is unaligned.
  std::string data;
  for (float f : {1.5f, -2.0f}) data.append(reinterpret_cast<const char*>(&f), 4);
  Result<SafetensorsFile> got =
      ParseBytes(Raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}   )", data));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Values(got->tensors[0].second), (std::vector<double>{1.5, -2.0}));
}

TEST(SafetensorsParse, InvalidJsonMessageCarriesParserPosition) {
  Result<SafetensorsFile> got = ParseBytes(Raw(R"({"a":{"dtype" "F32"}})"), "x.safetensors");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("x.safetensors: header is not valid JSON: parse error at "
                                        "line 1, column"),
            std::string::npos)
      << got.status().message();
}

// nlohmann's lexer reads a raw NUL outside a string as the end of input.
TEST(SafetensorsParse, NulByteAfterTheHeaderObjectIsRejected) {
  Result<SafetensorsFile> got = ParseBytes(Raw(std::string("{}\0junk", 7)));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("NUL byte at byte 2 of the header"), std::string::npos)
      << got.status().message();
}

TEST(SafetensorsParse, LongTensorNamesAreShortenedInMessages) {
  const std::string name(100000, 'n');
  Result<SafetensorsFile> got =
      ParseBytes(Raw("{\"" + name + R"(":{"dtype":"Q8","shape":[],"data_offsets":[0,1]}})", "x"));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("unknown dtype \"Q8\""), std::string::npos);
  EXPECT_LT(got.status().message().size(), 300u);
}

TEST(SafetensorsParse, ControlCharactersInNamesAreEscapedInMessages) {
  Result<SafetensorsFile> got =
      ParseBytes(Raw(R"({"a\nb\"":{"dtype":"F32","shape":[],"data_offsets":[0,3]}})", "xyz"));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find(R"(tensor "a\x0ab\"": )"), std::string::npos)
      << got.status().message();
}

TEST(SafetensorsParse, DeepNestingStopsAtTheFirstUnexpectedValue) {
  Result<SafetensorsFile> got =
      ParseBytes(Raw(R"({"__metadata__":{"k":)" + std::string(1'000'000, '[')));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("must be a string, got an array"), std::string::npos);
}

TEST(SafetensorsParse, NamesWithEscapesAndUnicodeAreDecoded) {
  Result<SafetensorsFile> got = ParseBytes(
      Raw(R"({"caf\u00e9.\"q\"":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "\x07"));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->tensors[0].first, "caf\xc3\xa9.\"q\"");
}

TEST(SafetensorsWrite, HeaderIsCompactPaddedWithMetadataFirst) {
  Tensors tensors = {{"b", Iota(DType::kF32, {2})}};
  Result<std::string> bytes = SerializeSafetensors(tensors, {{"k", "v"}});
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  const std::string header =
      R"({"__metadata__":{"k":"v"},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const size_t padded = (header.size() + 7) / 8 * 8;
  EXPECT_EQ(*bytes,
            Raw(header + std::string(padded - header.size(), ' '), Bytes(tensors[0].second)));
  EXPECT_EQ(LoadLittleEndian<uint64_t>(bytes->data()) % 8, 0u);
}

TEST(SafetensorsWrite, KeepsTheGivenOrder) {
  Tensors tensors = {{"z", Iota(DType::kI64, {1})},
                     {"a", Iota(DType::kU8, {3})},
                     {"m", Iota(DType::kBF16, {0, 4})}};
  Result<std::string> bytes = SerializeSafetensors(tensors);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find(R"("z":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
                        R"("a":{"dtype":"U8","shape":[3],"data_offsets":[8,11]},)"
                        R"("m":{"dtype":"BF16","shape":[0,4],"data_offsets":[11,11]}})"),
            std::string::npos);
  Result<SafetensorsFile> back = ParseBytes(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->tensors.size(), 3u);
  EXPECT_EQ(back->tensors[0].first, "z");
  EXPECT_EQ(back->tensors[1].first, "a");
  EXPECT_EQ(back->tensors[2].first, "m");
}

TEST(SafetensorsWrite, RoundTripsEveryDtypeAndShape) {
  Tensors tensors;
  for (DType dtype : kAllDTypes) {
    tensors.emplace_back(std::string(DTypeName(dtype)), Iota(dtype, {2, 3}));
    tensors.emplace_back(std::string(DTypeName(dtype)) + ".scalar", Iota(dtype, {}));
    tensors.emplace_back(std::string(DTypeName(dtype)) + ".empty", Iota(dtype, {3, 0}));
  }
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"note", "x\"y\n"}};
  Result<std::string> bytes = SerializeSafetensors(tensors, metadata);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  Result<SafetensorsFile> back = ParseBytes(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->metadata, metadata);
  ASSERT_EQ(back->tensors.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    SCOPED_TRACE(tensors[i].first);
    EXPECT_EQ(back->tensors[i].first, tensors[i].first);
    EXPECT_EQ(back->tensors[i].second.dtype(), tensors[i].second.dtype());
    EXPECT_EQ(back->tensors[i].second.shape(), tensors[i].second.shape());
    EXPECT_EQ(Bytes(back->tensors[i].second), Bytes(tensors[i].second));
  }
}

TEST(SafetensorsWrite, NonContiguousTensorsAreWrittenRowMajor) {
  Tensor base = Iota(DType::kF32, {2, 3});
  const int order[] = {1, 0};
  Result<Tensor> transposed = base.Permute(order);
  ASSERT_TRUE(transposed.ok());
  Result<Tensor> strided = base.Slice(1, 0, 3, 2);
  ASSERT_TRUE(strided.ok());
  ASSERT_FALSE(transposed->is_contiguous());
  ASSERT_FALSE(strided->is_contiguous());
  Result<std::string> bytes = SerializeSafetensors({{"t", *transposed}, {"s", *strided}});
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  Result<SafetensorsFile> back = ParseBytes(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  // base is [[-1, 0, 1], [2, 3, -1]].
  EXPECT_EQ(back->Find("t")->shape(), (Shape{3, 2}));
  EXPECT_EQ(Values(*back->Find("t")), (std::vector<double>{-1, 2, 0, 3, 1, -1}));
  EXPECT_EQ(Values(*back->Find("s")), (std::vector<double>{-1, 1, 2, -1}));
}

TEST(SafetensorsWrite, RejectsNamesTheFormatCannotHold) {
  const Tensor t = Iota(DType::kU8, {1});
  struct Case {
    Tensors tensors;
    std::map<std::string, std::string> metadata;
    const char* message;
  };
  const Case cases[] = {
      {{{"a", t}, {"a", t}}, {}, "tensor \"a\": duplicate name"},
      {{{"__metadata__", t}}, {}, "the name is reserved"},
      {{{"bad\xff", t}}, {}, "the name is not valid UTF-8"},
      {{{"empty", Tensor()}}, {}, "tensor \"empty\": has no data"},
      {{}, {{"k", "\xc0\x80"}}, "must be valid UTF-8"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    Result<std::string> bytes = SerializeSafetensors(c.tensors, c.metadata);
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(bytes.status().message().find(c.message), std::string::npos)
        << bytes.status().message();
  }
}

TEST(SafetensorsWrite, WriteThenReadFromDisk) {
  const std::string path = TempPath("w.safetensors");
  Tensors tensors = {{"x", Iota(DType::kF16, {4, 5})}};
  ASSERT_TRUE(WriteSafetensors(path, tensors, {{"a", "b"}}).ok());
  ASSERT_TRUE(WriteSafetensors(path, tensors, {{"a", "c"}}).ok());  // replaces
  Result<SafetensorsFile> back = ReadSafetensors(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->metadata.at("a"), "c");
  EXPECT_EQ(Bytes(*back->Find("x")), Bytes(tensors[0].second));
  std::filesystem::remove(path);

  Status bad = WriteSafetensors(TempPath("no/such/dir.safetensors"), tensors);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("no/such/dir.safetensors"), std::string::npos) << bad.message();
}

bool PythonHasSafetensors() {
  return std::system("python3 -c 'import safetensors, numpy' >/dev/null 2>&1") == 0;
}

std::string RunAndCapture(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0) out.append(chunk, n);
  ::pclose(pipe);
  return out;
}

// The Rust crate under the Python package is the reference reader: it must accept our
// file and see the same names, dtypes, shapes, bytes and metadata.
TEST(SafetensorsPython, ReferencePackageLoadsWhatWeWrite) {
  if (!PythonHasSafetensors()) {
    GTEST_SKIP() << "python3 with the safetensors package is not installed "
                    "(pip install safetensors numpy)";
  }
  Tensors tensors;
  for (DType dtype : kAllDTypes) {
    tensors.emplace_back("w." + std::string(DTypeName(dtype)), Iota(dtype, {3, 2}));
  }
  tensors.emplace_back("scalar", Iota(DType::kF64, {}));
  tensors.emplace_back("empty", Iota(DType::kI32, {0, 7}));
  const int order[] = {1, 0};
  tensors.emplace_back("transposed \"q\"\n\xc3\xa9", *Iota(DType::kBF16, {2, 3}).Permute(order));
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"\xe2\x82\xac", "\t"}};
  const std::string path = TempPath("py.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, tensors, metadata).ok());

  const std::string script =
      "import json, sys, safetensors\n"
      "data = open(sys.argv[1], 'rb').read()\n"
      "with safetensors.safe_open(sys.argv[1], framework='np') as f: meta = f.metadata()\n"
      "print(json.dumps({'metadata': meta, 'tensors': [[n, t['dtype'], t['shape'], "
      "bytes(t['data']).hex()] for n, t in safetensors.deserialize(data)]}))\n";
  const std::string script_path = TempPath("load.py");
  ASSERT_TRUE(WriteFileAtomically(script_path, script).ok());
  const std::string out = RunAndCapture("python3 " + script_path + " " + path + " 2>&1");
  nlohmann::json got = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(got.is_discarded()) << out;
  EXPECT_EQ(got["metadata"].get<StringMap>(), metadata);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& t : got["tensors"]) by_name[t[0].get<std::string>()] = t;
  ASSERT_EQ(by_name.size(), tensors.size());
  for (const auto& [name, t] : tensors) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(by_name.count(name));
    const nlohmann::json& py = by_name[name];
    EXPECT_EQ(py[1].get<std::string>(), SafetensorsDTypeName(t.dtype()));
    EXPECT_EQ(py[2].get<Shape>(), t.shape());
    std::string hex;
    for (char c : Bytes(t)) {
      static constexpr char kHex[] = "0123456789abcdef";
      hex += kHex[(static_cast<unsigned char>(c) >> 4)];
      hex += kHex[static_cast<unsigned char>(c) & 15];
    }
    EXPECT_EQ(py[3].get<std::string>(), hex);
  }
  std::filesystem::remove(path);
  std::filesystem::remove(script_path);
}

}  // namespace
}  // namespace av
