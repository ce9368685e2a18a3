// Claude Code settings.json files and how Claude Code merges them: user
// (~/.claude/settings.json), project (.claude/settings.json), local
// (.claude/settings.local.json) and managed (managed-settings.json) layers, lowest to
// highest precedence. Rule lists from every layer add up (deny beats ask beats allow in
// the policy); a scalar such as permissions.defaultMode comes from the highest layer that
// sets it; a managed allowManagedPermissionRulesOnly keeps only managed rules.
// doc/agent-configs.md lists the fields. Pure functions (Load reads the file), any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json_reader.h"
#include "core/json_value.h"
#include "core/status.h"
#include "policy/command_policy.h"

namespace av {

enum class SettingsLayer { kUser = 0, kProject = 1, kLocal = 2, kManaged = 3 };
std::string_view SettingsLayerName(SettingsLayer layer);
// managed-settings.json: managed; *settings.local.json: local; under $HOME/.claude/: user;
// anything else: project.
SettingsLayer GuessSettingsLayer(const std::string& path);

struct SettingsDocument {
  std::string path;  // as given, for messages
  SettingsLayer layer = SettingsLayer::kProject;
  std::string text;
  JsonValue json;  // the parsed file (json.hpp to look inside)
  JsonLines lines;
  std::string Where(const std::string& pointer) const;  // "path:line"
};

// Reads and parses one settings file; an error names the file and the line.
Result<SettingsDocument> LoadSettingsDocument(const std::string& path, SettingsLayer layer);
Result<SettingsDocument> ParseSettingsDocument(std::string text, const std::string& path,
                                               SettingsLayer layer);

// Something in a settings file that is not what Claude Code reads: a list that is not a
// list of strings, a rule that does not parse.
struct SettingsProblem {
  std::string where;    // "path:line"
  std::string pointer;  // "/permissions/allow/3"
  std::string message;
};

struct MergedSettings {
  PermissionSettings permissions;  // rules carry "path:line" as their source
  std::string default_mode;        // permissions.defaultMode of the highest layer setting it
  std::string default_mode_where;
  bool bypass_disabled = false;  // some layer sets disableBypassPermissionsMode "disable"
  bool managed_rules_only = false;
  std::vector<SettingsProblem> problems;
};

// `docs` in any order; they are merged by layer.
MergedSettings MergeSettings(const std::vector<SettingsDocument>& docs);

}  // namespace av
