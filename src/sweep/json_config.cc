#include "sweep/json_config.h"

#include <nlohmann/json.hpp>

namespace av {

Result<nlohmann::json> ParseJsonConfig(std::string_view text, const std::string& path) {
  return ParseJson(text, path);
}

}  // namespace av
