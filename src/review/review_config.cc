#include "review/review_config.h"

#include <algorithm>
#include <filesystem>

#include "core/file.h"
#include "core/package_config.h"
#include "core/toml_config.h"
#include "diff/glob.h"

namespace av {
namespace {

bool ValidComponentName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "unassigned" || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

}  // namespace

Result<ReviewPackageConfig> ParseReviewPackageConfig(const PackageConfig& file,
                                                     const std::vector<std::string>& known_rules) {
  const std::string& path = file.path();
  const toml::table& doc = file.doc();
  TomlTableReader r(path);
  ReviewPackageConfig config;
  config.path = path;
  std::filesystem::path package =
      std::filesystem::absolute(std::filesystem::path(path)).parent_path();
  config.package_dir = package.lexically_normal().string();
  std::string repo = "..";
  if (const toml::node* n = doc.get("slice")) {
    const toml::table* t = n->as_table();
    if (t == nullptr) return r.Error(*n, "\"slice\" must be a table");
    AV_RETURN_IF_ERROR(r.CheckKeys(*t, "[slice]", {"repo", "base"}));
    if (const toml::node* v = t->get("repo")) {
      AV_ASSIGN_OR_RETURN(repo, r.String(*v, "repo"));
    }
    if (const toml::node* v = t->get("base")) {
      AV_ASSIGN_OR_RETURN(config.base, r.String(*v, "base"));
      if (config.base[0] == '-') return r.Error(*v, "\"base\" must be a revision, not an option");
    }
  }
  config.repo_dir = (package / repo).lexically_normal().string();
  if (config.repo_dir.size() > 1 && config.repo_dir.back() == '/') config.repo_dir.pop_back();

  if (const toml::node* n = doc.get("components")) {
    const toml::table* t = n->as_table();
    if (t == nullptr) return r.Error(*n, "\"components\" must be a table of name = [globs]");
    // toml++ iterates keys sorted; priority is the order written, so sort by position.
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (const auto& [key, value] : *t) entries.push_back({&key, &value});
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const auto& sa = a.first->source().begin;
      const auto& sb = b.first->source().begin;
      return sa.line != sb.line ? sa.line < sb.line : sa.column < sb.column;
    });
    for (const auto& [key, value] : entries) {
      ComponentSpec c;
      c.name = std::string(key->str());
      if (!ValidComponentName(c.name)) {
        return r.ErrorAt(key->source(),
                         "component name \"" + c.name +
                             "\" must be letters, digits, '_', '-', '.' (and not \"unassigned\")");
      }
      const toml::node* globs = value;
      if (const toml::table* spec = value->as_table()) {
        // name = { paths = ["..."], kind = "gemm" }
        AV_RETURN_IF_ERROR(r.CheckKeys(*spec, "[components] " + c.name, {"paths", "kind"}));
        globs = spec->get("paths");
        if (globs == nullptr) return r.Error(*value, "component \"" + c.name + "\" needs paths");
        if (const toml::node* k = spec->get("kind")) {
          AV_ASSIGN_OR_RETURN(std::string kind, r.String(*k, "kind"));
          c.kind = ParseComponentKind(kind);
          if (!c.kind) {
            std::string list;
            for (const std::string& n : ComponentKindNames())
              list += (list.empty() ? "" : ", ") + n;
            return r.Error(*k, "component \"" + c.name + "\": unknown kind \"" + kind +
                                   "\" (kinds: " + list + ")");
          }
        }
      }
      AV_ASSIGN_OR_RETURN(c.globs, r.NonEmptyStringArray(*globs, c.name));
      if (c.globs.empty())
        return r.Error(*globs, "component \"" + c.name + "\" needs at least one glob");
      for (const std::string& g : c.globs) {
        Status st = ValidateGlob(g);
        if (!st.ok()) return r.Error(*globs, "component \"" + c.name + "\": " + st.message());
      }
      config.components.push_back(std::move(c));
    }
  }

  if (const toml::node* n = doc.get("review")) {
    const toml::table* t = n->as_table();
    if (t == nullptr) return r.Error(*n, "\"review\" must be a table");
    AV_RETURN_IF_ERROR(r.CheckKeys(*t, "[review]", {"reviewer", "disable"}));
    if (const toml::node* v = t->get("reviewer")) {
      AV_ASSIGN_OR_RETURN(config.reviewer, r.String(*v, "reviewer"));
      if (config.reviewer != "builtin" && config.reviewer != "agent" && config.reviewer != "both") {
        return r.Error(*v, "\"reviewer\" must be \"builtin\", \"agent\" or \"both\", got \"" +
                               config.reviewer + "\"");
      }
    }
    if (const toml::node* v = t->get("disable")) {
      AV_ASSIGN_OR_RETURN(config.disabled_rules, r.NonEmptyStringArray(*v, "disable"));
      const toml::array* arr = v->as_array();
      for (size_t i = 0; i < config.disabled_rules.size(); ++i) {
        const std::string& id = config.disabled_rules[i];
        if (std::find(known_rules.begin(), known_rules.end(), id) == known_rules.end()) {
          std::string list;
          for (const std::string& k : known_rules) list += (list.empty() ? "" : ", ") + k;
          return r.Error(*arr->get(i),
                         "unknown rule \"" + id + "\" in [review] disable (rules: " + list + ")");
        }
      }
    }
  }
  return config;
}

Result<ReviewPackageConfig> ParseReviewPackageConfig(std::string_view text, const std::string& path,
                                                     const std::vector<std::string>& known_rules) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Parse(text, path));
  return ParseReviewPackageConfig(package, known_rules);
}

Result<ReviewPackageConfig> LoadReviewPackageConfig(const std::string& path,
                                                    const std::vector<std::string>& known_rules) {
  AV_ASSIGN_OR_RETURN(PackageConfig package, PackageConfig::Load(path));
  return ParseReviewPackageConfig(package, known_rules);
}

std::vector<SliceSpec> SliceSpecs(const std::vector<ComponentSpec>& components) {
  return std::vector<SliceSpec>(components.begin(), components.end());
}

std::string AssignComponent(const std::vector<ComponentSpec>& components, std::string_view path) {
  return AssignComponent(SliceSpecs(components), path);
}

const ComponentSpec* FindComponent(const std::vector<ComponentSpec>& components,
                                   std::string_view name) {
  for (const ComponentSpec& c : components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace av
