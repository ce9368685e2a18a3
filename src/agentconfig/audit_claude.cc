// The audit of Claude Code settings.json layers: the env block (Base URL, keys, models),
// each allow rule (does it grant arbitrary execution?), each deny rule (can it hold?), and
// over the merged layers the permission mode and the denies a read-only review needs.
#include <nlohmann/json.hpp>
#include <set>

#include "agentconfig/audit_internal.h"
#include "agentconfig/secret_scan.h"
#include "shell/exec_wrappers.h"

namespace av::audit_internal {
namespace {

const std::set<std::string> kInterpreters = {
    "python", "python2", "python3", "node",  "nodejs", "deno",      "bun",  "perl",      "ruby",
    "php",    "lua",     "Rscript", "julia", "java",   "osascript", "pwsh", "powershell"};
const std::set<std::string> kShells = {"bash", "sh",   "zsh",  "dash",   "ksh",
                                       "fish", "eval", "exec", "source", "."};
const std::set<std::string> kLaunchers = {
    "npx",  "npm",  "pnpm",  "yarn",  "uv", "uvx",    "pipx",   "poetry", "conda", "pip",
    "pip3", "make", "cmake", "cargo", "go", "docker", "podman", "just",   "tox",   "nox"};
const std::set<std::string> kWrappers = {
    "env",  "xargs", "sudo",   "doas",   "su",      "nohup",   "nice", "timeout",
    "time", "watch", "stdbuf", "setsid", "command", "builtin", "find", "parallel"};
const std::set<std::string> kNetwork = {"curl", "wget", "ssh",   "scp",    "sftp", "rsync",
                                        "nc",   "ncat", "socat", "telnet", "ftp"};
const std::set<std::string> kDestructive = {"rm", "dd", "mkfs", "shred", "truncate"};
const std::set<std::string> kRunsPrograms = {"nvcc",     "ncu", "nsys",     "compute-sanitizer",
                                             "cuda-gdb", "gdb", "valgrind", "strace",
                                             "ltrace",   "perf"};

bool IsPython(const std::string& cmd) {
  return cmd.rfind("python", 0) == 0 &&
         cmd.find_first_not_of("0123456789.", 6) == std::string::npos;
}

struct Grade {
  std::string severity;  // empty: nothing to say
  std::string title, why, instead;
};

Grade GradeAllow(const PermissionRule& r) {
  if (r.tool == "*")
    return {"error", "allows every tool", "\"*\" allows every tool, shell included.",
            "name the tools"};
  if (r.tool == "Edit" || r.tool == "Write" || r.tool == "NotebookEdit" || r.tool == "MultiEdit") {
    return {"warning", "allows edits in a read-only review",
            r.text + " lets the agent change files; the review reads the diff and the logs.",
            "deny Edit and Write for the review"};
  }
  if (r.tool == "WebFetch" && !r.has_specifier) {
    return {"warning", "allows fetching any URL",
            r.text + " reaches any host, production included.",
            "WebFetch(domain:docs.example.com) for the hosts the review reads"};
  }
  if (r.tool != "Bash") return {};
  BashPattern p = CompileBashRule(r);
  if (p.form == BashRuleForm::kAny) {
    return {"error", "allows every shell command",
            r.text + " runs anything, including `curl`, `git push` and `rm -rf`.",
            "the commands the review runs, each by name: Bash(git diff:*), Bash(nvcc:*), "
            "Bash(python -m pytest:*)"};
  }
  std::vector<std::string> lead = RuleLeadingWords(r);
  if (lead.empty()) {
    return {"error", "a pattern that may match any command",
            r.text + " starts with a wildcard, so the command name is anything.",
            "start the rule with the command's name"};
  }
  std::string cmd = Basename(lead[0]);
  bool exact = p.form == BashRuleForm::kExact;
  if (IsPython(cmd) || kInterpreters.count(cmd)) {
    if (lead.size() >= 3 && lead[1] == "-m" && lead[2] == "pytest") return {};
    if (exact) return {};
    return {"error", "allows arbitrary code",
            r.text + " runs any program the interpreter is given: `" + cmd +
                " -c '...'`, any script in the repository.",
            IsPython(cmd) ? "Bash(" + cmd + " -m pytest:*) to run the tests"
                          : "the exact script: Bash(" + cmd + " tools/check.js)"};
  }
  if (kShells.count(cmd)) {
    return {"error", "allows any shell script",
            r.text + " runs whatever script it is handed (`" + cmd + " -c '...'`).",
            "allow the commands the script runs, each by name"};
  }
  if (kLaunchers.count(cmd) && !exact) {
    return {"error", "runs whatever the repository defines",
            r.text +
                " runs the repository's own scripts, recipes or packages (Makefile recipes, "
                "package.json scripts, setup.py); the code under review is hostile.",
            "exact commands: Bash(" + cmd + (cmd == "make" ? " test)" : " test)")};
  }
  if (kWrappers.count(cmd)) {
    return {"error", "allows any wrapped command",
            "Claude Code allows `" + cmd + " <any command>` under " + r.text +
                "; the wrapped command is never matched against the allow list.",
            "allow the wrapped command itself"};
  }
  if (cmd == "cd") {
    return {"error", "the rule behind chained-command bypasses",
            r.text +
                " is how `cd /p && python3 x.py` ran without a prompt (Claude Code issue 28784); a "
                "review's commands take paths and never need cd.",
            "drop it; give commands paths"};
  }
  if (cmd == "git" && lead.size() == 1) {
    return {"error", "allows every git subcommand",
            r.text +
                " includes `git push`, `git config alias.x '!cmd'` and `git -c core.pager=... "
                "log`, which run or send anything.",
            "Bash(git diff:*), Bash(git status:*), Bash(git log:*)"};
  }
  if (kNetwork.count(cmd)) {
    return {"error", "allows network access",
            r.text + " can reach production, a database or a deployment.",
            "no network commands in a review; fetch what it needs beforehand"};
  }
  if (kDestructive.count(cmd)) {
    return {"error", "allows deleting files", r.text + " deletes or overwrites files.",
            "none: a review deletes nothing"};
  }
  if (kRunsPrograms.count(cmd) && !exact) {
    std::string how = cmd == "nvcc"
                          ? "`nvcc -ccbin PROGRAM` and `nvcc --run` run other programs"
                          : "`" + cmd + " PROGRAM ...` runs the program named after its options";
    return {"warning", "can run other programs",
            how + "; Claude Code allows them under " + r.text +
                " (attnverify's own policy checks the wrapped program and asks for -ccbin/--run).",
            "keep it if the review needs it; prefer exact command lines"};
  }
  return {};
}

Grade GradeDeny(const PermissionRule& r) {
  if (r.tool != "Bash" || !r.has_specifier) return {};
  const std::string& spec = r.specifier;
  size_t colon_star = spec.find(":*");
  BashPattern p = CompileBashRule(r);
  if (colon_star != std::string::npos && p.form != BashRuleForm::kPrefix) {
    std::string cmd = spec.substr(0, colon_star);
    return {"error", "a deny rule that cannot hold",
            r.text +
                " matches nothing: ':*' marks a prefix only at the very end of a rule, so here \"" +
                cmd + ":\" is literal text and no command starts with it. Even read as `" + cmd +
                " *" + spec.substr(colon_star + 2) + "` it matches the words typed, which `" + cmd +
                " -H 'X: y' https://prod...` and `URL=https://production...; " + cmd +
                " $URL` walk around.",
            "Bash(" + cmd + ":*): deny the command itself"};
  }
  std::vector<std::string> lead = RuleLeadingWords(r);
  if (p.form == BashRuleForm::kWildcard && !lead.empty()) {
    size_t star = spec.find('*');
    std::string after = spec.substr(star + 1);
    if (after.find_first_not_of("* ") != std::string::npos) {
      return {"error", "a deny rule that cannot hold",
              r.text + " matches the text of the arguments; a variable (`URL=...; " + lead[0] +
                  " $URL`), "
                  "another spelling of the same host or option, or another tool walks around it.",
              "Bash(" + lead[0] + ":*): deny the command itself"};
    }
  }
  for (size_t i = 1; i < lead.size(); ++i) {
    if (!lead[i].empty() && lead[i][0] == '-') {
      return {"warning", "a deny rule that spells one set of flags",
              r.text + " denies one spelling; `" + lead[0] + " -fr`, `" + lead[0] +
                  " -r -f` and long options walk around it.",
              "Bash(" + lead[0] + ":*)"};
    }
  }
  return {};
}

}  // namespace

std::string KeyEnvFromHelper(const std::string& helper) {
  std::string h = helper;
  auto take_name = [](const std::string& s, size_t at) {
    size_t e = at;
    while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_')) ++e;
    return s.substr(at, e - at);
  };
  if (h.rfind("printenv ", 0) == 0) return take_name(h, 9);
  size_t dollar = h.find('$');
  if ((h.rfind("echo ", 0) == 0 || h.rfind("printf ", 0) == 0) && dollar != std::string::npos) {
    size_t at = dollar + 1;
    if (at < h.size() && h[at] == '{') ++at;
    return take_name(h, at);
  }
  return "";
}

void AuditClaudeEnv(const SettingsDocument& doc, const std::string& pointer,
                    const std::string& tool, ToolView* view, AuditContext* ctx) {
  const nlohmann::json& env = doc.json->at(nlohmann::json::json_pointer(pointer));
  if (!env.is_object()) {
    ctx->Add("error", "claude.env_invalid", tool, doc.path, doc.lines.LineOf(pointer),
             "env is not an object",
             "Claude Code reads env as an object of NAME: \"value\" strings.");
    return;
  }
  for (const auto& [name, value] : env.items()) {
    std::string at = pointer + "/" + JsonPointerToken(name);
    int line = doc.lines.LineOf(at);
    if (!value.is_string()) continue;
    std::string v = value.get<std::string>();
    if (name == "ANTHROPIC_BASE_URL") {
      view->base_url = v;
      view->base_line = line;
      CheckUrl(tool, doc.path, line, "ANTHROPIC_BASE_URL", v, doc.text, ctx);
    } else if (name == "ANTHROPIC_MODEL" || name == "ANTHROPIC_SMALL_FAST_MODEL" ||
               (name.rfind("ANTHROPIC_DEFAULT_", 0) == 0 && name.size() > 24 &&
                name.compare(name.size() - 6, 6, "_MODEL") == 0)) {
      view->models.emplace_back(v, line);
    }
    if (!IsSecretFieldName(name)) continue;
    if (ctx->IsPlaceholder(v)) {
      if (name == "ANTHROPIC_AUTH_TOKEN" || name == "ANTHROPIC_API_KEY") {
        ctx->Add(
            "warning", "claude.token_placeholder", tool, doc.path, line, "a placeholder key in env",
            name +
                " holds a placeholder. Claude Code sends whatever this field holds as the key "
                "(it outranks apiKeyHelper), so requests fail until someone pastes the real key "
                "here, "
                "into a file that gets committed and shared. Leave it out and use apiKeyHelper "
                "printing the [provider].key_env variable.",
            LineText(doc.text, line));
      }
    } else if (!ctx->Has(doc.path, line, "agent_config.secret_literal")) {
      ctx->Add("error", "agent_config.secret_literal", tool, doc.path, line, "a literal key in env",
               name + " holds " + ctx->DescribeSecret(v) +
                   ". A key belongs only in the environment "
                   "variable [provider].key_env names; revoke this one.");
    }
  }
}

namespace {

const char kClaudeTool[] = "claude-code";

// One settings file on its own: secrets, duplicate keys, its env block and apiKeyHelper.
// Returns whether it sets a Base URL.
bool AuditClaudeDocument(const SettingsDocument& doc, AuditContext* ctx) {
  const std::string tool = kClaudeTool;
  CheckSecretPatterns(tool, doc.path, doc.text, ctx);
  for (const std::string& dup : doc.lines.duplicate_keys) {
    ctx->Add("warning", "agent_config.duplicate_key", tool, doc.path, doc.lines.LineOf(dup),
             "a key set twice",
             "JSON key " + dup +
                 " appears twice in one object; Claude Code "
                 "keeps the last one, which a reader of the first may miss.");
  }
  ToolView view;
  view.tool = tool;
  view.file = doc.path;
  if (doc.json->contains("env")) AuditClaudeEnv(doc, "/env", tool, &view, ctx);
  auto helper = doc.json->find("apiKeyHelper");
  if (helper != doc.json->end() && helper->is_string()) {
    view.key_env = KeyEnvFromHelper(helper->get<std::string>());
    view.key_line = doc.lines.LineOf("/apiKeyHelper");
    auto env = doc.json->find("env");
    if (env != doc.json->end() && env->is_object() &&
        (env->contains("ANTHROPIC_AUTH_TOKEN") || env->contains("ANTHROPIC_API_KEY"))) {
      ctx->Add("warning", "claude.api_key_helper_shadowed", tool, doc.path, view.key_line,
               "apiKeyHelper is never used",
               "env also sets ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY, which Claude Code uses "
               "before apiKeyHelper.");
    }
  }
  if (!view.base_url.empty() || !view.key_env.empty() || !view.models.empty()) {
    ctx->AddView(view);
  }
  return !view.base_url.empty();
}

// "FILE:LINE" as the merged settings record where a value came from.
std::pair<std::string, int> SplitWhere(const std::string& where) {
  size_t colon = where.rfind(':');
  return {where.substr(0, colon), std::atoi(where.c_str() + colon + 1)};
}

// The merged permission rules, each graded (too broad an allow, a deny that cannot hold).
void GradeRules(const std::vector<SettingsDocument>& docs, const std::vector<PermissionRule>& rules,
                Grade (*grade)(const PermissionRule&), const char* rule_id, const char* list,
                AuditContext* ctx) {
  for (const PermissionRule& r : rules) {
    Grade g = grade(r);
    if (g.severity.empty()) continue;
    auto [file, line] = SplitWhere(r.source);
    std::string text;
    for (const SettingsDocument& d : docs) {
      if (d.path == file) text = LineText(d.text, line);
    }
    ctx->Add(g.severity, rule_id, kClaudeTool, file, line,
             std::string(list) + " " + r.text + ": " + g.title, g.why + " Instead: " + g.instead + ".",
             text);
  }
}

// The merged permission mode and the bypass switch.
void CheckModes(const MergedSettings& merged, const SettingsDocument& top, AuditContext* ctx) {
  auto [file, line] = SplitWhere(merged.default_mode_where);
  if (merged.default_mode == "bypassPermissions") {
    ctx->Add("error", "claude.bypass_permissions", kClaudeTool, file, line,
             "bypassPermissions skips every rule",
             "defaultMode \"bypassPermissions\" runs every tool without asking, deny rules aside; a "
             "review of untrusted code must keep asking.");
  } else if (merged.default_mode == "auto" || merged.default_mode == "acceptEdits") {
    ctx->Add("warning", "claude.permissive_mode", kClaudeTool, file, line,
             "a mode that approves on its own",
             "defaultMode \"" + merged.default_mode + "\" approves " +
                 (merged.default_mode == "auto" ? "tool calls a classifier considers safe"
                                                : "every file edit") +
                 " without asking; use \"default\" for a read-only review.");
  }
  if (!merged.bypass_disabled) {
    ctx->Add("warning", "claude.bypass_not_disabled", kClaudeTool, top.path,
             top.lines.LineOf("/permissions"), "bypass mode can still be switched on",
             "No layer sets permissions.disableBypassPermissionsMode to \"disable\", so "
             "--dangerously-skip-permissions or a mode switch turns every rule off.");
  }
}

// The denies a read-only review needs, probed with attnverify's own policy.
void CheckReviewDenies(const MergedSettings& merged, const SettingsDocument& top,
                       AuditContext* ctx) {
  struct Probe {
    const char* what;
    const char* command;
  };
  std::vector<std::string> missing;
  for (const Probe& p :
       {Probe{"push", "git push origin main"}, Probe{"delete", "rm -rf build"},
        Probe{"network", "curl https://example.com"}, Probe{"network", "wget https://example.com"},
        Probe{"network", "ssh host"}}) {
    if (DecideCommand(merged.permissions, p.command).decision != Verdict::kDeny) {
      missing.push_back(std::string("`") + p.command + "` (" + p.what + ")");
    }
  }
  bool edit_denied = false, write_denied = false;
  for (const PermissionRule& r : merged.permissions.deny) {
    edit_denied = edit_denied || ((r.tool == "Edit" || r.tool == "*") && !r.has_specifier);
    write_denied = write_denied || ((r.tool == "Write" || r.tool == "*") && !r.has_specifier);
  }
  if (!edit_denied) missing.push_back("Edit (the review is read-only)");
  if (!write_denied) missing.push_back("Write (the review is read-only)");
  if (missing.empty()) return;
  std::string list;
  for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
  ctx->Add("warning", "claude.deny_missing", kClaudeTool, top.path,
           top.lines.LineOf("/permissions/deny"), "denies the review needs are missing",
           "No deny rule, in any layer, stops " + list +
               ". Add Bash(git push:*), Bash(rm:*), "
               "Bash(curl:*), Bash(wget:*), Bash(ssh:*), Edit and Write.");
}

}  // namespace

void AuditClaude(const std::vector<SettingsDocument>& docs, AuditContext* ctx) {
  bool any_base_url = false;
  for (const SettingsDocument& doc : docs) {
    any_base_url = AuditClaudeDocument(doc, ctx) || any_base_url;
  }
  MergedSettings merged = MergeSettings(docs);
  for (const SettingsProblem& p : merged.problems) {
    auto [file, line] = SplitWhere(p.where);
    ctx->Add("error", "claude.invalid_rule", kClaudeTool, file, line,
             "Claude Code cannot read this",
             p.message + " (JSON path " + p.pointer +
                 "). Claude Code ignores the entry, so what it "
                 "was meant to allow or deny is not in effect.");
  }
  GradeRules(docs, merged.permissions.allow, GradeAllow, "claude.allow_too_broad", "allow", ctx);
  GradeRules(docs, merged.permissions.deny, GradeDeny, "claude.deny_cannot_hold", "deny", ctx);
  const SettingsDocument& top = docs.back();
  CheckModes(merged, top, ctx);
  if (!any_base_url) {
    ctx->Add("error", "claude.base_url_missing", kClaudeTool, top.path, 1, "no ANTHROPIC_BASE_URL",
             "No layer sets env.ANTHROPIC_BASE_URL, so Claude Code sends requests (and the key) to "
             "its default endpoint instead of the pinned provider.");
  }
  CheckReviewDenies(merged, top, ctx);
}

}  // namespace av::audit_internal
