#include "tensor/npz.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <optional>
#include <string>
#include <vector>

#include "core/file.h"
#include "tensor/npy.h"
#include "testing/test_util.h"

namespace av {
namespace {

std::string TestData(const std::string& file) {
  return std::string(ATTNVERIFY_SOURCE_DIR) + "/testdata/npy/" + file;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.GetDouble(t.Unravel(i)));
  return out;
}

void ExpectError(const Status& status, StatusCode code, const std::string& text) {
  ASSERT_FALSE(status.ok()) << "expected an error containing: " << text;
  EXPECT_EQ(status.code(), code) << status.message();
  EXPECT_NE(status.message().find(text), std::string::npos) << status.message();
}

const std::vector<double> kFloats = {-1.5, -0.75, 0.0, 0.75, 1.5, 2.25};

// ---- Archives numpy wrote ----

TEST(NpzReadTest, ListsSavezMembersWithoutTheSuffix) {
  auto archive = ReadNpz(TestData("savez_multi.npz"));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_EQ(archive->names(), (std::vector<std::string>{"q", "k", "lens", "scale"}));
  EXPECT_TRUE(archive->Contains("lens"));
  EXPECT_FALSE(archive->Contains("v"));
}

TEST(NpzReadTest, ReadsEveryStoredMemberAsAViewOfTheArchive) {
  auto archive = ReadNpz(TestData("savez_multi.npz"));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  auto q = archive->Get("q");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->dtype(), DType::kF32);
  EXPECT_EQ(Values(*q), kFloats);
  auto k = archive->Get("k");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->dtype(), DType::kF16);
  EXPECT_EQ(Values(*k), kFloats);
  auto lens = archive->Get("lens.npy");  // numpy's own member name works too
  ASSERT_TRUE(lens.ok()) << lens.status().message();
  EXPECT_EQ(Values(*lens), (std::vector<double>{3, 1, 4}));
  auto scale = archive->Get("scale");
  ASSERT_TRUE(scale.ok()) << scale.status().message();
  EXPECT_EQ(scale->ndim(), 0);
  EXPECT_EQ(Values(*scale), std::vector<double>{0.125});
}

TEST(NpzReadTest, StoredMembersAreNotCopied) {
  auto bytes = ReadFileToString(TestData("savez_multi.npz"));
  ASSERT_TRUE(bytes.ok());
  auto buffer = CopyToBuffer(*bytes);
  auto archive = ParseNpz(buffer, "m.npz");
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  auto q = archive->Get("q");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_GE(q->data(), buffer->data());
  EXPECT_LT(q->data(), buffer->data() + buffer->size());
}

TEST(NpzReadTest, PositionalMembersAreArrN) {
  auto archive = ReadNpz(TestData("savez_positional.npz"));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_EQ(archive->names(), (std::vector<std::string>{"arr_0", "arr_1"}));
  auto a0 = archive->Get("arr_0");
  ASSERT_TRUE(a0.ok()) << a0.status().message();
  EXPECT_EQ(Values(*a0), (std::vector<double>{0, 1, 2, 3}));
  auto a1 = archive->Get("arr_1");
  ASSERT_TRUE(a1.ok()) << a1.status().message();
  EXPECT_EQ(a1->dtype(), DType::kI64);
  EXPECT_EQ(a1->At<int64_t>(std::vector<int64_t>{1, 2}), 3000000000021);
}

TEST(NpzReadTest, InflatesCompressedMembers) {
  auto archive = ReadNpz(TestData("savez_compressed_multi.npz"));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_EQ(archive->names(),
            (std::vector<std::string>{"q", "k", "lens", "scale", "big", "fortran"}));
  auto big = archive->Get("big");
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_EQ(big->shape(), (Shape{32, 32}));
  std::vector<double> expected;
  for (int i = 0; i < 1024; ++i) expected.push_back(i % 7);
  EXPECT_EQ(Values(*big), expected);
  auto fortran = archive->Get("fortran");
  ASSERT_TRUE(fortran.ok()) << fortran.status().message();
  EXPECT_EQ(fortran->strides(), (Shape{1, 2, 6}));
  EXPECT_EQ(fortran->At<int32_t>(std::vector<int64_t>{1, 2, 3}), 23);
  auto q = archive->Get("q");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(Values(*q), kFloats);
}

TEST(NpzReadTest, RejectsArchivesNumpyWroteThatWeCannotRead) {
  ExpectError(ReadNpz(TestData("bad_truncated.npz")).status(), StatusCode::kInvalidInput,
              "no end-of-central-directory record in the last 65557 bytes");
  auto bzip2 = ReadNpz(TestData("bzip2.npz"));
  ExpectError(bzip2.status(), StatusCode::kUnsupported,
              "bzip2.npz: member 'a.npy' uses compression method 12 (bzip2)");
  ExpectError(ReadNpz(TestData("f4.npy")).status(), StatusCode::kInvalidInput,
              "(it is an .npy file)");
  ExpectError(ReadNpz(TestData("missing.npz")).status(), StatusCode::kNotFound, "missing.npz");
}

