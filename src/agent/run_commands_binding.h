// Which evidence/agent_review.json `agent run-commands` may take commands from: the one
// the latest `attnverify agent` run wrote, as evidence/run.json's "agent" entry records it
// (its outputs' sha256, taken by the process that started the stage; the ledger sealed
// with this user's key, schema/run_seal.h), and not one the repository under review
// commits. A hand-edited, copied or committed file is refused with
// what differs; nothing of it runs. doc/agent.md "Closing the loop". One thread.
#pragma once

#include <string>
#include <string_view>

#include "core/process.h"
#include "core/status.h"

namespace av {

inline constexpr const char* kAgentReviewPath = "evidence/agent_review.json";

// Ok when `review_text` (the bytes of evidence/agent_review.json) is what the latest agent
// run recorded in evidence/run.json wrote; `bound` then says which run ("run 2026...").
// InvalidInput, naming the file and what differs, otherwise.
Status CheckAgentReviewBound(const std::string& package_dir, std::string_view review_text,
                             std::string* bound);

// InvalidInput when the repository at `repo_dir` tracks the package's agent_review.json or
// run.json (a pull request committed them: they are its words, not an agent run's). A
// folder that is not a git repository, or a package outside it, tracks nothing.
Status CheckAgentReviewNotCommitted(ProcessRunner& git, const std::string& repo_dir,
                                    const std::string& package_dir);

}  // namespace av
