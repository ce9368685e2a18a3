#include "cli/package_lock_cli.h"

#include <filesystem>

namespace av::cli {

Result<PackageLock> LockPackage(const std::string& package_dir,
                                const std::vector<std::string>& args) {
  std::string command = "attnverify";
  for (const std::string& a : args) command += " " + a;
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(package_dir, ec);
  return PackageLock::Acquire((ec ? std::filesystem::path(package_dir) : dir).lexically_normal(),
                              command);
}

Result<PackageLock> LockPackageOfConfig(const std::string& config_path,
                                        const std::vector<std::string>& args) {
  std::error_code ec;
  std::filesystem::path config = std::filesystem::absolute(config_path, ec);
  if (ec) config = config_path;
  return LockPackage(config.parent_path().string(), args);
}

}  // namespace av::cli
