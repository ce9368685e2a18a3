// libFuzzer target for ParseUnifiedDiff: any bytes either parse or give an error naming
// the source (never a crash, never a read outside the input); a parsed diff's line
// numbers are consistent, every path passes ValidateDiffPath, and writing every file
// back reproduces the input byte for byte. The built-in rules must also accept anything
// the parser accepts. Seeds: testdata/review/*.diff (copy them into fuzz/corpus/diff/).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "review/diff.h"
#include "review/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  av::Result<av::Diff> diff = av::ParseUnifiedDiff(text, "fuzz.diff");
  if (!diff.ok()) {
    if (diff.status().message().rfind("fuzz.diff", 0) != 0) __builtin_trap();
    return 0;
  }
  if (av::WriteUnifiedDiff(*diff) != text) __builtin_trap();
  for (const av::FileDiff& f : diff->files) {
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
  }
  return 0;
}
