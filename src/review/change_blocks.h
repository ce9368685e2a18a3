// Change blocks: a file diff seen as runs of removed and added *code* lines, the unit the
// built-in rules reason about. Comments are stripped, lines that only moved or changed
// whitespace cancel out, and a block whose only change is a consistent rename of
// identifiers is dropped. Each line knows its enclosing function (from the hunk or git's
// section header). Pure data built by one call.
#pragma once

#include <string>
#include <vector>

#include "review/code_text.h"
#include "review/diff.h"

namespace av {

struct CodeLine {
  const DiffLine* line = nullptr;
  bool added = false;          // else removed
  std::string code;            // comments stripped, trimmed
  std::vector<Token> tokens;
  std::string norm;            // tokens joined by spaces
  std::string function;        // enclosing function's name, lowercase ("" when unknown)
  bool in_kernel_signature = false;  // between a __global__ and its '{'
  bool claimed = false;        // a rule has reported it
};

struct ChangeBlock {
  std::vector<CodeLine> removed, added;
  bool empty() const { return removed.empty() && added.empty(); }
};

// Words of an identifier, lowercase: "kNumSplits" -> {"k","num","splits"},
// "cu_seqlens_k" -> {"cu","seqlens","k"}.
std::vector<std::string> IdentifierWords(std::string_view identifier);

std::vector<ChangeBlock> BuildChangeBlocks(const FileDiff& file, SourceLanguage language);

}  // namespace av
