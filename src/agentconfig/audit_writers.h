// Writers for an AuditReport: JSON (schema attnverify.agent-config-audit/1, the findings
// as review.json writes them), Markdown (the reviewer's finding list under a header naming
// the files) and SARIF 2.1.0. They reuse review_writers.h and compute nothing.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "agentconfig/config_audit.h"

namespace av {

nlohmann::json AuditToJson(const AuditReport& r, const std::string& tool_version,
                           const std::string& command);
std::string AuditToMarkdown(const AuditReport& r, const std::string& command);
nlohmann::json AuditToSarif(const AuditReport& r, const std::string& tool_version);

}  // namespace av