TEST(NpzReadTest, UnknownNameListsTheMembers) {
  auto archive = ReadNpz(TestData("savez_multi.npz"));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  ExpectError(archive->Get("v").status(), StatusCode::kNotFound,
              "savez_multi.npz: no array 'v' (it has 'q', 'k', 'lens', 'scale')");
}

// ---- Hand-made archives for what numpy never writes ----

struct Entry {
  std::string name = {};
  std::string data = {};  // uncompressed
  bool deflate = false;
  uint16_t flags = 0;
  std::optional<uint16_t> method = std::nullopt;
  std::optional<uint32_t> crc = std::nullopt;
  std::optional<uint64_t> uncompressed_size = std::nullopt;
  std::optional<std::string> local_name = std::nullopt;
  std::optional<std::string> compressed = std::nullopt;  // replaces the deflated bytes
  bool zip64 = false;  // 0xFFFFFFFF in the directory, real values in a ZIP64 extra field
};

struct ZipOptions {
  bool zip64_end = false;
  uint16_t disk = 0;
  std::string comment = {};
  std::optional<uint16_t> entry_count = std::nullopt;
};

void Put16(std::string* s, uint64_t v) {
  for (int i = 0; i < 2; ++i) *s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void Put32(std::string* s, uint64_t v) {
  for (int i = 0; i < 4; ++i) *s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void Put64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) *s += static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::string Deflate(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Writes a ZIP archive the way APPNOTE describes it, with knobs for each thing a
// reader must reject.
std::string BuildZip(const std::vector<Entry>& entries, const ZipOptions& options = {}) {
  std::string file, directory;
  for (const Entry& e : entries) {
    const std::string body = e.compressed ? *e.compressed : e.deflate ? Deflate(e.data) : e.data;
    const uint16_t method = e.method.value_or(e.deflate ? 8 : 0);
    const uint32_t crc = e.crc.value_or(static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(e.data.data()), static_cast<uInt>(e.data.size()))));
    const uint64_t usize = e.uncompressed_size.value_or(e.data.size());
    const uint64_t offset = file.size();
    const std::string local_name = e.local_name.value_or(e.name);
    Put32(&file, 0x04034b50);
    Put16(&file, 45);
    Put16(&file, e.flags);
    Put16(&file, method);
    Put32(&file, 0);  // time, date
    Put32(&file, crc);
    Put32(&file, body.size());
    Put32(&file, usize);
    Put16(&file, local_name.size());
    Put16(&file, 0);
    file += local_name + body;

    std::string extra;
    if (e.zip64) {
      Put16(&extra, 0x0001);
      Put16(&extra, 24);
      Put64(&extra, usize);
      Put64(&extra, body.size());
      Put64(&extra, offset);
    }
    Put32(&directory, 0x02014b50);
    Put16(&directory, 45);
    Put16(&directory, 45);
    Put16(&directory, e.flags);
    Put16(&directory, method);
    Put32(&directory, 0);
    Put32(&directory, crc);
    Put32(&directory, e.zip64 ? 0xFFFFFFFF : body.size());
    Put32(&directory, e.zip64 ? 0xFFFFFFFF : usize);
    Put16(&directory, e.name.size());
    Put16(&directory, extra.size());
    Put16(&directory, 0);  // comment
    Put16(&directory, 0);  // disk
    Put16(&directory, 0);
    Put32(&directory, 0);
    Put32(&directory, e.zip64 ? 0xFFFFFFFF : offset);
    directory += e.name + extra;
  }
  const uint64_t directory_offset = file.size();
  file += directory;
  const uint64_t count = options.entry_count.value_or(entries.size());
  if (options.zip64_end) {
    const uint64_t zip64_end = file.size();
    Put32(&file, 0x06064b50);
    Put64(&file, 44);
    Put16(&file, 45);
    Put16(&file, 45);
    Put32(&file, 0);
    Put32(&file, 0);
    Put64(&file, count);
    Put64(&file, count);
    Put64(&file, directory.size());
    Put64(&file, directory_offset);
    Put32(&file, 0x07064b50);
    Put32(&file, 0);
    Put64(&file, zip64_end);
    Put32(&file, 1);
  }
  Put32(&file, 0x06054b50);
  Put16(&file, options.disk);
  Put16(&file, options.disk);
  Put16(&file, options.zip64_end ? 0xFFFF : count);
  Put16(&file, options.zip64_end ? 0xFFFF : count);
  Put32(&file, options.zip64_end ? 0xFFFFFFFF : directory.size());
  Put32(&file, options.zip64_end ? 0xFFFFFFFF : directory_offset);
  Put16(&file, options.comment.size());
  return file + options.comment;
}

