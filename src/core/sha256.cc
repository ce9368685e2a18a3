#include "core/sha256.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/file.h"

namespace av {
namespace {

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

MdCtx NewSha256() {
  MdCtx ctx(EVP_MD_CTX_new());
  CHECK(ctx != nullptr) << "EVP_MD_CTX_new failed";
  CHECK(EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1) << "EVP_DigestInit_ex failed";
  return ctx;
}

std::string Finish(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  CHECK(EVP_DigestFinal_ex(ctx, digest, &len) == 1) << "EVP_DigestFinal_ex failed";
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  MdCtx ctx = NewSha256();
  CHECK(EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) == 1);
  return Finish(ctx.get());
}

Result<std::string> Sha256File(const std::string& path) {
  // Never blocks on a FIFO nor reads a device forever: only a regular file is hashed.
  AV_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, Links::kFollow));
  MdCtx ctx = NewSha256();
  constexpr size_t kBlock = size_t{1} << 20;  // one per thread, reused (core/xxh3.cc says why)
  thread_local const std::unique_ptr<char[]> buf(new char[kBlock]);
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.get(), kBlock);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(path + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    CHECK(EVP_DigestUpdate(ctx.get(), buf.get(), static_cast<size_t>(n)) == 1);
  }
  return Finish(ctx.get());
}

struct Sha256Stream::State {
  MdCtx ctx = NewSha256();
};

Sha256Stream::Sha256Stream() : state_(std::make_unique<State>()) {}
Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::Update(const void* data, size_t n) {
  CHECK(EVP_DigestUpdate(state_->ctx.get(), data, n) == 1);
}

std::string Sha256Stream::HexDigest() { return Finish(state_->ctx.get()); }

}  // namespace av
