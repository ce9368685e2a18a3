// Writing a file that configures an agent: atomically (a temporary file beside it, fsync,
// rename), mode 0600 from the moment it exists, and never over an existing file unless the
// caller forces it; the caller is shown the diff either way. Refuses to write through a
// symbolic link (the file or its folder), since a repository under review could plant one
// pointing at a shell profile. Creates missing parent folders with mode 0700.
#pragma once

#include <string>

#include "core/status.h"

namespace av {

struct PrivateWrite {
  bool existed = false;
  bool unchanged = false;  // the file already held exactly these bytes
  bool written = false;
  std::string diff;       // old -> new, when it existed and differed
  std::string mode_note;  // set when an unchanged file is not 0600
};

// With force false and a differing file, nothing is written and `written` is false.
Result<PrivateWrite> WritePrivateFile(const std::string& path, const std::string& contents,
                                      bool force);

}  // namespace av