// A small valid .npy: three uint8 values.
std::string SmallNpy() {
  Tensor t = Tensor::Zeros(DType::kU8, {3});
  for (int64_t i = 0; i < 3; ++i) t.SetDouble(std::vector<int64_t>{i}, 10.0 * (i + 1));
  auto bytes = SerializeNpy(t);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::string();
}

Result<NpzArchive> ParseZip(const std::string& bytes) {
  return ParseNpz(CopyToBuffer(bytes), "x.npz");
}

Status GetError(const std::string& bytes, const std::string& member) {
  auto archive = ParseZip(bytes);
  if (!archive.ok()) return archive.status();
  auto t = archive->Get(member);
  return t.ok() ? Status::Ok() : t.status();
}

TEST(NpzZipTest, BuilderMakesArchivesTheReaderAccepts) {
  auto archive = ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy()},
                                    {.name = "b.npy", .data = SmallNpy(), .deflate = true}}));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  for (const char* name : {"a", "b"}) {
    auto t = archive->Get(name);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(Values(*t), (std::vector<double>{10, 20, 30}));
  }
}

TEST(NpzZipTest, ReadsZip64EndRecordAndExtraFields) {
  auto archive =
      ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy(), .zip64 = true},
                         {.name = "b.npy", .data = SmallNpy(), .deflate = true, .zip64 = true}},
                        {.zip64_end = true}));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_EQ(archive->names(), (std::vector<std::string>{"a", "b"}));
  auto b = archive->Get("b");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Values(*b), (std::vector<double>{10, 20, 30}));
}

TEST(NpzZipTest, FindsTheEndRecordBehindAComment) {
  const std::string comment = std::string("fake PK\x05\x06 record") + std::string(30, 'c');
  auto archive = ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy()}}, {.comment = comment}));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_EQ(archive->names(), std::vector<std::string>{"a"});
}

TEST(NpzZipTest, EmptyArchiveHasNoArrays) {
  auto archive = ParseZip(BuildZip({}));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_TRUE(archive->names().empty());
  ExpectError(archive->Get("a").status(), StatusCode::kNotFound, "(the archive is empty)");
}

TEST(NpzZipTest, SkipsDirectoriesAndListsOtherFilesWithoutReadingThem) {
  auto archive = ParseZip(BuildZip({{.name = "sub/", .data = ""},
                                    {.name = "sub/a.npy", .data = SmallNpy()},
                                    {.name = "notes.txt", .data = "hello"}}));
  ASSERT_TRUE(archive.ok()) << archive.status().message();
  EXPECT_EQ(archive->names(), (std::vector<std::string>{"sub/a", "notes.txt"}));
  EXPECT_TRUE(archive->Get("sub/a").ok());
  ExpectError(archive->Get("notes.txt").status(), StatusCode::kUnsupported,
              "x.npz[notes.txt]: not an .npy member");
}

TEST(NpzZipTest, RejectsEncryptedEntriesAndOtherMethods) {
  ExpectError(ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy(), .flags = 1}})).status(),
              StatusCode::kUnsupported, "x.npz: member 'a.npy' is encrypted");
  ExpectError(ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy(), .method = 14}})).status(),
              StatusCode::kUnsupported, "compression method 14 (LZMA)");
}

TEST(NpzZipTest, RejectsMultiDiskArchives) {
  ExpectError(ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy()}}, {.disk = 1})).status(),
              StatusCode::kUnsupported, "multi-disk");
}

TEST(NpzZipTest, RejectsDuplicateNames) {
  ExpectError(ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy()},
                                 {.name = "a.npy", .data = SmallNpy()}}))
                  .status(),
              StatusCode::kInvalidInput, "member 'a.npy' appears twice");
  ExpectError(
      ParseZip(BuildZip({{.name = "a", .data = SmallNpy()}, {.name = "a.npy", .data = SmallNpy()}}))
          .status(),
      StatusCode::kInvalidInput, "both hold the array 'a'");
}

TEST(NpzZipTest, RejectsUnsafeNames) {
  const std::pair<const char*, const char*> cases[] = {
      {"../a.npy", "has '..' in its path"},     {"x/../../a.npy", "has '..' in its path"},
      {"x\\..\\a.npy", "has '..' in its path"}, {"/etc/a.npy", "has an absolute path"},
      {"C:\\a.npy", "has an absolute path"},    {"", "has an empty name"},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    ExpectError(ParseZip(BuildZip({{.name = name, .data = SmallNpy()}})).status(),
                StatusCode::kInvalidInput, text);
  }
  // ".." inside a name component is an ordinary name.
  EXPECT_TRUE(ParseZip(BuildZip({{.name = "a..b.npy", .data = SmallNpy()}})).ok());
}

