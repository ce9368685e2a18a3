// Parsing a TOML configuration file with toml++, turning its exception into a Status that
// names FILE:LINE:COLUMN. attnverify.toml is loaded once per command as a PackageConfig
// (core/package_config.h), which also checks its tables and keys against the one list
// (core/package_schema.h, which names every table and the module that owns it); each
// module then reads its own tables with a TomlTableReader, so every message has the same
// shape. Any thread.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av {

Result<toml::table> ParseTomlConfig(std::string_view text, const std::string& path);

// Typed access to one file's nodes; every error is "PATH:LINE:COL: what".
class TomlTableReader {
 public:
  explicit TomlTableReader(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  Status Error(const toml::node& node, const std::string& what) const;
  Status ErrorAt(const toml::source_region& where, const std::string& what) const;  // a key's, say
  // `where` names the table in messages: "[slice]".
  Status CheckKeys(const toml::table& table, const std::string& where,
                   const std::set<std::string_view>& allowed) const;
  // The table at `key` of `doc`, or null when absent; an error when `key` is not a table.
  Result<const toml::table*> OptionalTable(const toml::table& doc, std::string_view key) const;
  Result<std::string> String(const toml::node& node, const std::string& key) const;  // non-empty
  Result<int64_t> Integer(const toml::node& node, const std::string& key, int64_t lo,
                          int64_t hi) const;
  Result<bool> Bool(const toml::node& node, const std::string& key) const;
  Result<std::vector<std::string>> StringArray(const toml::node& node,
                                               const std::string& key) const;
  // The same, each string non-empty (globs, rule ids).
  Result<std::vector<std::string>> NonEmptyStringArray(const toml::node& node,
                                                       const std::string& key) const;

 private:
  std::string path_;
};

}  // namespace av
