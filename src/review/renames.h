// Rename detection for the reviewer: a name the diff renames consistently (a function,
// type or variable, always to the same new name, the old one gone and the new one fresh)
// cancels every removed/added line pair that differs only by it, and a block whose only
// change is renaming names its old lines declare is dropped. Used by change_blocks.cc;
// doc/review.md "What is not a finding" states the rules. Pure functions.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "review/change_blocks.h"

namespace av {

// C++ and Python keywords that are never renamed.
bool IsKeyword(std::string_view s);

// One file's blocks before renames are looked at, with the names each side shows.
struct RawFileBlocks {
  std::vector<ChangeBlock> blocks;
  std::set<std::string> old_ids, new_ids;  // removed + context lines, added + context lines
};

// The consistent renames of a diff's files, old -> new.
std::map<std::string, std::string> FindRenames(const std::vector<RawFileBlocks>& files);

// The code line's tokens with `renames` applied, joined like `norm`.
std::string RenamedNorm(const CodeLine& l, const std::map<std::string, std::string>& renames);

// True when `removed` and `added` differ only by the diff's consistent `renames` and by
// renaming names the old lines declare, one-to-one, to names the old code did not use.
bool IsRenameOnly(const ChangeBlock& b, const std::map<std::string, std::string>& renames);

// The added lines a removed line is compared with: those near its proportional position,
// so that pairing costs O(window) per line, not O(block). Small blocks are seen whole.
inline constexpr size_t kPairingWindow = 48;
void PairingRange(size_t index, size_t removed, size_t added, size_t* begin, size_t* end);

}  // namespace av
