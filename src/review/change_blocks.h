// Change blocks: a file diff seen as runs of removed and added *code* lines, the unit the
// built-in rules reason about. Comments are stripped, lines that only moved or changed
// whitespace cancel out, and so do lines that differ only by a name the diff renames
// consistently (a function, type or variable, across all its files). Each line knows its
// enclosing function (from the hunk or git's section header). Pure data built by one call.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "review/code_text.h"
#include "review/diff.h"

namespace av {

struct CodeLine {
  const DiffLine* line = nullptr;
  bool added = false;  // else removed
  std::string code;    // comments stripped, trimmed (what rules match)
  std::string source;  // the line as written, trimmed, comments inside kept (what findings show)
  std::vector<Token> tokens;
  std::string norm;                  // tokens joined by spaces
  std::string function;              // enclosing function's name as written ("" when unknown)
  bool in_kernel_signature = false;  // between a __global__ and its '{'
  bool claimed = false;              // a rule has reported it
};

struct ChangeBlock {
  std::vector<CodeLine> removed, added;
  bool empty() const { return removed.empty() && added.empty(); }
};

// Words of an identifier, lowercase: "kNumSplits" -> {"k","num","splits"},
// "cu_seqlens_k" -> {"cu","seqlens","k"}.
std::vector<std::string> IdentifierWords(std::string_view identifier);

// One code file of a diff.
struct ReviewCodeFile {
  const FileDiff* file = nullptr;
  SourceLanguage language = SourceLanguage::kCpp;
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

}  // namespace av
