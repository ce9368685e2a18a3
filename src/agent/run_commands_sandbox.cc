#include "agent/run_commands_sandbox.h"

#include <cctype>
#include <cstring>
#include <filesystem>

#include "core/sandbox.h"

namespace av {

namespace fs = std::filesystem;

std::vector<std::string> CommandSandboxArgv(const std::string& bwrap,
                                            const CommandSandboxSpec& spec,
                                            const std::vector<std::string>& argv) {
  std::vector<std::string> a = {bwrap,
                                // attnverify's death kills the sandbox (PR_SET_PDEATHSIG)
                                "--die-with-parent",
                                // no network, own pids (its pid 1 takes the tree down), own
                                // ipc, uts and user namespaces
                                "--unshare-all",
                                // a new session: no ioctl on attnverify's terminal
                                "--new-session",
                                // the machine read-only: toolchain, python, $HOME
                                "--ro-bind", "/", "/",
                                // a fresh /dev (null, zero, urandom, shm, pts) and /proc
                                "--dev", "/dev", "--proc", "/proc",
                                // the one place to write, gone when it ends
                                "--tmpfs", "/tmp"};
  for (const std::string& node : GpuDeviceNodes()) a.insert(a.end(), {"--dev-bind", node, node});
  // Again after the tmpfs: a repository or package under /tmp would be hidden by it.
  a.insert(a.end(), {"--ro-bind", spec.repo_dir, spec.repo_dir});
  if (spec.package_copy.empty()) {
    a.insert(a.end(), {"--ro-bind", spec.package_dir, spec.package_dir});
  } else {
    a.insert(a.end(), {"--bind", spec.package_copy, spec.package_dir});
  }
  if (!spec.bin_dir.empty()) {
    a.insert(a.end(), {"--ro-bind", spec.bin_dir, spec.bin_dir});
    // The attnverify its link names, when the tmpfs would hide it (a build under /tmp).
    std::error_code ec;
    const fs::path self = fs::read_symlink(fs::path(spec.bin_dir) / "attnverify", ec);
    const std::string self_dir = self.parent_path().string();
    if (!ec && self.is_absolute() && self_dir.rfind("/tmp/", 0) == 0 &&
        fs::is_directory(self_dir, ec)) {
      a.insert(a.end(), {"--ro-bind", self_dir, self_dir});
    }
  }
  for (const std::string& f : spec.hidden_files) a.insert(a.end(), {"--ro-bind", "/dev/null", f});
  a.insert(a.end(), {"--chdir", spec.repo_dir, "--"});
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

bool CommandNamesAttnverify(const std::string& command) {
  // "attnverify" as a word or a path's last part, in any position and at any nesting (an
  // argument of env, timeout, xargs, a `bash -c` script): what precedes and follows it is
  // the text's edge, a blank, a quote, an operator or (before) a '/'. Not a part of a
  // longer name: attnverify.toml, attnverify-test-x/.
  const std::string_view name = "attnverify";
  auto edge = [](char c, bool before) {
    return std::isspace(static_cast<unsigned char>(c)) || std::strchr(";&|()<>`'\"", c) ||
           (before && (c == '/' || c == '='));
  };
  for (size_t at = command.find(name); at != std::string::npos; at = command.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || edge(command[at - 1], true)) &&
        (end == command.size() || edge(command[end], false))) {
      return true;
    }
  }
  return false;
}

Status CopyPackageForCommand(const std::string& package_dir, const std::string& dest,
                             const std::set<std::string>& skip, uint64_t max_bytes) {
  std::error_code ec;
  fs::create_directories(dest, ec);
  if (ec) return IoError(dest + ": cannot create: " + ec.message());
  uint64_t total = 0;
  fs::recursive_directory_iterator it(package_dir, fs::directory_options::none, ec);
  if (ec) return IoError(package_dir + ": cannot read: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return IoError(package_dir + ": cannot read: " + ec.message());
    const fs::path rel = it->path().lexically_relative(package_dir);
    if (it.depth() == 0 && skip.count(rel.string()) > 0) {
      it.disable_recursion_pending();
      continue;
    }
    const fs::path to = fs::path(dest) / rel;
    const fs::file_status st = it->symlink_status(ec);
    if (fs::is_symlink(st)) {
      fs::copy_symlink(it->path(), to, ec);
    } else if (fs::is_directory(st)) {
      fs::create_directory(to, ec);
    } else if (fs::is_regular_file(st)) {
      total += it->file_size(ec);
      if (total > max_bytes) {
        return InvalidInput(package_dir + ": over " + std::to_string(max_bytes >> 20) +
                            " MiB without its work folder: no scratch copy for an attnverify "
                            "command");
      }
      fs::copy_file(it->path(), to, ec);
    }
    if (ec) return IoError(to.string() + ": cannot copy: " + ec.message());
  }
  return Status::Ok();
}

}  // namespace av
