// A unified diff of two small texts (config files), for `agent-config emit` to show what
// --force would change. Longest-common-subsequence over lines with three lines of context;
// past 4 million line pairs it says how many lines differ instead. Pure function.
#pragma once

#include <string>
#include <string_view>

namespace av {

// Empty when the texts are equal.
std::string UnifiedLineDiff(std::string_view old_text, std::string_view new_text,
                            const std::string& old_name, const std::string& new_name);

}  // namespace av
