#include "sweep/json_config.h"

namespace av {

Result<nlohmann::json> ParseJsonConfig(std::string_view text, const std::string& path) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_discarded()) return doc;
  // Parse again with exceptions only to learn where the syntax error is.
  try {
    nlohmann::json again = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return InvalidInput(path + ": not valid JSON: " + e.what());
  }
  return InvalidInput(path + ": not valid JSON");
}

Status JsonConfigReader::CheckVersion(const nlohmann::json& doc, int version) const {
  if (doc.contains("version") && doc["version"] == version) return Status::Ok();
  return Error("$.version", "must be " + std::to_string(version) + ", got " +
                                (doc.contains("version") ? doc["version"].dump() : "nothing"));
}

Status JsonConfigReader::CheckKeys(const nlohmann::json& object, const std::string& where,
                                   const std::set<std::string>& allowed) const {
  for (const auto& [key, value] : object.items()) {
    if (allowed.count(key)) continue;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return Error(where, "unknown key \"" + key + "\" (allowed: " + list + ")");
  }
  return Status::Ok();
}

}  // namespace av
