// The schema of attnverify.toml: every top-level table a module reads, which module owns
// it, and the keys it may hold. This is the one list; ParsePackageConfig checks a file
// against it when the file is loaded, so a misspelled table (`[polcy]`) or key is an error
// naming FILE:LINE instead of being read as nothing (with the defaults applying,
// silently). Each module still reads and checks its own table's values and sub-tables
// ([build.gates], [[build.kernel]], [profile.match], [provider] prices, [policy]
// agent_commands). Format: doc/formats/attnverify-toml.md. Pure data; any thread.
#pragma once

#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "core/status.h"

namespace av {

struct PackageTable {
  std::string_view name;    // "build"
  std::string_view module;  // the src/ module whose parser reads it: "compile"
  std::string_view owner;   // the command that reads it, for messages and docs
  // The keys it may hold; empty: any (names chosen by the user, as in [components]).
  std::vector<std::string_view> keys;
};

// Every table, in the order doc/formats/attnverify-toml.md lists them.
const std::vector<PackageTable>& PackageTables();

// The keys of `table` ({} for an unknown table or a table of free names).
const std::vector<std::string_view>& PackageTableKeys(std::string_view table);

// Every top-level entry of `doc` is a known table, and every key of a known table is one
// of its keys. Errors: "PATH:LINE: unknown table [polcy] (did you mean [policy]?)",
// "PATH:LINE:COL: unknown key \"sourcs\" in [build] (allowed: archs, ...)" (the message of
// TomlTableReader::CheckKeys).
Status CheckPackageConfig(const toml::table& doc, const std::string& path);

// ParseTomlConfig, then CheckPackageConfig: how every module loads attnverify.toml.
Result<toml::table> ParsePackageConfig(std::string_view text, const std::string& path);

}  // namespace av
