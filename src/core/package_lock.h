// One attnverify at a time per package: every command that writes into a package holds
// an flock(2) on <package>/.attnverify.lock while it runs. A second command on the same
// package fails at once: "another attnverify (pid N: attnverify numerics ...) is using
// this package". The stages that `attnverify run` starts would wait for their own
// parent: the holder exports ATTNVERIFY_PACKAGE_LOCK=<its pid>, and a process that has
// that pid among its ancestors, while the lock file names it, uses the lock as held.
// Format: doc/formats/candidate-protocol.md "The package lock". Linux (flock, /proc).
#pragma once

#include <string>

#include "core/file.h"
#include "core/status.h"

namespace av {

inline constexpr const char* kPackageLockFile = ".attnverify.lock";
inline constexpr const char* kPackageLockEnv = "ATTNVERIFY_PACKAGE_LOCK";

class PackageLock {
 public:
  // Takes the lock of `package_dir` for `command` (recorded in the file for the message
  // a second attnverify prints). A folder that does not exist yet has nothing to protect:
  // an inert lock. A symbolic link or non-regular file at the lock's path is refused.
  // The lock ends when the object dies (or the process does: flock needs no cleanup).
  static Result<PackageLock> Acquire(const std::string& package_dir, const std::string& command);

  PackageLock(PackageLock&&) = default;
  PackageLock& operator=(PackageLock&&) = default;

  // Held by an ancestor (a stage under `attnverify run`): this object holds nothing.
  bool inherited() const { return inherited_; }
  bool held() const { return fd_.get() >= 0; }
  const std::string& path() const { return path_; }

 private:
  PackageLock() = default;
  UniqueFd fd_;
  std::string path_;
  bool inherited_ = false;
};

}  // namespace av
