#include "agent/run_commands_policy.h"

#include <filesystem>

#include "agentconfig/agent_emit.h"
#include "agentconfig/claude_settings.h"
#include "core/git.h"
#include "core/toml_config.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// 1 MiB: an attnverify.toml is a few KiB; a bigger blob at base is not one.
constexpr size_t kMaxBaseTomlBytes = size_t{1} << 20;

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : p.string();
}

// Whether `path` is `dir` or lies below it (both canonical).
bool Inside(const std::string& path, const std::string& dir) {
  fs::path rel = fs::path(path).lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

void Append(std::vector<PermissionRule>* to, const std::vector<PermissionRule>& from) {
  to->insert(to->end(), from.begin(), from.end());
}

// The user's own settings files: --settings, else ~/.claude/settings.json and the managed
// settings that exist. Refuses a file inside the repository under review: that is the
// reviewed code's settings however it is named.
Result<std::vector<SettingsDocument>> LoadUserSettings(const AgentPackage& package,
                                                       const RunCommandsPolicyOptions& o) {
  std::vector<std::pair<std::string, SettingsLayer>> files;
  if (!o.settings_files.empty()) {
    for (const std::string& f : o.settings_files) files.emplace_back(f, GuessSettingsLayer(f));
  } else {
    std::error_code ec;
    if (!o.home.empty() && fs::is_regular_file(o.home + "/.claude/settings.json", ec)) {
      files.emplace_back(o.home + "/.claude/settings.json", SettingsLayer::kUser);
    }
    if (!o.managed_settings.empty() && fs::is_regular_file(o.managed_settings, ec)) {
      files.emplace_back(o.managed_settings, SettingsLayer::kManaged);
    }
  }
  const std::string repo = Canonical(package.repo_dir);
  std::vector<SettingsDocument> docs;
  for (const auto& [path, layer] : files) {
    if (Inside(Canonical(path), repo)) {
      return InvalidInput(path + ": lies inside the repository under review (" + package.repo_dir +
                          "): its settings are the reviewed code's, not yours; give your own "
                          "settings file");
    }
    AV_ASSIGN_OR_RETURN(SettingsDocument doc, LoadSettingsDocument(path, layer));
    docs.push_back(std::move(doc));
  }
  return docs;
}

// [policy] agent_commands of the package's attnverify.toml as committed at the base
// revision, added to `s`; what was read or why nothing was goes to `p`.
Status AddBaseRules(const AgentPackage& package, const RunCommandsPolicyOptions& o,
                    RunCommandsPolicy* p) {
  PosixProcessRunner posix;
  ProcessRunner& git = o.git != nullptr ? *o.git : posix;
  const std::string base = o.base.empty() ? package.base : o.base;
  const std::string what = "no package rules: ";
  Result<std::string> top = RunSafeGit(git, package.repo_dir, {"rev-parse", "--show-toplevel"});
  if (!top.ok()) {
    p->ignored.push_back(what + package.repo_dir + " is not a git repository");
    return Status::Ok();
  }
  const std::string config = Canonical(fs::absolute(package.config_path).string());
  const std::string root = Canonical(TrimNewlines(*top));
  if (!Inside(config, root)) {
    p->ignored.push_back(what +
                         "the package is not inside the repository, so nothing of it is "
                         "committed at base");
    return Status::Ok();
  }
  const std::string rel = fs::path(config).lexically_relative(root).generic_string();
  Result<std::string> commit = RunSafeGit(
      git, root, {"rev-parse", "--verify", "--quiet", "--end-of-options", base + "^{commit}"});
  if (!commit.ok() || TrimNewlines(*commit).empty()) {
    p->ignored.push_back(what + "the base revision \"" + base + "\" is not a commit here");
    return Status::Ok();
  }
  const std::string sha = TrimNewlines(*commit);
  Result<std::string> head = RunSafeGit(git, root, {"rev-parse", "--verify", "--quiet", "HEAD"});
  if (head.ok() && TrimNewlines(*head) == sha) {
    // The head's own toml would then decide: exactly what must not.
    p->ignored.push_back(what + "the base revision \"" + base +
                         "\" is HEAD itself; pass --base with the revision the change is "
                         "reviewed against");
    return Status::Ok();
  }
  Result<std::string> text = ReadGitBlob(git, root, sha, rel, kMaxBaseTomlBytes);
  if (!text.ok()) {
    if (text.status().code() != StatusCode::kNotFound) return text.status();
    p->ignored.push_back(what + rel + " is not committed at base " + sha.substr(0, 12));
    return Status::Ok();
  }
  const std::string where = rel + "@" + sha.substr(0, 12);
  const size_t before = p->settings.allow.size() + p->settings.ask.size() + p->settings.deny.size();
  AV_RETURN_IF_ERROR(AddPackageCommandRules(*text, where, &p->settings));
  if (p->settings.allow.size() + p->settings.ask.size() + p->settings.deny.size() > before) {
    p->sources.push_back("[policy] agent_commands of " + rel + " at base " + sha.substr(0, 12) +
                         " (" + base + ")");
  } else {
    p->ignored.push_back(what + rel + " at base " + sha.substr(0, 12) +
                         " has no [policy] agent_commands");
  }
  return Status::Ok();
}

}  // namespace

