// `attnverify init` as a library call: the attention-verify/ package layout of doc/run.md,
// with a commented attnverify.toml, the default shapes.json and tolerances.json, and the
// eight-item acceptance_checklist.md. Never overwrites a file unless asked to.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace av {

struct InitResult {
  std::vector<std::string> written;  // files, in the order written
  std::vector<std::string> kept;     // existing files left alone (force = false)
};

// Writes into `package_dir` (created when absent). Existing files are kept, and listed,
// unless `force`; the folders diff/ logs/ evidence/ reports/ are created empty.
Result<InitResult> InitPackage(const std::string& package_dir, bool force);

// The file contents, for tests and for `init --print`.
std::string DefaultAttnverifyToml();
std::string DefaultChecklistMarkdown();

}  // namespace av
