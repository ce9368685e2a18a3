// The write check of write_check.h.
#include "policy/write_check.h"

#include <sys/stat.h>

#include "policy/command_words.h"

namespace av::policy_detail {

std::string CheckWrite(const PermissionSettings& settings, bool after_cd, const ShellWord& target,
                       bool package_itself) {
  if (!target.Literal()) return "writes to a file named only when it runs (" + target.source + ")";
  const std::string& v = target.value;
  if (v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr") return "";
  if (v.compare(0, 8, "/dev/fd/") == 0 && v.size() > 8 &&
      v.find_first_not_of("0123456789", 8) == std::string::npos) {
    return "";
  }
  if (settings.package_dir.empty()) return "writes " + v + " (no package folder is set)";
  std::string path = v;
  if (v.empty() || v[0] != '/') {
    if (after_cd) return "writes " + v + " after cd, in a folder not known before it runs";
    if (settings.cwd.empty()) return "writes " + v + " (the working folder is not known)";
    path = settings.cwd + "/" + v;
  }
  std::string norm = LexicalNormal(path);
  std::string pkg = LexicalNormal(settings.package_dir);
  if (norm.compare(0, pkg.size() + 1, pkg + "/") != 0 && !(package_itself && norm == pkg)) {
    return "writes " + v + ", outside the package folder " + pkg;
  }
  if (settings.check_symlinks) {
    for (size_t slash = pkg.size() + 1; slash != std::string::npos;
         slash = norm.find('/', slash + 1)) {
      std::string part = norm.substr(0, norm.find('/', slash + 1));
      struct stat st;
      if (::lstat(part.c_str(), &st) != 0) break;
      if (S_ISLNK(st.st_mode)) return "writes " + v + " through the symbolic link " + part;
      if (part == norm) break;
    }
  }
  return "";
}

}  // namespace av::policy_detail
