// The agent reviewer's prompts: one Markdown file per round (config/prompts/<stage>.md),
// written into a package by `attnverify init` and editable there; a package without one
// uses the built-in text (the repository's config/prompts/, compiled in). Each holds the
// workflow's constraints (read only, no patches, numbers only from the evidence) and the
// answer format of doc/formats/agent-findings.md.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace av {

// The built-in prompt of a stage ("" for an unknown one).
std::string DefaultPrompt(const std::string& stage);

// The package's config/prompts/<stage>.md, else the built-in one; `source` gets which
// ("config/prompts/perf.md" or "built-in").
Result<std::string> LoadPrompt(const std::string& package_dir, const std::string& stage,
                               std::string* source);

struct PromptsWritten {
  std::vector<std::string> written, kept;  // paths
};
// Writes config/prompts/<stage>.md for every stage; existing files are kept unless `force`.
Result<PromptsWritten> WriteDefaultPrompts(const std::string& package_dir, bool force);

}  // namespace av
