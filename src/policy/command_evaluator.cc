// The Evaluator of command_evaluator.h, in the order a command is decided: the script's
// subcommands, one command's words (builtins, wrappers, then the rules), the commands a
// tool wrapper runs, a program against the allow rules, and nested scripts.
#include "policy/command_evaluator.h"

#include "policy/command_words.h"
#include "policy/tool_options.h"
#include "policy/write_check.h"

namespace av::policy_detail {
namespace {

constexpr int kMaxReparse = 4;   // sh -c inside sh -c inside ...
constexpr int kMaxWrappers = 8;  // nice timeout env ... nested wrappers

}  // namespace

Evaluator::Evaluator(const PermissionSettings& settings) : s_(settings), rules_(settings) {}

void Evaluator::RunScript(const ShellScript& script, int reparse) {
  for (const ShellConstruct& c : script.undecided) {
    out.push_back({c.text, Verdict::kAsk, "", c.what + ": never allowed without asking"});
  }
  for (const SimpleCommand& cmd : script.commands) Command(cmd, reparse);
}

void Evaluator::Command(const SimpleCommand& cmd, int reparse) {
  std::vector<std::string> asks;
  for (const ShellRedirection& r : cmd.redirections) {
    if (!r.writes) continue;
    std::string why = CheckWrite(r.target);
    if (!why.empty()) asks.push_back(why);
  }
  for (const ShellWord& w : cmd.words) {
    // printf -v, read, unset, declare and [[ -v ]] evaluate a subscript in a name such
    // as 'a[$(cmd)]' as arithmetic, running cmd even from single quotes.
    const std::string& v = w.value;
    if (v.find('[') != std::string::npos &&
        (v.find("$(") != std::string::npos || v.find('`') != std::string::npos ||
         v.find("${") != std::string::npos)) {
      asks.push_back("the argument " + w.source + " may be evaluated as an array subscript");
    }
  }
  for (const ShellWord& a : cmd.assignments) {
    std::string name = AssignedName(a);
    if (!IsSafeVariable(name)) {
      asks.push_back("assigns " + name + ", which can change what later programs load or run");
    }
  }
  SubcommandDecision d;
  if (cmd.words.empty()) {
    d = {cmd.text, Verdict::kAllow, "",
         cmd.assignments.empty() ? "redirection only" : "assignment"};
  } else {
    d = DecideWords(cmd.words, cmd.text, reparse, 0);
  }
  Downgrade(&d, asks);
  out.push_back(d);
  if (!cmd.words.empty() && cmd.words[0].Literal()) {
    std::string name = cmd.words[0].value;
    if (name == "cd" || name == "pushd" || name == "popd") seen_cd_ = true;
  }
}

void Evaluator::Downgrade(SubcommandDecision* d, const std::vector<std::string>& asks) {
  if (d->decision != Verdict::kAllow || asks.empty()) return;
  d->decision = Verdict::kAsk;
  d->reason = asks[0] + (d->rule.empty() ? "" : " (otherwise allowed by " + d->rule + ")");
  d->rule.clear();
}

SubcommandDecision Evaluator::DecideWords(const std::vector<ShellWord>& words,
                                          const std::string& text, int reparse, int wrappers) {
  SubcommandDecision d{text, Verdict::kAsk, "", ""};
  RuleCheck rc = rules_.CheckDenyAndAsk(words);
  if (rc.verdict == Verdict::kDeny) return {text, Verdict::kDeny, rc.rule, rc.reason};
  const ShellWord& name = words[0];
  if (!name.Literal()) {
    d.reason = "the command name is only known when it runs (" + name.source + ")";
    if (!rc.rule.empty()) d.reason += "; it " + rc.reason + " " + rc.rule;
    return d;
  }
  std::string base = Basename(name.value);
  bool trusted = IsTrustedProgramPath(name.value);
  bool builtin_name = name.value.find('/') == std::string::npos;
  if (builtin_name) {
    std::optional<SubcommandDecision> builtin = DecideBuiltin(words, text, rc, reparse);
    if (builtin) return *builtin;
  }
  if (wrappers >= kMaxWrappers) {
    d.reason = "wrappers nest too deeply";
    return d;
  }
  Unwrapped u = Unwrap(words);
  if (u.kind == WrapperKind::kShell) return DecideShell(words, text, u, trusted, rc, reparse);
  if (u.kind != WrapperKind::kNone && !u.understood) {
    RuleCheck any = rules_.DenyAnywhere(words);
    if (any.verdict == Verdict::kDeny) {
      return {text, Verdict::kDeny, any.rule, "wraps a command that " + any.reason};
    }
    d.reason = u.reason;
    return d;
  }
  if (u.changes_directory) seen_cd_ = true;
  std::vector<std::string> asks;
  for (const ShellWord& a : u.assignments) {
    if (!IsSafeVariable(AssignedName(a))) {
      asks.push_back(base + " sets " + AssignedName(a) +
                     ", which can change what the program loads or runs");
    }
  }
  if (u.kind == WrapperKind::kTransparent && !u.inners.empty() && trusted) {
    const WordRange& r = u.inners[0];
    SubcommandDecision inner =
        DecideWords(Slice(words, r.begin, r.end), text, reparse, wrappers + 1);
    if (rc.verdict == Verdict::kAsk && inner.decision == Verdict::kAllow) {
      return {text, Verdict::kAsk, rc.rule, rc.reason};
    }
    Downgrade(&inner, asks);
    return inner;
  }
  d = MatchRegular(words, text, rc);
  if (u.kind == WrapperKind::kTransparent && !u.inners.empty()) {  // ./timeout: not ours
    const WordRange& r = u.inners[0];
    SubcommandDecision inner =
        DecideWords(Slice(words, r.begin, r.end), JoinValues(Slice(words, r.begin, r.end)), reparse,
                    wrappers + 1);
    if (inner.decision == Verdict::kDeny)
      return {text, Verdict::kDeny, inner.rule, "wraps a command that " + inner.reason};
  }
  if (u.kind == WrapperKind::kTool) DecideToolWrapper(words, u, reparse, wrappers, &asks);
  Downgrade(&d, asks);
  return d;
}

std::optional<SubcommandDecision> Evaluator::DecideBuiltin(const std::vector<ShellWord>& words,
                                                           const std::string& text,
                                                           const RuleCheck& rc, int reparse) {
  const std::string& base = words[0].value;
  if (base == "eval") return DecideEval(words, text, reparse);
  if (base == "source" || base == ".") {
    return SubcommandDecision{text, Verdict::kAsk, "",
                              base + " runs a file's commands in this shell"};
  }
  if (base == "alias" || base == "trap" || base == "enable" || base == "hash" || base == "let" ||
      base == "fc" || base == "bind" || base == "complete") {
    return SubcommandDecision{text, Verdict::kAsk, "",
                              base + " can make later commands run something else"};
  }
  if (base == "declare" || base == "typeset" || base == "local" || base == "readonly" ||
      base == "export") {
    return DecideDeclare(words, text, rc);
  }
  bool bare_exec = base == "exec" && words.size() == 1;  // only its redirections act
  if (base == "true" || base == "false" || base == ":" || base == "test" || base == "[" ||
      base == "[[" || bare_exec) {
    if (rc.verdict == Verdict::kAsk) {
      return SubcommandDecision{text, Verdict::kAsk, rc.rule, rc.reason};
    }
    return SubcommandDecision{text, Verdict::kAllow, "(shell builtin)",
                              "a test or no-op without side effects"};
  }
  return std::nullopt;
}

void Evaluator::DecideToolWrapper(const std::vector<ShellWord>& words, const Unwrapped& u,
                                  int reparse, int wrappers, std::vector<std::string>* asks) {
  std::string base = Basename(words[0].value);
  for (const WordRange& r : u.inners) {
    std::vector<ShellWord> inner_words = Slice(words, r.begin, r.end);
    if (base == "xargs") {
      // xargs appends words read from its input: any of them may be an option of the
      // tool it runs (`git status --porcelain | xargs git diff` with a file named
      // --output=F). They stand as one word known only when it runs.
      ShellWord input;
      input.value = input.source = "<xargs input>";
      input.expands = input.splits = true;
      input.fixed = 0;
      inner_words.push_back(input);
    }
    SubcommandDecision inner =
        DecideWords(inner_words, JoinValues(inner_words), reparse, wrappers + 1);
    inner.reason = "run by " + base + ": " + inner.reason;
    out.push_back(inner);
  }
  if (u.implied_echo) {
    ShellWord echo;
    echo.value = echo.source = "echo";
    SubcommandDecision inner = DecideWords({echo}, "echo", reparse, wrappers + 1);
    inner.reason = "run by xargs: " + inner.reason;
    out.push_back(inner);
  }
  if (u.has_script) {
    DecideScript(u.script, base, reparse);
    if (HasBashOnlyQuoting(u.script)) asks->push_back(base + " runs sh -c: " + kBashOnlyQuoting);
  }
  if (!u.writes.empty()) asks->push_back(u.writes);
  if (!u.runs.empty()) asks->push_back(u.runs);
  for (const ShellWord& path : u.written) {
    std::string why = CheckWrite(path);
    if (!why.empty()) asks->push_back(base + " " + why);
  }
}

SubcommandDecision Evaluator::MatchRegular(const std::vector<ShellWord>& words,
                                           const std::string& text, const RuleCheck& rc) {
  if (rc.verdict == Verdict::kAsk) return {text, Verdict::kAsk, rc.rule, rc.reason};
  std::string base = Basename(words[0].value);
  const CompiledRule* allow = nullptr;
  std::vector<std::string> asks;
  std::vector<ShellWord> tool_words = words;  // git without its global options
  if (base == "git" && words[0].value == "git") {
    GitView g = NormalizeGit(words);
    tool_words = g.words;
    if (g.risky) {
      asks.push_back(
          "git -C, -c, --git-dir, --work-tree or --exec-path pick another "
          "repository, configuration or program");
    } else if (!g.understood) {
      asks.push_back("git has a global option the policy does not know");
    }
    allow = rules_.MatchAllow(g.words);
    if (seen_cd_) {
      asks.push_back(
          "git after cd: a repository there can make git run its own programs "
          "(core.fsmonitor, hooks)");
    }
  }
  if (allow == nullptr) allow = rules_.MatchAllow(words);
  if (allow == nullptr) return {text, Verdict::kAsk, "", "no allow rule matches"};
  // The tool's own options: unknown ones, ones that run programs or reach the network,
  // words bash may turn into options, and the paths it writes (judged like redirections).
  ToolEffects tool = ToolOptionEffects(tool_words);
  asks.insert(asks.end(), tool.asks.begin(), tool.asks.end());
  for (const ShellWord& path : tool.writes) {
    std::string why = CheckWrite(path, /*package_itself=*/base == "attnverify");
    if (!why.empty()) asks.push_back(base + " " + why);
  }
  if (base == "tee") {
    bool options = true;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& v = words[i].value;
      if (options && v == "--") {
        options = false;
        continue;
      }
      if (options && words[i].Literal() && v.size() > 1 && v[0] == '-') continue;
      std::string why = CheckWrite(words[i]);
      if (!why.empty()) asks.push_back("tee " + why);
    }
  }
  SubcommandDecision d{text, Verdict::kAllow, RuleName(*allow->rule), "matches an allow rule"};
  Downgrade(&d, asks);
  return d;
}

