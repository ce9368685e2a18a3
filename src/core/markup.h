// Escaping text for XML 1.0 and HTML (element text and quoted attribute values): the
// JUnit file, the SVG heatmaps and the HTML report share it. Control characters XML 1.0
// forbids even when escaped become '?'. Pure function; any thread.
#pragma once

#include <string>
#include <string_view>

namespace av {

std::string EscapeMarkup(std::string_view text);

}  // namespace av
