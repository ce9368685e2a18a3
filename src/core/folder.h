// Folders that a hostile program may have tampered with (a candidate's case folders, a
// committed work/ tree), walked by descriptor: each folder is opened O_NOFOLLOW relative
// to the one above, so a symbolic link planted at any level is never followed, and
// nothing outside the starting folder is ever listed, written or deleted. Any thread.
#pragma once

#include <string>
#include <vector>

#include "core/file.h"
#include "core/status.h"

namespace av {

// What to do when `name` inside a folder is a symbolic link (or not a folder).
enum class NotAFolder {
  kRefuse,   // an InvalidInput naming it (and where a link points)
  kReplace,  // remove that entry alone (the link, never its target) and make a real folder
};

// Opens `path` as a folder, refusing a symbolic link at its last component (the folders
// above it are the user's to arrange). `create` makes it (with its parents) when absent.
Result<UniqueFd> OpenFolderNoFollow(const std::string& path, bool create);

// Opens the folder `name` inside `dir_fd` without following a link; `shown` names it in
// messages. When absent it is made if `create`; a link or non-folder there is handled as
// `not_a_folder` says, and with kReplace `*replaced` (when given) receives a sentence
// for the warnings ("work/cases/x was a symbolic link to ../victim: replaced ...").
Result<UniqueFd> OpenFolderAt(int dir_fd, const std::string& name, const std::string& shown,
                              bool create, NotAFolder not_a_folder,
                              std::string* replaced = nullptr);

// Removes `name` inside `dir_fd`: a file or link is unlinked, a folder emptied depth
// first (by descriptor, never following a link) and removed. Nesting past 128 levels is
// an error rather than a descriptor per level without end.
Status RemoveTreeAt(int dir_fd, const std::string& name, const std::string& shown);

// The names in the folder `dir_fd` (without "." and ".."), in the order listed.
Result<std::vector<std::string>> ListFolder(int dir_fd, const std::string& shown);

}  // namespace av
