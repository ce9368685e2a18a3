// libFuzzer target for ParseUnifiedDiff: any bytes either parse or give an error naming
// the source (never a crash, never a read outside the input); a parsed diff's line
// numbers are consistent, every path passes ValidateDiffPath, and writing every file
// back reproduces the input byte for byte. The built-in rules must also accept anything
// the parser accepts, and never report a span longer than 40 lines, both on the diff alone
// and with whole base and head files (made from the hunks' lines at their line numbers, so
// that the rules that read whole files run too). The same bytes, read as a whole C++ or
// Python file, must outline without a crash into consistent ranges.
// Seeds: testdata/review/*.diff and fuzz/corpus/diff/ (a format-patch series among them).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "review/code_text.h"
#include "review/rules.h"
#include "review/source_outline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (av::SourceLanguage language : {av::SourceLanguage::kCpp, av::SourceLanguage::kPython}) {
    const av::SourceOutline outline = av::BuildSourceOutline(text, language);
    const int64_t lines = static_cast<int64_t>(outline.lines.size());
    for (const av::OutlineFunction& f : outline.functions) {
      if (f.header_line < 1 || f.header_line > f.open_line || f.open_line > f.close_line ||
          f.close_line > lines) {
        __builtin_trap();
      }
    }
    if (outline.function_of_line.size() != outline.lines.size()) __builtin_trap();
  }
  av::Result<av::Diff> diff = av::ParseUnifiedDiff(text, "fuzz.diff");
  if (!diff.ok()) {
    if (diff.status().message().rfind("fuzz.diff", 0) != 0) __builtin_trap();
    return 0;
  }
  if (av::WriteUnifiedDiff(*diff) != text) __builtin_trap();
  for (const av::FileDiff& f : diff->files) {
    if (!f.trailer.empty() && f.trailer.rfind("-- ", 0) != 0) __builtin_trap();
    if (!f.old_path.empty() && !av::ValidateDiffPath(f.old_path).ok()) __builtin_trap();
    if (!f.new_path.empty() && !av::ValidateDiffPath(f.new_path).ok()) __builtin_trap();
    if (f.old_path.empty() && f.new_path.empty()) __builtin_trap();
    for (const av::Hunk& h : f.hunks) {
      int64_t olds = 0, news = 0;
      for (const av::DiffLine& l : h.lines) {
        olds += l.kind != av::DiffLineKind::kAdd;
        news += l.kind != av::DiffLineKind::kDelete;
        if (l.anchor < 1) __builtin_trap();
      }
      if (olds != h.old_count || news != h.new_count) __builtin_trap();
    }
  }
  auto check = [](const std::vector<av::Finding>& findings) {
    for (const av::Finding& f : findings) {
      if (f.line < 1 || f.end_line < f.line || f.checklist_item < 1 || f.checklist_item > 8)
        __builtin_trap();
      if (f.end_line - f.line >= 40 || (f.side != "head" && f.side != "base")) __builtin_trap();
    }
  };
  int64_t reviewed = 0, skipped = 0;
  check(av::ReviewDiff(*diff, "fuzz", av::ReviewOptions(), &reviewed, &skipped));
  // Whole files that agree with the diff: each side's lines at their numbers, blank between
  // (at most 20000 lines a side, so a hunk header's large numbers stay cheap).
  std::map<std::string, std::pair<std::unique_ptr<av::SourceOutline>,
                                  std::unique_ptr<av::SourceOutline>>> outlines;
  for (const av::FileDiff& f : diff->files) {
    std::vector<std::string> sides[2];
    bool too_long = false;
    for (const av::Hunk& h : f.hunks) {
      for (const av::DiffLine& l : h.lines) {
        const int64_t at[2] = {l.kind != av::DiffLineKind::kAdd ? l.old_line : 0,
                               l.kind != av::DiffLineKind::kDelete ? l.new_line : 0};
        for (int s = 0; s < 2; ++s) {
          if (at[s] < 1) continue;
          if (at[s] > 20000) {
            too_long = true;
            continue;
          }
          if (static_cast<int64_t>(sides[s].size()) < at[s]) sides[s].resize(at[s]);
          sides[s][at[s] - 1] = l.text;
        }
      }
    }
    if (too_long) continue;
    std::string text[2];
    for (int s = 0; s < 2; ++s) {
      for (const std::string& line : sides[s]) text[s] += line + "\n";
    }
    const av::SourceLanguage language = av::LanguageOfPath(f.path());
    outlines[f.path()] = {std::make_unique<av::SourceOutline>(av::BuildSourceOutline(text[0], language)),
                    std::make_unique<av::SourceOutline>(av::BuildSourceOutline(text[1], language))};
  }
  av::SourceLookup lookup = [&](const av::FileDiff& f, av::SourceLanguage) {
    auto it = outlines.find(f.path());
    if (it == outlines.end()) return av::FileSources{};
    return av::FileSources{it->second.first.get(), it->second.second.get()};
  };
  av::Diff tests = *diff;  // the same files read as tests too (tests.coverage_reduced)
  std::vector<av::ComponentDiff> parts = {{"fuzz", &*diff, std::nullopt}};
  check(av::ReviewDiffs(parts, av::ReviewOptions(), &lookup, nullptr, nullptr));
  parts = {{"tests", &tests, av::ComponentKind::kTests}};
  check(av::ReviewDiffs(parts, av::ReviewOptions(), &lookup, nullptr, nullptr));
  return 0;
}
