#include "cli/package_lock_cli.h"

#include <filesystem>

#include "cli/parse.h"
#include "core/shell_quote.h"

namespace av::cli {

Result<PackageLock> LockPackage(const std::string& package_dir,
                                const std::vector<std::string>& args) {
  // Shown to whoever finds the package locked: the command that holds it, quoted.
  const std::string command = ShellJoin(RecordedArgv(args));
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
