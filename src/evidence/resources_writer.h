// Renderers of a ResourcesReport: evidence/resources.json (doc/formats/resources-json.md)
// and the console table `attnverify build` prints. Writers format what the report holds;
// they compute nothing. Pure functions; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "evidence/resources.h"

namespace av {

inline constexpr const char* kResourcesJsonSchema = "attnverify.resources/1";

nlohmann::json ResourcesReportToJson(const ResourcesReport& report,
                                     const std::string& tool_version);

// One row per kernel and arch ("before -> after" when a base was built), then findings
// and gate verdicts. Columns are padded; names longer than 60 characters are cut with
// "..." (the JSON keeps them whole).
std::string FormatResourcesTable(const ResourcesReport& report);

}  // namespace av
