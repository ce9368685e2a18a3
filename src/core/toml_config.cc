#include "core/toml_config.h"

namespace av {

Result<toml::table> ParseTomlConfig(std::string_view text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    return InvalidInput(path + ":" + std::to_string(src.begin.line) + ":" +
                        std::to_string(src.begin.column) + ": " + std::string(e.description()));
  }
}

}  // namespace av
