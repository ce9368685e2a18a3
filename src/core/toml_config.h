// Parsing a TOML configuration file (attnverify.toml) with toml++, turning its
// exception into a Status that names FILE:LINE:COLUMN. Each module reads its own
// table from the result ([build] in evidence/, [numerics] and [candidate] in sweep/).
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "core/status.h"

namespace av {

Result<toml::table> ParseTomlConfig(std::string_view text, const std::string& path);

}  // namespace av
