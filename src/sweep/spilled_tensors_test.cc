// SpilledTensors: tensors of several dtypes come back value for value whatever the chunk
// size, the file has no name in its folder, and bytes changed on disk behind the object's
// back (through /proc/self/fd, as another process of the same user could) are caught.
#include "sweep/spilled_tensors.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "testing/test_util.h"

namespace av {
namespace {

Tensor Filled(DType dtype, Shape shape, std::mt19937_64& rng) {
  Tensor t = Tensor::Zeros(dtype, shape);
  std::normal_distribution<double> normal;
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t idx[] = {i / shape[1], i % shape[1]};
    t.SetDouble(idx, normal(rng) * 100);
  }
  return t;
}

std::vector<double> ReadAll(const SpilledTensors& s, const std::string& name, int64_t chunk,
                            Status* status) {
  SpilledTensors::Reader r = s.Open(*s.Find(name));
  std::vector<double> out, buf(static_cast<size_t>(chunk));
  for (int64_t n; (n = r.Fill(buf.data(), chunk)) > 0;)
    out.insert(out.end(), buf.begin(), buf.begin() + n);
  *status = r.status();
  return out;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  LoadAsDouble(t.dtype(), t.data(), static_cast<int64_t>(t.element_size()), t.numel(), v.data());
  return v;
}

TEST(SpilledTensorsTest, ValuesComeBackInAnyChunkSize) {
  testing::TempDir dir;
  std::mt19937_64 rng(5);
  const NamedTensors ts = {{"d", Filled(DType::kF32, {37, 41}, rng)},
                           {"o", Filled(DType::kBF16, {3, 1000}, rng)},
                           {"lse", Filled(DType::kF64, {2, 7}, rng)},
                           {"empty", Tensor::Zeros(DType::kF32, {0, 4})}};
  auto s = SpilledTensors::Write(ts, dir.path());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->total_bytes(), 37 * 41 * 4 + 3 * 1000 * 2 + 2 * 7 * 8);
  for (int64_t chunk : {1, 7, 4096, 1 << 20}) {
    for (const auto& [name, t] : ts) {
      Status st;
      EXPECT_EQ(ReadAll(*s, name, chunk, &st), Values(t)) << name << " chunk " << chunk;
      EXPECT_TRUE(st.ok()) << st.message();
      EXPECT_EQ(s->Find(name)->shape, t.shape());
      EXPECT_EQ(s->Find(name)->dtype, t.dtype());
    }
  }
  EXPECT_EQ(s->Find("x"), nullptr);
  // Nothing in the folder: the file has no name.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// The fd of the spill file, found as another process of this user would find it.
int OpenSpillFileForWriting(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(e.path(), ec).string();
    if (!ec && target.rfind(dir, 0) == 0 && target.find("(deleted)") != std::string::npos)
      return ::open(e.path().c_str(), O_WRONLY);
  }
  return -1;
}

TEST(SpilledTensorsTest, BytesChangedOnDiskAreAnInternalError) {
  testing::TempDir dir;
  std::mt19937_64 rng(6);
  auto s = SpilledTensors::Write({{"d", Filled(DType::kF32, {64, 64}, rng)}}, dir.path());
  ASSERT_TRUE(s.ok()) << s.status().message();
  const int fd = OpenSpillFileForWriting(std::filesystem::canonical(dir.path()).string());
  ASSERT_GE(fd, 0) << "no unlinked spill file among this process's descriptors";
  const char byte = 0x7f;
  ASSERT_EQ(::pwrite(fd, &byte, 1, 4 * 100), 1);
  ::close(fd);
  Status st;
  ReadAll(*s, "d", 4096, &st);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("spilled d: the bytes read back differ"), std::string::npos)
      << st.message();
}

TEST(SpilledTensorsTest, AFolderThatCannotHoldItIsAnError) {
  auto s = SpilledTensors::Write({{"d", Tensor::Zeros(DType::kF32, {2, 2})}},
                                 "/nonexistent-attnverify-folder");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kIoError);
  EXPECT_NE(s.status().message().find("/nonexistent-attnverify-folder"), std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace av
