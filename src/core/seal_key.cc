#include "core/seal_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace av {
namespace {

namespace fs = std::filesystem;

constexpr size_t kKeyBytes = 32;
constexpr size_t kMaxKeyBytes = 4096;

std::string Hex(const unsigned char* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 15];
  }
  return out;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

SealKey MakeKey(const std::string& path, std::string bytes) {
  SealKey k;
  k.path = path;
  k.bytes = std::move(bytes);
  k.id = HmacSha256Hex(k.bytes, "attnverify run-seal key id").substr(0, 16);
  return k;
}

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len);
  return Hex(mac, len);
}

bool DigestsEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string SealKeyPath() {
  if (std::string f = Env(kSealKeyEnv); !f.empty()) return f;
  if (std::string state = Env("XDG_STATE_HOME"); !state.empty() && state.front() == '/') {
    return state + "/attnverify/run-seal.key";
  }
  std::string home = Env("HOME");
  if (home.empty()) {
    // A process started without HOME (cron, a test that unset it): the user's home from
    // the password database, so that it seals with the same key as the user's shell.
    struct passwd pw;
    struct passwd* found = nullptr;
    char buf[4096];
    if (::getpwuid_r(::getuid(), &pw, buf, sizeof(buf), &found) == 0 && found != nullptr &&
        found->pw_dir != nullptr) {
      home = found->pw_dir;
    }
  }
  if (!home.empty()) return home + "/.local/state/attnverify/run-seal.key";
  return "";
}

Result<SealKey> ReadSealKey(const std::string& path) {
  if (path.empty()) return NotFound("no key file: neither HOME nor XDG_STATE_HOME is set");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFound(path + ": no key file");
    return InvalidInput(path + ": cannot read the key file: " + std::strerror(err) +
                        (err == ELOOP ? " (it is a symbolic link)" : ""));
  }
  struct stat st;
  std::string bytes;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<size_t>(st.st_size) <= kMaxKeyBytes) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
  } else {
    bytes.clear();
    st.st_size = -1;
  }
  ::close(fd);
  if (bytes.size() < kKeyBytes || bytes.size() > kMaxKeyBytes) {
    return InvalidInput(path + ": not a key file (a regular file of " + std::to_string(kKeyBytes) +
                        " to " + std::to_string(kMaxKeyBytes) + " bytes)");
  }
  return MakeKey(path, std::move(bytes));
}

Result<SealKey> ReadOrCreateSealKey(const std::string& path) {
  Result<SealKey> key = ReadSealKey(path);
  if (key.ok() || key.status().code() != StatusCode::kNotFound || path.empty()) return key;
  std::error_code ec;
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty() && !fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return IoError(dir.string() + ": cannot create the key's folder: " + ec.message());
    ::chmod(dir.c_str(), 0700);
  }
  unsigned char secret[kKeyBytes];
  size_t got = 0;
  while (got < kKeyBytes) {
    ssize_t n = ::getrandom(secret + got, kKeyBytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return ReadSealKey(path);  // another process made it first
    return IoError(path + ": cannot create the key file: " + std::strerror(errno));
  }
  size_t put = 0;
  while (put < kKeyBytes) {
    ssize_t n = ::write(fd, secret + put, kKeyBytes - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    put += static_cast<size_t>(n);
  }
  const bool ok = put == kKeyBytes && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    return IoError(path + ": cannot write the key file");
  }
  return MakeKey(path, std::string(reinterpret_cast<const char*>(secret), kKeyBytes));
}

}  // namespace av
