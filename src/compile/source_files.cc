#include "compile/source_files.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>

#include "core/file.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// 4096 files: flash-attention's csrc with CUTLASS and CuTe is about 1,900 headers; a walk
// that reaches the cap says so rather than reading on without end.
constexpr int kMaxFiles = 4096;
constexpr size_t kMaxTotalBytes = size_t{256} << 20;
constexpr size_t kMaxFileBytes = size_t{64} << 20;

// The -I / -isystem / --include-path folders of nvcc flags, in order.
std::vector<std::string> IncludeDirs(const std::vector<std::string>& flags) {
  std::vector<std::string> dirs;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    for (std::string_view opt : {"--include-path=", "-isystem", "-I"}) {
      if (f.rfind(opt, 0) != 0) continue;
      if (f.size() > opt.size()) {
        dirs.push_back(f.substr(opt.size()));
      } else if (opt.back() != '=' && i + 1 < flags.size()) {
        dirs.push_back(flags[++i]);
      }
      break;
    }
    if (f == "--include-path" && i + 1 < flags.size()) dirs.push_back(flags[++i]);
  }
  return dirs;
}

struct Include {
  std::string name;
  bool quoted;
};

// The #include lines of a file, in order.
std::vector<Include> Includes(std::string_view text) {
  std::vector<Include> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string_view::npos || (line[i] != '"' && line[i] != '<')) continue;
    char close = line[i] == '"' ? '"' : '>';
    size_t end = line.find(close, i + 1);
    if (end == std::string_view::npos || end == i + 1) continue;
    out.push_back({std::string(line.substr(i + 1, end - i - 1)), close == '"'});
  }
  return out;
}

bool Inside(const fs::path& p, const fs::path& root) {
  auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end();
}

}  // namespace

SourceWalk WalkSourcesAndIncludes(
    const std::string& root, const std::vector<std::string>& sources,
    const std::vector<std::string>& flags,
    const std::function<void(const std::string& shown, std::string_view text, bool is_source)>&
        visit) {
  SourceWalk walk;
  std::error_code ec;
  fs::path canon_root = fs::weakly_canonical(root, ec);
  if (!canon_root.has_filename()) canon_root = canon_root.parent_path();  // "/a/b/"
  std::vector<fs::path> dirs;
  for (const std::string& d : IncludeDirs(flags)) {
    dirs.push_back(fs::path(d).is_absolute() ? fs::path(d) : fs::path(root) / d);
  }
  struct Pending {
    fs::path path;  // canonical
    std::string shown;
    bool is_source;
  };
  std::deque<Pending> queue;
  std::set<fs::path> seen;
  auto enqueue = [&](const fs::path& p, std::string shown, bool is_source) {
    std::error_code e;
    fs::path c = fs::weakly_canonical(p, e);
    if (e || !Inside(c, canon_root) || !fs::is_regular_file(c, e)) return false;
    if (seen.insert(c).second) queue.push_back({c, std::move(shown), is_source});
    return true;
  };
  for (const std::string& s : sources) {
    fs::path p = fs::path(s).is_absolute() ? fs::path(s) : fs::path(root) / s;
    std::error_code e;
    fs::path c = fs::weakly_canonical(p, e);
    // A configured source is read even outside the root: the user named it.
    if (!e && fs::is_regular_file(c, e) && seen.insert(c).second) queue.push_back({c, s, true});
  }
  size_t total = 0;
  while (!queue.empty()) {
    if (walk.files >= kMaxFiles || total >= kMaxTotalBytes) {
      walk.warnings.push_back("the scan for kernel launches stopped after " +
                              std::to_string(walk.files) + " files (" +
                              std::to_string(total >> 20) + " MiB); " +
                              std::to_string(queue.size()) + " included files were not read");
      break;
    }
    Pending f = std::move(queue.front());
    queue.pop_front();
    auto buf = ReadFileToBuffer(f.path.string(), Links::kFollow, kMaxFileBytes);
    if (!buf.ok()) continue;
    std::string_view text(reinterpret_cast<const char*>((*buf)->data()), (*buf)->size());
    ++walk.files;
    total += text.size();
    visit(f.shown, text, f.is_source);
    for (const Include& inc : Includes(text)) {
      if (fs::path(inc.name).is_absolute()) continue;  // only headers inside the root are read
      std::vector<fs::path> tries;
      if (inc.quoted) tries.push_back(f.path.parent_path() / inc.name);
      for (const fs::path& d : dirs) tries.push_back(d / inc.name);
      for (const fs::path& t : tries) {
        std::error_code e;
        fs::path c = fs::weakly_canonical(t, e);
        if (e || !fs::is_regular_file(c, e)) continue;
        enqueue(c, c.lexically_relative(canon_root).string(), false);
        break;  // the first that exists is the one the compiler takes
      }
    }
  }
  return walk;
}

}  // namespace av
