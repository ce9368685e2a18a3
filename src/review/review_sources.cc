#include "review/review_sources.h"

#include <filesystem>

#include "core/file.h"
#include "core/git.h"

namespace av {

namespace fs = std::filesystem;

ReviewSources::ReviewSources(ProcessRunner& runner, RevisionPair revisions)
    : runner_(runner), revisions_(std::move(revisions)) {}

std::optional<std::string> ReviewSources::ReadWorktree(const std::string& path) {
  // The work tree is the code under review: no symlink is followed (one could point at any
  // file of the machine), and nothing outside the work tree is read.
  std::error_code ec;
  const fs::path root = fs::canonical(revisions_.repo_dir, ec);
  if (ec) return std::nullopt;
  fs::path p = root;
  for (const fs::path& part : fs::path(path)) {
    p /= part;
    if (fs::is_symlink(fs::symlink_status(p, ec)) || ec) return std::nullopt;
  }
  const fs::file_status st = fs::status(p, ec);
  if (ec || !fs::is_regular_file(st)) return std::nullopt;
  if (fs::file_size(p, ec) > kMaxFileBytes || ec) return std::nullopt;
  Result<std::string> text = ReadFileToString(p.string());
  if (!text.ok()) return std::nullopt;
  return std::move(text).value();
}

const std::string* ReviewSources::Read(bool head, const std::string& path) {
  auto& cache = head ? head_ : base_;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second ? &*it->second : nullptr;
  std::optional<std::string> text;
  if (!path.empty() && reads_ < kMaxFiles && bytes_ < kMaxTotalBytes) {
    ++reads_;
    if (head && revisions_.head == "worktree") {
      text = ReadWorktree(path);
    } else {
      const std::string rev = !head                        ? revisions_.base_commit
                              : revisions_.head == "index" ? std::string()
                                                           : revisions_.head;
      Result<std::string> blob =
          ReadGitBlob(runner_, revisions_.repo_dir, rev, path, kMaxFileBytes);
      if (blob.ok()) text = std::move(blob).value();
    }
    if (text) bytes_ += text->size();
  }
  auto [pos, inserted] = cache.emplace(path, std::move(text));
  return pos->second ? &*pos->second : nullptr;
}

const std::string* ReviewSources::Base(const std::string& path) { return Read(false, path); }
const std::string* ReviewSources::Head(const std::string& path) { return Read(true, path); }

const SourceOutline* ReviewSources::BaseOutline(const std::string& path, SourceLanguage language) {
  auto it = base_outlines_.find(path);
  if (it != base_outlines_.end()) return it->second.get();
  const std::string* text = Base(path);
  auto& slot = base_outlines_[path];
  if (text != nullptr) slot = std::make_unique<SourceOutline>(BuildSourceOutline(*text, language));
  return slot.get();
}

const SourceOutline* ReviewSources::HeadOutline(const std::string& path, SourceLanguage language) {
  auto it = head_outlines_.find(path);
  if (it != head_outlines_.end()) return it->second.get();
  const std::string* text = Head(path);
  auto& slot = head_outlines_[path];
  if (text != nullptr) slot = std::make_unique<SourceOutline>(BuildSourceOutline(*text, language));
  return slot.get();
}

SourceLookup ReviewSources::Lookup() {
  return [this](const FileDiff& file, SourceLanguage language) {
    FileSources s;
    if (!file.old_path.empty()) s.base = BaseOutline(file.old_path, language);
    if (!file.new_path.empty()) s.head = HeadOutline(file.new_path, language);
    return s;
  };
}

}  // namespace av