Status AddBuiltinReviewRules(PermissionSettings* s) {
  for (const std::string& r : ReviewAllowRules()) {
    AV_ASSIGN_OR_RETURN(PermissionRule rule, ParsePermissionRule(r));
    rule.source = "built-in review rules";
    s->allow.push_back(rule);
  }
  for (const std::string& r : ReviewDenyRules()) {
    AV_ASSIGN_OR_RETURN(PermissionRule rule, ParsePermissionRule(r));
    rule.source = "built-in review rules";
    s->deny.push_back(rule);
  }
  return Status::Ok();
}

Status AddPackageCommandRules(std::string_view toml_text, const std::string& where,
                              PermissionSettings* settings) {
  AV_ASSIGN_OR_RETURN(toml::table doc, ParseTomlConfig(toml_text, where));
  TomlTableReader r(where);
  AV_ASSIGN_OR_RETURN(const toml::table* policy, r.OptionalTable(doc, "policy"));
  if (policy == nullptr) return Status::Ok();
  AV_ASSIGN_OR_RETURN(const toml::table* commands, r.OptionalTable(*policy, "agent_commands"));
  if (commands == nullptr) return Status::Ok();
  AV_RETURN_IF_ERROR(r.CheckKeys(*commands, "[policy] agent_commands", {"allow", "ask", "deny"}));
  struct List {
    const char* key;
    std::vector<PermissionRule>* rules;
  };
  for (const List& l : {List{"allow", &settings->allow}, List{"ask", &settings->ask},
                        List{"deny", &settings->deny}}) {
    const toml::node* n = commands->get(l.key);
    if (n == nullptr) continue;
    const toml::array* arr = n->as_array();
    if (arr == nullptr) {
      return r.Error(*n, std::string("\"") + l.key +
                             "\" must be an array of rules such as \"Bash(make test:*)\"");
    }
    for (const toml::node& item : *arr) {
      AV_ASSIGN_OR_RETURN(std::string text, r.String(item, l.key));
      Result<PermissionRule> rule = ParsePermissionRule(text);
      if (!rule.ok()) return r.Error(item, rule.status().message());
      rule->source = where + ":" + std::to_string(item.source().begin.line);
      l.rules->push_back(std::move(*rule));
    }
  }
  return Status::Ok();
}

Result<RunCommandsPolicy> LoadRunCommandsPolicy(const AgentPackage& package,
                                                const RunCommandsPolicyOptions& o) {
  RunCommandsPolicy p;
  AV_ASSIGN_OR_RETURN(std::vector<SettingsDocument> docs, LoadUserSettings(package, o));
  MergedSettings merged = MergeSettings(docs);
  if (!merged.problems.empty()) {
    return InvalidInput(merged.problems[0].where + ": " + merged.problems[0].message);
  }
  if (merged.managed_rules_only) {
    // The organisation's managed settings say only their rules count: so be it here too.
    p.settings = merged.permissions;
    for (const SettingsDocument& d : docs) {
      if (d.layer == SettingsLayer::kManaged) p.sources.push_back(d.path + " (managed, only)");
    }
    p.ignored.push_back("built-in review rules and package rules: allowManagedPermissionRulesOnly");
  } else {
    AV_RETURN_IF_ERROR(AddBuiltinReviewRules(&p.settings));
    p.sources.push_back(
        "the built-in review rules (attnverify agent-config emit --tool claude-code)");
    Append(&p.settings.allow, merged.permissions.allow);
    Append(&p.settings.ask, merged.permissions.ask);
    Append(&p.settings.deny, merged.permissions.deny);
    for (const SettingsDocument& d : docs) {
      p.sources.push_back(d.path + (o.settings_files.empty()
                                        ? " (" + std::string(SettingsLayerName(d.layer)) + ")"
                                        : " (--settings)"));
    }
    AV_RETURN_IF_ERROR(AddBaseRules(package, o, &p));
  }
  std::error_code ec;
  for (const char* rel : {".claude/settings.json", ".claude/settings.local.json"}) {
    const std::string path = package.repo_dir + "/" + rel;
    if (fs::exists(fs::symlink_status(path, ec))) {
      p.ignored.push_back(path +
                          ": not read (the repository under review never decides what "
                          "runs)");
    }
  }
  p.ignored.push_back("the working tree's " + fs::path(package.config_path).filename().string() +
                      " [policy]: not read (only the base revision's)");
  p.settings.package_dir = package.package_dir;
  p.settings.cwd = package.repo_dir;
  return p;
}

}  // namespace av