TEST(NpzZipTest, RejectsOffsetsAndSizesBeyondTheFile) {
  std::string zip = BuildZip({{.name = "a.npy", .data = SmallNpy()}});
  // The end record is the last 22 bytes; its directory offset is at +16.
  std::string bad_directory = zip;
  bad_directory[zip.size() - 3] = '\x7f';
  ExpectError(ParseZip(bad_directory).status(), StatusCode::kInvalidInput,
              "does not lie before the end record");

  // The directory entry's local-header offset is its last fixed field (+42).
  const size_t entry = zip.find(std::string("PK\x01\x02", 4));
  std::string bad_local = zip;
  bad_local[entry + 42 + 3] = '\x10';
  ExpectError(ParseZip(bad_local).status(), StatusCode::kInvalidInput,
              "local header at byte 268435456 runs past the end of the file");

  // Directory sizes bigger than the data that is there (+20 compressed, +24 uncompressed).
  std::string bad_size = zip;
  bad_size[entry + 20 + 2] = '\x01';
  bad_size[entry + 24 + 2] = '\x01';
  ExpectError(ParseZip(bad_size).status(), StatusCode::kInvalidInput,
              "run past the end of the file");

  ExpectError(
      ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy()}}, {.entry_count = 9})).status(),
      StatusCode::kInvalidInput, "claims 9 entries");
  ExpectError(ParseZip("PK\x05\x06").status(), StatusCode::kInvalidInput, "too short (4 bytes)");
}

TEST(NpzZipTest, RejectsLocalHeaderThatDisagrees) {
  ExpectError(
      ParseZip(BuildZip({{.name = "a.npy", .data = SmallNpy(), .local_name = "b.npy"}})).status(),
      StatusCode::kInvalidInput, "the local header names it 'b.npy'");
}

TEST(NpzZipTest, ChecksCrcOfStoredAndDeflatedMembers) {
  for (bool deflate : {false, true}) {
    SCOPED_TRACE(deflate);
    ExpectError(
        GetError(
            BuildZip(
                {{.name = "a.npy", .data = SmallNpy(), .deflate = deflate, .crc = 0x12345678}}),
            "a"),
        StatusCode::kInvalidInput, "but the directory records 0x12345678");
  }
}

TEST(NpzZipTest, RejectsDeflateDataThatDisagreesWithTheDirectory) {
  const std::string npy = SmallNpy();
  ExpectError(GetError(BuildZip({{.name = "a.npy",
                                  .data = npy,
                                  .deflate = true,
                                  .uncompressed_size = npy.size() - 1}}),
                       "a"),
              StatusCode::kInvalidInput, "inflates to more than the 130 bytes");
  ExpectError(GetError(BuildZip({{.name = "a.npy",
                                  .data = npy,
                                  .deflate = true,
                                  .uncompressed_size = npy.size() + 1}}),
                       "a"),
              StatusCode::kInvalidInput, "inflates to 131 bytes but the directory records 132");
  ExpectError(ParseZip(BuildZip({{.name = "a.npy",
                                  .data = npy,
                                  .deflate = true,
                                  .uncompressed_size = uint64_t{1} << 40,
                                  .zip64 = true}}))
                  .status(),
              StatusCode::kInvalidInput, "more than deflate can expand");
  ExpectError(GetError(BuildZip({{.name = "a.npy",
                                  .data = npy,
                                  .deflate = true,
                                  .compressed = std::string(40, '\xff')}}),
                       "a"),
              StatusCode::kInvalidInput, "x.npz[a.npy]: corrupt deflate data");
  const std::string deflated = Deflate(npy);
  ExpectError(GetError(BuildZip({{.name = "a.npy",
                                  .data = npy,
                                  .deflate = true,
                                  .compressed = deflated.substr(0, deflated.size() / 2)}}),
                       "a"),
              StatusCode::kInvalidInput, "deflate data ends before the end of the stream");
}

TEST(NpzZipTest, ErrorsInsideAMemberNameArchiveAndMember) {
  std::string npy = SmallNpy();
  npy.resize(npy.size() - 1);  // one data byte short
  ExpectError(GetError(BuildZip({{.name = "q.npy", .data = npy}}), "q"), StatusCode::kInvalidInput,
              "x.npz[q.npy]: data is truncated");
}

}  // namespace
}  // namespace av