std::string Evaluator::CheckWrite(const ShellWord& target, bool package_itself) const {
  return policy_detail::CheckWrite(s_, seen_cd_, target, package_itself);
}

SubcommandDecision Evaluator::DecideShell(const std::vector<ShellWord>& words,
                                          const std::string& text, const Unwrapped& u, bool trusted,
                                          const RuleCheck& rc, int reparse) {
  std::string prog = Basename(words[0].value);
  if (!u.understood) return {text, Verdict::kAsk, "", u.reason};
  size_t before = out.size();
  DecideScript(u.script, prog + " -c", reparse);
  bool denied = false;
  for (size_t i = before; i < out.size(); ++i) denied = denied || out[i].decision == Verdict::kDeny;
  if (denied)
    return {text, Verdict::kDeny, "", prog + " -c runs a command that matches a deny rule"};
  if (rc.verdict == Verdict::kAsk) return {text, Verdict::kAsk, rc.rule, rc.reason};
  if (prog != "bash" && HasBashOnlyQuoting(u.script)) {
    return {text, Verdict::kAsk, "", prog + " is not bash: " + kBashOnlyQuoting};
  }
  if (!trusted) return MatchRegular(words, text, rc);
  return {text, Verdict::kAllow, "(" + prog + " -c)",
          "its script's commands are decided one by one"};
}

