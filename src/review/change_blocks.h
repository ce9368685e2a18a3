// Change blocks: a file diff seen as runs of removed and added *code* lines, the unit the
// built-in rules reason about. Comments are stripped, lines that only moved or changed
// whitespace cancel out, and so do lines that differ only by a name the diff renames
// consistently (a function, type or variable, across all its files) or by a constant the
// block inlines. Each line knows its enclosing function, kernel signature and enum: from the
// whole base or head file when the reviewer has it (source_outline.h), else from the hunk
// and git's section header. Building is linear in the diff's size. Pure data built by one
// call.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "review/code_text.h"
#include "review/component_kind.h"
#include "review/source_outline.h"

namespace av {

// Rules match a line's first bytes only: a 50 MB line is data, and tokenizing all of it
// costs gigabytes. Its norm still covers every byte, so an edit past the cap is a change.
inline constexpr size_t kMaxRuleLineBytes = 16 << 10;

// The part of a line the rules read: its first kMaxRuleLineBytes.
inline std::string_view RuleText(std::string_view line) {
  return line.size() > kMaxRuleLineBytes ? line.substr(0, kMaxRuleLineBytes) : line;
}

struct CodeLine {
  const DiffLine* line = nullptr;
  bool added = false;  // else removed
  std::string code;    // comments stripped, trimmed (what rules match)
  std::string source;  // the line as written, trimmed, comments inside kept (what findings show)
  std::vector<Token> tokens;
  std::vector<uint64_t> token_hashes;  // sorted, for Similarity
  std::string norm;                    // tokens joined by spaces (canonical forms)
  // Where the line sits, on its own side (base for removed lines, head for added ones).
  std::string function;  // enclosing function's name as written ("" when unknown)
  FunctionKind function_kind = FunctionKind::kUnknown;
  int64_t function_line = 0;         // the function's signature line on that side (0: unknown)
  bool in_kernel_signature = false;  // template header or parameters of a __global__
  bool in_signature = false;         // template header or parameters of any function
  std::string scope_keyword;         // innermost "enum"/"struct"/"class" around it
  std::string scope_name;
  bool claimed = false;  // a rule has reported it

  int64_t side_line() const { return added ? line->new_line : line->old_line; }
};

struct ChangeBlock {
  std::vector<CodeLine> removed, added;
  // The same change (equal lines) is also made in a function whose name says nothing of
  // masks, so it is not mask-specific: the `_contiguous` twin of a `_masked` function.
  bool has_plain_twin = false;
  bool empty() const { return removed.empty() && added.empty(); }
};

// Words of an identifier, lowercase: "kNumSplits" -> {"k","num","splits"},
// "cu_seqlens_k" -> {"cu","seqlens","k"}.
std::vector<std::string> IdentifierWords(std::string_view identifier);

// One code file of a diff, with what the reviewer knows around it.
struct ReviewCodeFile {
  const FileDiff* file = nullptr;
  SourceLanguage language = SourceLanguage::kCpp;
  std::string component;
  FileKind kind;
  // The whole file at the base and head revisions, when read (null otherwise). An outline
  // that disagrees with the diff's lines is dropped before rules see it.
  const SourceOutline* base = nullptr;
  const SourceOutline* head = nullptr;
};

// Names the diff renames consistently, old -> new: declared under the old name on a removed
// line and under the new one on the matching added line; every line pair that changes the
// old name changes it to the new one; the old name is on no added or context line and the
// new name on no removed or context line of any of the files.
std::map<std::string, std::string> ConsistentRenames(const std::vector<ReviewCodeFile>& files);

// The change blocks of each file (result[i] for files[i]); lines that differ only by the
// diff's consistent renames cancel.
std::vector<std::vector<ChangeBlock>> BuildDiffChangeBlocks(
    const std::vector<ReviewCodeFile>& files);

// The change blocks of one file, seen as a diff of its own.
std::vector<ChangeBlock> BuildChangeBlocks(const FileDiff& file, SourceLanguage language);

// True when the outline's lines agree with every line the diff shows on that side.
bool OutlineMatchesDiff(const SourceOutline& outline, const FileDiff& file, bool head_side);

}  // namespace av
