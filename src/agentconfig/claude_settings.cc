#include "agentconfig/claude_settings.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/file.h"

namespace av {

std::string_view SettingsLayerName(SettingsLayer layer) {
  switch (layer) {
    case SettingsLayer::kUser:
      return "user";
    case SettingsLayer::kProject:
      return "project";
    case SettingsLayer::kLocal:
      return "local";
    case SettingsLayer::kManaged:
      return "managed";
  }
  return "project";
}

SettingsLayer GuessSettingsLayer(const std::string& path) {
  auto ends_with = [&](std::string_view s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("managed-settings.json")) return SettingsLayer::kManaged;
  if (ends_with("settings.local.json")) return SettingsLayer::kLocal;
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    std::string user = std::string(home) + "/.claude/";
    if (path.compare(0, user.size(), user) == 0) return SettingsLayer::kUser;
  }
  return SettingsLayer::kProject;
}

std::string SettingsDocument::Where(const std::string& pointer) const {
  return path + ":" + std::to_string(lines.LineOf(pointer));
}

Result<SettingsDocument> ParseSettingsDocument(std::string text, const std::string& path,
                                               SettingsLayer layer) {
  SettingsDocument doc;
  doc.path = path;
  doc.layer = layer;
  doc.text = std::move(text);
  try {
    doc.json = nlohmann::json::parse(doc.text);
  } catch (const nlohmann::json::parse_error& e) {
    return InvalidInput(path + ": not JSON: " + e.what());
  }
  if (!doc.json->is_object()) return InvalidInput(path + ":1: a settings file is a JSON object");
  Result<JsonLines> lines = LocateJsonValues(doc.text, path);
  if (!lines.ok()) return lines.status();
  doc.lines = std::move(*lines);
  return doc;
}

Result<SettingsDocument> LoadSettingsDocument(const std::string& path, SettingsLayer layer) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  if (text.size() > (4 << 20)) return InvalidInput(path + ": larger than 4 MiB");
  return ParseSettingsDocument(std::move(text), path, layer);
}

namespace {

void ReadRules(const SettingsDocument& doc, const char* list, std::vector<PermissionRule>* out,
               std::vector<SettingsProblem>* problems) {
  const nlohmann::json& perms = doc.json->at("permissions");
  if (!perms.contains(list)) return;
  std::string pointer = std::string("/permissions/") + list;
  const nlohmann::json& rules = perms.at(list);
  if (!rules.is_array()) {
    problems->push_back({doc.Where(pointer), pointer,
                         std::string("permissions.") + list + " is not a list of rule strings"});
    return;
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    std::string at = pointer + "/" + std::to_string(i);
    if (!rules[i].is_string()) {
      problems->push_back({doc.Where(at), at, "a rule that is not a string"});
      continue;
    }
    Result<PermissionRule> rule = ParsePermissionRule(rules[i].get<std::string>());
    if (!rule.ok()) {
      problems->push_back({doc.Where(at), at, rule.status().message()});
      continue;
    }
    rule->source = doc.Where(at);
    out->push_back(std::move(*rule));
  }
}

}  // namespace

MergedSettings MergeSettings(const std::vector<SettingsDocument>& input) {
  MergedSettings m;
  std::vector<const SettingsDocument*> docs;
  for (const SettingsDocument& d : input) docs.push_back(&d);
  std::stable_sort(docs.begin(), docs.end(), [](const auto* a, const auto* b) {
    return static_cast<int>(a->layer) < static_cast<int>(b->layer);
  });
  for (const SettingsDocument* d : docs) {
    auto only = d->json->find("allowManagedPermissionRulesOnly");
    if (d->layer == SettingsLayer::kManaged && only != d->json->end() && *only == true) {
      m.managed_rules_only = true;
    }
  }
  for (const SettingsDocument* d : docs) {
    if (!d->json->contains("permissions")) continue;
    const nlohmann::json& perms = d->json->at("permissions");
    if (!perms.is_object()) {
      m.problems.push_back(
          {d->Where("/permissions"), "/permissions", "permissions is not an object"});
      continue;
    }
    if (!m.managed_rules_only || d->layer == SettingsLayer::kManaged) {
      ReadRules(*d, "allow", &m.permissions.allow, &m.problems);
      ReadRules(*d, "ask", &m.permissions.ask, &m.problems);
      ReadRules(*d, "deny", &m.permissions.deny, &m.problems);
    }
    if (perms.contains("defaultMode")) {
      if (perms.at("defaultMode").is_string()) {
        m.default_mode = perms.at("defaultMode").get<std::string>();  // higher layers come later
        m.default_mode_where = d->Where("/permissions/defaultMode");
      } else {
        m.problems.push_back({d->Where("/permissions/defaultMode"), "/permissions/defaultMode",
                              "permissions.defaultMode is not a string"});
      }
    }
    if (perms.contains("disableBypassPermissionsMode") &&
        perms.at("disableBypassPermissionsMode") == "disable") {
      m.bypass_disabled = true;
    }
  }
  return m;
}

}  // namespace av
