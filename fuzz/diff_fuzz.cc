// libFuzzer target for ParseUnifiedDiff: any bytes either parse or give an error naming
// the source (never a crash, never a read outside the input); a parsed diff's line
// numbers are consistent, every path passes ValidateDiffPath, and writing every file
// back reproduces the input byte for byte. The built-in rules must also accept anything
// the parser accepts, and never report a span longer than 40 lines. The same bytes, read
// as a whole C++ or Python file, must outline without a crash into consistent ranges.
// Seeds: testdata/review/*.diff and fuzz/corpus/diff/ (a format-patch series among them).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "diff/diff.h"
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
  int64_t reviewed = 0, skipped = 0;
  for (const av::Finding& f :
       av::ReviewDiff(*diff, "fuzz", av::ReviewOptions(), &reviewed, &skipped)) {
    if (f.line < 1 || f.end_line < f.line || f.checklist_item < 1 || f.checklist_item > 8)
      __builtin_trap();
    if (f.end_line - f.line >= 40 || (f.side != "head" && f.side != "base")) __builtin_trap();
  }
  return 0;
}
