#include "diff/glob.h"

#include <vector>

namespace av {

bool GlobMatch(std::string_view pattern, std::string_view path) {
  // Dynamic programming over (pattern position, path position): O(|pattern| * |path|)
  // time and memory, no exponential backtracking on "**a**b**" patterns.
  // match[i][j]: pattern[i:] matches path[j:]; rows are built from the end ("**/" looks
  // three characters ahead). Patterns are short and paths at most 4096 bytes.
  const size_t n = path.size();
  const size_t m = pattern.size();
  std::vector<std::vector<char>> match(m + 1, std::vector<char>(n + 1, 0));
  match[m][n] = 1;
  for (size_t ii = m; ii-- > 0;) {
    std::vector<char>& row = match[ii];
    const char p = pattern[ii];
    const bool dstar = p == '*' && ii + 1 < m && pattern[ii + 1] == '*';
    for (size_t jj = n + 1; jj-- > 0;) {
      bool ok = false;
      if (dstar) {
        size_t rest = ii + 2;
        // "**/" may match nothing at all (zero folders).
        if (rest < m && pattern[rest] == '/' && match[rest + 1][jj]) ok = true;
        // "**" matches any run, including '/'.
        if (!ok && match[rest][jj]) ok = true;
        if (!ok && jj < n && row[jj + 1]) ok = true;
      } else if (p == '*') {
        if (match[ii + 1][jj]) ok = true;
        if (!ok && jj < n && path[jj] != '/' && row[jj + 1]) ok = true;
      } else if (p == '?') {
        ok = jj < n && path[jj] != '/' && match[ii + 1][jj + 1];
      } else {
        ok = jj < n && path[jj] == p && match[ii + 1][jj + 1];
      }
      row[jj] = ok;
    }
  }
  return match[0][0] != 0;
}

Status ValidateGlob(std::string_view pattern) {
  if (pattern.empty()) return InvalidInput("empty glob");
  if (pattern[0] == '/')
    return InvalidInput("glob \"" + std::string(pattern) +
                        "\" is absolute (globs are repository-relative)");
  size_t pos = 0;
  while (pos <= pattern.size()) {
    size_t slash = pattern.find('/', pos);
    if (slash == std::string_view::npos) slash = pattern.size();
    if (pattern.substr(pos, slash - pos) == "..") {
      return InvalidInput("glob \"" + std::string(pattern) + "\" has a \"..\" component");
    }
    pos = slash + 1;
  }
  return Status::Ok();
}

}  // namespace av
