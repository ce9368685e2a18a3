// Whether a command may write a file: redirections, tee's operands, the paths a tool's or
// a wrapper's options write. A file must lie inside the package folder, named before the
// command runs, and (with check_symlinks) not reached through a symbolic link below the
// package folder. Internal to policy/ (command_evaluator.cc). It lstats the target's parts;
// any thread.
#pragma once

#include <string>

#include "policy/command_policy.h"
#include "shell/shell_parse.h"

namespace av::policy_detail {

// Empty when writing `target` is fine; otherwise why it is asked about. `after_cd`: an
// earlier subcommand changed the folder, so a relative path's folder is not known.
// `package_itself` also accepts the package folder (attnverify's --package, --work,
// --export name folders it writes in).
std::string CheckWrite(const PermissionSettings& settings, bool after_cd, const ShellWord& target,
                       bool package_itself = false);

}  // namespace av::policy_detail