void Evaluator::DecideScript(const std::string& script, const std::string& what, int reparse) {
  if (reparse + 1 > kMaxReparse) {
    out.push_back({script, Verdict::kAsk, "", what + ": scripts nest too deeply"});
    return;
  }
  Result<ShellScript> parsed = ParseShell(script, reparse + 1);
  if (!parsed.ok()) {
    out.push_back({script, Verdict::kAsk, "",
                   "the script of " + what + " is not understood: " + parsed.status().message()});
    return;
  }
  RunScript(*parsed, reparse + 1);
}

SubcommandDecision Evaluator::DecideEval(const std::vector<ShellWord>& words,
                                         const std::string& text, int reparse) {
  std::string script;
  for (size_t i = 1; i < words.size(); ++i) {
    if (!words[i].Literal()) {
      return {text, Verdict::kAsk, "", "eval runs text that is only known when it runs"};
    }
    script += (i > 1 ? " " : "") + words[i].value;
  }
  size_t before = out.size();
  DecideScript(script, "eval", reparse);
  for (size_t i = before; i < out.size(); ++i) {
    if (out[i].decision == Verdict::kDeny) {
      return {text, Verdict::kDeny, out[i].rule, "eval runs a command that matches a deny rule"};
    }
  }
  return {text, Verdict::kAsk, "", "eval runs its arguments as a new command"};
}

SubcommandDecision Evaluator::DecideDeclare(const std::vector<ShellWord>& words,
                                            const std::string& text, const RuleCheck& rc) {
  std::string base = words[0].value;
  for (size_t i = 1; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    if (!w.Literal())
      return {text, Verdict::kAsk, "", base + " with an argument only known when it runs"};
    const std::string& v = w.value;
    if (v.size() > 1 && (v[0] == '-' || v[0] == '+')) {
      // -i evaluates values as arithmetic, -n makes a name reference, -f defines functions.
      if (v.find_first_of("inf") != std::string::npos) {
        return {text, Verdict::kAsk, "", base + " " + v + " can make values run as code"};
      }
      continue;
    }
    if (!IsSafeVariable(AssignedName(w))) {
      return {
          text, Verdict::kAsk, "",
          base + " sets " + AssignedName(w) + ", which can change what later programs load or run"};
    }
  }
  if (rc.verdict == Verdict::kAsk) return {text, Verdict::kAsk, rc.rule, rc.reason};
  return {text, Verdict::kAllow, "(shell builtin)", "sets shell variables only"};
}

}  // namespace av::policy_detail
