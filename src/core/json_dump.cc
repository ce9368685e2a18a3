#include "core/json_dump.h"

#include <nlohmann/json.hpp>

namespace av {

std::string DumpJson(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

std::string JsonFileText(const nlohmann::json& value) { return DumpJson(value, 2) + "\n"; }

std::string ValidUtf8(const std::string& text) {
  // nlohmann's replace handler is the one definition of "valid": round-trip through it.
  const std::string quoted = DumpJson(nlohmann::json(text));
  const nlohmann::json back = nlohmann::json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  return back.is_string() ? back.get<std::string>() : std::string();
}

}  // namespace av
