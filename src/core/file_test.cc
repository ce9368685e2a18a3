// core/file.h with real files: FIFOs, device links and symbolic links are refused at
// once (never waited on or read forever), size caps are checked before reading, reads go
// to owned memory (a file cut afterwards cannot fault), and a write past `ulimit -f`
// is an error naming the file with no temporary left.
#include "core/file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/sha256.h"
#include "core/xxh3.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// Regression (M3): open() of a FIFO for reading blocked until a writer came; every
// reader (MappedFile, Sha256File, Xxh3File) now refuses it at once.
TEST(FileRegression, FifoIsRefusedWithoutBlocking) {
  testing::TempDir dir;
  const std::string fifo = dir.File("f.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (Links links : {Links::kFollow, Links::kRefuse}) {
    auto fd = OpenRegularFile(fifo, links);
    ASSERT_FALSE(fd.ok());
    EXPECT_EQ(fd.status().message(), fifo + ": is a FIFO, not a regular file");
  }
  EXPECT_FALSE(MappedFile::Open(fifo).ok());
  EXPECT_NE(ReadFileToString(fifo).status().message().find("is a FIFO"), std::string::npos);
  EXPECT_NE(Sha256File(fifo).status().message().find("is a FIFO"), std::string::npos);
  EXPECT_NE(Xxh3File(fifo).status().message().find("is a FIFO"), std::string::npos);
}

// Regression (M3): a link to /dev/zero was read forever.
TEST(FileRegression, DeviceLinkIsRefusedFollowedOrNot) {
  testing::TempDir dir;
  const std::string link = dir.File("inputs.safetensors");
  fs::create_symlink("/dev/zero", link);
  auto followed = OpenRegularFile(link, Links::kFollow);
  ASSERT_FALSE(followed.ok());
  EXPECT_EQ(followed.status().message(), link + ": is a character device, not a regular file");
  auto refused = OpenRegularFile(link, Links::kRefuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("is a symbolic link (not followed"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(Xxh3File(link).status().message().find("symbolic link"), std::string::npos);
}

TEST(FileTest, ReadFileToBufferChecksTheCapBeforeReading) {
  testing::TempDir dir;
  const std::string path = dir.File("sparse.npy");
  ASSERT_TRUE(WriteFileAtomically(path, "0123456789").ok());
  ASSERT_EQ(::truncate(path.c_str(), off_t{10} << 30), 0);  // a 10 GB sparse tail
  auto big = ReadFileToBuffer(path, Links::kRefuse, 1 << 20);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            path + ": is 10737418240 bytes, more than the 1048576 it may hold (refused unread)");
  ASSERT_EQ(::truncate(path.c_str(), 10), 0);
  auto small = ReadFileToBuffer(path, Links::kRefuse, 10);
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ((*small)->view(), "0123456789");
}

// Regression (M4): a mapped file truncated under attnverify killed it with SIGBUS. A
// buffer read with pread is attnverify's own: cutting the file afterwards changes nothing.
TEST(FileRegression, ABufferOutlivesTheTruncationOfItsFile) {
  testing::TempDir dir;
  const std::string path = dir.File("d.npy");
  ASSERT_TRUE(WriteFileAtomically(path, std::string(1 << 16, 'x')).ok());
  auto bytes = ReadFileToBuffer(path, Links::kRefuse, 1 << 20);
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  EXPECT_EQ((*bytes)->view(), std::string(1 << 16, 'x'));  // would fault on a mapping
}

// The huge-page advice on a large OwnedBuffer: the bytes are zero and stay what is written,
// and the mapping that holds the buffer's middle carries the advice ("hg" among its
// VmFlags in /proc/self/smaps; whether the kernel then finds huge pages is its affair).
TEST(FileTest, LargeOwnedBuffersAskForHugePages) {
  constexpr size_t kSize = size_t{64} << 20;
  OwnedBuffer buffer(kSize);
  std::byte* p = buffer.mutable_data();
  for (size_t i = 0; i < kSize; i += 4096) ASSERT_EQ(p[i], std::byte{0});
  for (size_t i = 0; i < kSize; i += 4096) p[i] = std::byte{7};
  for (size_t i = 0; i < kSize; i += 4096) ASSERT_EQ(p[i], std::byte{7});
  OwnedBuffer small(100);  // below the advice's threshold: only allocated
  small.mutable_data()[99] = std::byte{1};

  // The middle of the buffer: the advice covers its 2 MiB-aligned part, a mapping of its
  // own once the kernel splits the buffer's.
  const uintptr_t at = reinterpret_cast<uintptr_t>(p) + kSize / 2;
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) GTEST_SKIP() << "no /proc/self/smaps here";
  std::string line, flags;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      flags = line;
      break;
    }
  }
  ASSERT_FALSE(flags.empty()) << "no mapping in /proc/self/smaps holds the buffer";
  EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << flags;
}

TEST(FileTest, DirectoryAndMissingFileMessages) {
  testing::TempDir dir;
  EXPECT_EQ(OpenRegularFile(dir.path(), Links::kRefuse).status().message(),
            dir.path() + ": is a directory, not a file");
  auto missing = OpenRegularFile(dir.File("none"), Links::kRefuse);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// Regression (L8): under `ulimit -f` the first write past the limit killed attnverify
// with SIGXFSZ and left the temporary file. With SIGXFSZ ignored (InitProcessGuards) the
// write fails with EFBIG: an I/O error naming the file, and no temporary is left.
TEST(FileRegression, WritePastTheFileSizeLimitNamesTheFileAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir.File("numerics.json");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    Status st = WriteFileAtomically(path, std::string(100000, 'x'));
    bool named = !st.ok() && st.code() == StatusCode::kIoError &&
                 st.message().find(path + ": write failed: File too large") == 0;
    ::_exit(named ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the error did not name the file as expected";
  for (const auto& e : fs::directory_iterator(dir.path())) ADD_FAILURE() << "left " << e.path();
}

}  // namespace
}  // namespace av
