// The package lock as the commands take it (core/package_lock.h): the package of a
// --config is the folder holding that attnverify.toml. Only cli/ calls this.
#pragma once

#include <string>
#include <vector>

#include "core/package_lock.h"

namespace av::cli {

// Locks the folder `package_dir` for the command `args` (args[0] is the command's name).
Result<PackageLock> LockPackage(const std::string& package_dir,
                                const std::vector<std::string>& args);

// Locks the package whose attnverify.toml is `config_path`.
Result<PackageLock> LockPackageOfConfig(const std::string& config_path,
                                        const std::vector<std::string>& args);

}  // namespace av::cli
