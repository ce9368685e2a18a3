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

namespace {

std::string Where(const std::string& path, const toml::source_region& src) {
  return path + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
}

}  // namespace

Status TomlTableReader::Error(const toml::node& node, const std::string& what) const {
  return ErrorAt(node.source(), what);
}

Status TomlTableReader::ErrorAt(const toml::source_region& where, const std::string& what) const {
  return InvalidInput(Where(path_, where) + ": " + what);
}

Status TomlTableReader::CheckKeys(const toml::table& table, const std::string& where,
                                  const std::set<std::string_view>& allowed) const {
  for (const auto& [key, value] : table) {
    if (allowed.count(key.str())) continue;
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    return InvalidInput(Where(path_, key.source()) + ": unknown key \"" + std::string(key.str()) +
                        "\" in " + where + " (allowed: " + list + ")");
  }
  return Status::Ok();
}

Result<const toml::table*> TomlTableReader::OptionalTable(const toml::table& doc,
                                                          std::string_view key) const {
  const toml::node* n = doc.get(key);
  if (n == nullptr) return static_cast<const toml::table*>(nullptr);
  const toml::table* t = n->as_table();
  if (t == nullptr) return Error(*n, std::string("\"").append(key).append("\" must be a table"));
  return t;
}

Result<std::string> TomlTableReader::String(const toml::node& node, const std::string& key) const {
  auto s = node.value<std::string>();
  if (!s || s->empty()) return Error(node, "\"" + key + "\" must be a non-empty string");
  return *s;
}

Result<int64_t> TomlTableReader::Integer(const toml::node& node, const std::string& key, int64_t lo,
                                         int64_t hi) const {
  auto v = node.value_exact<int64_t>();
  const bool any = lo == INT64_MIN && hi == INT64_MAX;
  const std::string want = "\"" + key + "\" must be an integer" +
                           (any ? "" : " in " + std::to_string(lo) + ".." + std::to_string(hi));
  if (!v) return Error(node, want);
  if (*v < lo || *v > hi) return Error(node, want + ", got " + std::to_string(*v));
  return *v;
}

Result<bool> TomlTableReader::Bool(const toml::node& node, const std::string& key) const {
  auto v = node.value_exact<bool>();
  if (!v) return Error(node, "\"" + key + "\" must be true or false");
  return *v;
}

Result<std::vector<std::string>> TomlTableReader::StringArray(const toml::node& node,
                                                              const std::string& key) const {
  const toml::array* arr = node.as_array();
  if (arr == nullptr) return Error(node, "\"" + key + "\" must be an array of strings");
  std::vector<std::string> out;
  for (const toml::node& item : *arr) {
    auto s = item.value<std::string>();
    if (!s) return Error(item, "\"" + key + "\" must hold only strings");
    out.push_back(*s);
  }
  return out;
}

Result<std::vector<std::string>> TomlTableReader::NonEmptyStringArray(
    const toml::node& node, const std::string& key) const {
  AV_ASSIGN_OR_RETURN(std::vector<std::string> out, StringArray(node, key));
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].empty())
      return Error(*node.as_array()->get(i), "\"" + key + "\" must hold non-empty strings");
  }
  return out;
}

}  // namespace av
