#include "core/package_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/process_tree.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// The holder's pid and command as the lock file records them ("pid 123\nattnverify
// ...\n"); pid 0 when the file says nothing readable.
struct Holder {
  pid_t pid = 0;
  std::string command;
};

Holder ReadHolder(int fd) {
  char buf[1024];
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  Holder h;
  if (n <= 4) return h;
  std::string text(buf, static_cast<size_t>(n));
  if (text.rfind("pid ", 0) != 0) return h;
  h.pid = static_cast<pid_t>(std::atol(text.c_str() + 4));
  size_t nl = text.find('\n');
  if (nl != std::string::npos) {
    h.command = text.substr(nl + 1);
    while (!h.command.empty() && h.command.back() == '\n') h.command.pop_back();
  }
  return h;
}

bool IsAncestor(pid_t pid) {
  if (pid <= 1) return false;
  pid_t p = ::getppid();
  for (int depth = 0; depth < 64 && p > 1; ++depth) {
    if (p == pid) return true;
    p = process_tree::ParentOf(p);
  }
  return false;
}

}  // namespace

Result<PackageLock> PackageLock::Acquire(const std::string& package_dir,
                                         const std::string& command) {
  PackageLock lock;
  std::error_code ec;
  if (!fs::is_directory(package_dir, ec)) return lock;  // nothing there to protect yet
  lock.path_ = (fs::path(package_dir) / kPackageLockFile).string();
  UniqueFd fd(
      ::open(lock.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ELOOP) {
      return InvalidInput(lock.path_ +
                          ": is a symbolic link; remove it (attnverify keeps its "
                          "package lock there)");
    }
    return IoError(lock.path_ + ": cannot open the package lock: " + std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return InvalidInput(lock.path_ +
                        ": is not a regular file; remove it (attnverify keeps its "
                        "package lock there)");
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      return IoError(lock.path_ + ": cannot lock: " + std::strerror(err));
    }
    Holder holder = ReadHolder(fd.get());
    // A stage of `attnverify run`: its parent holds the lock for it.
    if (const char* env = std::getenv(kPackageLockEnv)) {
      const pid_t parent = static_cast<pid_t>(std::atol(env));
      if (parent == holder.pid && IsAncestor(parent)) {
        lock.inherited_ = true;
        return lock;
      }
    }
    std::string who = holder.pid > 0 ? "pid " + std::to_string(holder.pid) : "pid unknown";
    if (!holder.command.empty()) who += ": " + holder.command;
    return InvalidInput(fs::path(package_dir).string() + ": another attnverify (" + who +
                        ") is using this package; run one command at a time per package "
                        "(the lock is " +
                        lock.path_ + ")");
  }
  const std::string text = "pid " + std::to_string(::getpid()) + "\n" + command + "\n";
  if (::ftruncate(fd.get(), 0) != 0 ||
      ::pwrite(fd.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return IoError(lock.path_ + ": cannot write the package lock: " + std::strerror(errno));
  }
  // The stages and programs this process starts see who holds it (core/process.h keeps
  // the variable in their scrubbed environment).
  ::setenv(kPackageLockEnv, std::to_string(::getpid()).c_str(), 1);
  lock.fd_ = std::move(fd);
  return lock;
}

}  // namespace av
