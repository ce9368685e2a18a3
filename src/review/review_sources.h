// Whole files of the two revisions a slice compares, for the reviewer: the base commit's
// blob and the head's (a commit's blob, the index's, or the work tree's file), read through
// core/git's safe blob read, cached, with caps on size and count so a huge or hostile
// repository costs bounded time and memory. A file that cannot be read is simply absent
// (the rules then see the diff alone). One thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/process.h"
#include "review/code_text.h"
#include "review/rules.h"
#include "review/source_outline.h"

namespace av {

struct RevisionPair {
  std::string repo_dir;     // the work tree's top folder
  std::string base_commit;  // full sha
  std::string head;         // full sha, "index" or "worktree"
};

class ReviewSources {
 public:
  ReviewSources(ProcessRunner& runner, RevisionPair revisions);

  // The file's bytes at base / head; null when absent there or unreadable.
  const std::string* Base(const std::string& path);
  const std::string* Head(const std::string& path);
  // Its outline (built once).
  const SourceOutline* BaseOutline(const std::string& path, SourceLanguage language);
  const SourceOutline* HeadOutline(const std::string& path, SourceLanguage language);
  // For ReviewDiffs: the outlines of a diff's file (old path at base, new path at head).
  SourceLookup Lookup();

  const RevisionPair& revisions() const { return revisions_; }

  static constexpr size_t kMaxFileBytes = size_t{8} << 20;
  static constexpr size_t kMaxTotalBytes = size_t{256} << 20;
  static constexpr int kMaxFiles = 4000;

 private:
  const std::string* Read(bool head, const std::string& path);
  std::optional<std::string> ReadWorktree(const std::string& path);

  ProcessRunner& runner_;
  RevisionPair revisions_;
  std::map<std::string, std::optional<std::string>> base_, head_;
  std::map<std::string, std::unique_ptr<SourceOutline>> base_outlines_, head_outlines_;
  size_t bytes_ = 0;
  int reads_ = 0;
};

}  // namespace av
