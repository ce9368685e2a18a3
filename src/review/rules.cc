#include "review/rules.h"

#include <cstdio>
#include <unordered_map>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace {

// Marks blocks whose exact change is also made outside mask-named functions (twins).
void MarkPlainTwins(std::vector<ReviewedFile>* files) {
  auto signature = [](const ChangeBlock& b) {
    std::string s;
    for (const CodeLine& l : b.removed) s += l.norm + "\n";
    s += "\x02";
    for (const CodeLine& l : b.added) s += l.norm + "\n";
    return s;
  };
  std::unordered_map<std::string, bool> plain;  // signature -> seen outside a mask function
  for (const ReviewedFile& f : *files) {
    for (const ChangeBlock& b : f.blocks) {
      bool outside = true;
      for (const auto* side : {&b.removed, &b.added}) {
        for (const CodeLine& l : *side) outside = outside && !IsMaskFunction(l.function);
      }
      bool& p = plain[signature(b)];
      p = p || outside;
    }
  }
  for (ReviewedFile& f : *files) {
    for (ChangeBlock& b : f.blocks) b.has_plain_twin = plain[signature(b)];
  }
}

// A test file of code (not docs, not data): a test path, or any code file of a component
// of kind tests.
bool IsTestCodePath(const std::string& path, const FileKind& kind) {
  if (kind.kind == ComponentKind::kTests) return true;
  std::string p = "/" + ToLower(path);
  for (std::string_view dir : {"/docs/", "/doc/", "/testdata/"}) {
    if (p.find(dir) != std::string::npos) return false;
  }
  return IsTestOrDocPath(path);
}

}  // namespace

std::vector<Finding> ReviewDiffs(const std::vector<ComponentDiff>& diffs,
                                 const ReviewOptions& options, const SourceLookup* sources,
                                 int64_t* files_reviewed, int64_t* files_skipped) {
  // Renames, moved code and counted uses are judged across all the diffs' code files: a
  // function renamed in its header and at its call sites in a .cu is one rename.
  std::vector<ReviewCodeFile> code_files, test_files;
  for (const ComponentDiff& d : diffs) {
    for (const FileDiff& file : d.diff->files) {
      const SourceLanguage language = LanguageOfPath(file.path());
      const FileKind kind = KindOfFile(d.kind, d.component, file.path());
      const bool skipped = file.binary || language == SourceLanguage::kOther ||
                           IsTestOrDocPath(file.path()) || kind.kind == ComponentKind::kTests ||
                           file.hunks.empty();
      // Test code is read for what it no longer checks, apart from the code rules.
      const bool test_code = skipped && !file.binary && language != SourceLanguage::kOther &&
                             !file.hunks.empty() && IsTestCodePath(file.path(), kind);
      if (skipped && files_skipped) ++*files_skipped;
      if (skipped && !test_code) continue;
      if (!skipped && files_reviewed) ++*files_reviewed;
      ReviewCodeFile f;
      f.file = &file;
      f.language = language;
      f.component = d.component;
      f.kind = kind;
      if (sources != nullptr && *sources) {
        FileSources s = (*sources)(file, language);
        // A whole file that disagrees with the diff (another revision, an edited copy) would
        // misplace every line: use only what matches.
        if (s.base != nullptr && OutlineMatchesDiff(*s.base, file, /*head_side=*/false)) {
          f.base = s.base;
        }
        if (s.head != nullptr && OutlineMatchesDiff(*s.head, file, /*head_side=*/true)) {
          f.head = s.head;
        }
      }
      (test_code ? test_files : code_files).push_back(f);
    }
  }
  std::vector<std::vector<ChangeBlock>> blocks = BuildDiffChangeBlocks(code_files);
  std::vector<ReviewedFile> files;
  files.reserve(code_files.size());
  for (size_t i = 0; i < code_files.size(); ++i) {
    files.push_back({code_files[i], std::move(blocks[i])});
  }
  MarkPlainTwins(&files);
  const DiffCounts counts = CountDiff(files);
  std::vector<Finding> all;
  for (size_t i = 0; i < files.size(); ++i) {
    std::vector<Finding> found;
    FileReview review(files, i, counts, options, &found);
    review.Run();
    MergeNearbyFindings(&found);
    review.SiblingSites(&found);
    review.ReturnsBeforeBarriers(&found);
    for (Finding& f : found) all.push_back(std::move(f));
  }
  MergeSameEditsAcrossFiles(&all);
  std::vector<std::vector<ChangeBlock>> test_blocks = BuildDiffChangeBlocks(test_files);
  std::vector<ReviewedFile> tests;
  for (size_t i = 0; i < test_files.size(); ++i) {
    tests.push_back({test_files[i], std::move(test_blocks[i])});
  }
  const DiffCounts no_counts{};
  for (size_t i = 0; i < tests.size(); ++i) {
    std::vector<Finding> found;
    FileReview(tests, i, no_counts, options, &found).RunTests();
    MergeNearbyFindings(&found);
    for (Finding& f : found) all.push_back(std::move(f));
  }
  return all;
}

std::vector<Finding> ReviewDiff(const Diff& diff, const std::string& component,
                                const ReviewOptions& options, int64_t* files_reviewed,
                                int64_t* files_skipped) {
  return ReviewDiffs({ComponentDiff{component, &diff, std::nullopt}}, options, nullptr,
                     files_reviewed, files_skipped);
}

void NumberFindings(std::vector<Finding>* findings) {
  for (size_t i = 0; i < findings->size(); ++i) {
    char id[32];  // "F" and up to 20 digits
    std::snprintf(id, sizeof(id), "F%03zu", i + 1);
    (*findings)[i].id = id;
  }
}

}  // namespace av
