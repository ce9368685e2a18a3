// DecideCommand: flattens the parsed script into subcommands, looks through exec wrappers
// and sh -c scripts, and matches each against the deny, ask and allow rules. The order of
// checks in DecideWords is the order of precedence: a deny match anywhere wins, then
// anything that cannot be known before the command runs (ask), then ask rules, then
// allow rules, and no allow rule is ask.
#include "policy/command_policy.h"

#include <sys/stat.h>

#include <set>
#include <string>

#include "policy/tool_options.h"
#include "shell/exec_wrappers.h"
#include "shell/shell_parse.h"

namespace av {
namespace {

constexpr int kMaxReparse = 4;   // sh -c inside sh -c inside ...
constexpr int kMaxWrappers = 8;  // nice timeout env ... nested wrappers

struct CompiledRule {
  const PermissionRule* rule = nullptr;
  BashPattern pattern;
};

std::vector<CompiledRule> Compile(const std::vector<PermissionRule>& rules) {
  std::vector<CompiledRule> out;
  for (const PermissionRule& r : rules) {
    if (IsBashRule(r)) out.push_back({&r, CompileBashRule(r)});
  }
  return out;
}

std::string RuleName(const PermissionRule& r) {
  return r.source.empty() ? r.text : r.text + " (" + r.source + ")";
}

// A command's words as the text rules match: values joined by single spaces.
struct Subject {
  std::string allow_text;    // expanding words as '\x01'; blanks inside a word as '\x02'
  std::string deny_text;     // expanding words as '\x01'; blanks inside a word kept
  std::string known_prefix;  // the words before the first expanding one, each + ' '
  bool fully_known = true;
};

Subject MakeSubject(const std::vector<ShellWord>& words) {
  Subject s;
  for (size_t i = 0; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    if (i > 0) {
      s.allow_text += ' ';
      s.deny_text += ' ';
    }
    if (!w.Literal()) {
      s.allow_text += '\x01';
      s.deny_text += '\x01';
      s.fully_known = false;
      continue;
    }
    for (char c : w.value) s.allow_text += (c == ' ' || c == '\t' || c == '\n') ? '\x02' : c;
    s.deny_text += w.value;
    if (s.fully_known) s.known_prefix += w.value + " ";
  }
  return s;
}

// git's options before its subcommand. `risky` ones pick another repository, config or
// program (a repository's config can name programs git runs: core.fsmonitor, diff.external).
struct GitView {
  std::vector<ShellWord> words;  // git <subcommand> ... without the global options
  bool risky = false;
  bool understood = true;
};

GitView NormalizeGit(const std::vector<ShellWord>& words) {
  static const std::set<std::string> kSafeFlags = {"--no-pager",
                                                   "-P",
                                                   "--no-optional-locks",
                                                   "--literal-pathspecs",
                                                   "--glob-pathspecs",
                                                   "--noglob-pathspecs",
                                                   "--icase-pathspecs",
                                                   "--no-replace-objects",
                                                   "--no-lazy-fetch",
                                                   "--no-advice",
                                                   "-p",
                                                   "--paginate"};
  static const std::set<std::string> kRiskyWithValue = {
      "-C",          "-c",          "--git-dir",    "--work-tree",
      "--namespace", "--exec-path", "--config-env", "--super-prefix"};
  GitView g;
  g.words.push_back(words[0]);
  size_t i = 1;
  for (; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    const std::string& v = w.value;
    if (!w.Literal() || v.empty() || v[0] != '-') break;
    if (kSafeFlags.count(v)) continue;
    if (v == "--bare") {
      g.risky = true;
      continue;
    }
    std::string name = v.substr(0, v.find('='));
    if (kRiskyWithValue.count(name)) {
      g.risky = true;
      if (name == v) ++i;  // the value is the next word
      continue;
    }
    g.understood = false;
    break;
  }
  for (; i < words.size(); ++i) g.words.push_back(words[i]);
  return g;
}

bool IsTrustedProgramPath(const std::string& name) {
  if (name.find('/') == std::string::npos) return true;
  for (const char* dir : {"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/"}) {
    std::string d = dir;
    if (name.compare(0, d.size(), d) == 0 && name.find('/', d.size()) == std::string::npos) {
      return true;
    }
  }
  return false;
}

// Environment names a command may set before it runs or a script may assign: values that
// only change formatting, locale, GPU choice or thread counts. Lower-case names are the
// shell's own variables (except the *_proxy family programs read). Any other name may
// change what a later program loads or runs (PATH, LD_PRELOAD, GIT_*, PYTHONPATH, BASH_ENV).
bool IsSafeVariable(const std::string& name) {
  static const std::set<std::string> kSafe = {"LANG",
                                              "LANGUAGE",
                                              "TZ",
                                              "TERM",
                                              "COLUMNS",
                                              "LINES",
                                              "NO_COLOR",
                                              "FORCE_COLOR",
                                              "CLICOLOR",
                                              "CLICOLOR_FORCE",
                                              "CUDA_VISIBLE_DEVICES",
                                              "CUDA_LAUNCH_BLOCKING",
                                              "CUDA_DEVICE_ORDER",
                                              "CUDA_MODULE_LOADING",
                                              "OMP_NUM_THREADS",
                                              "MKL_NUM_THREADS",
                                              "OPENBLAS_NUM_THREADS",
                                              "PYTHONHASHSEED",
                                              "PYTHONUNBUFFERED",
                                              "PYTHONDONTWRITEBYTECODE",
                                              "NCCL_DEBUG",
                                              "CUBLAS_WORKSPACE_CONFIG",
                                              "TORCH_SHOW_CPP_STACKTRACES"};
  if (name.compare(0, 3, "LC_") == 0) return true;
  if (kSafe.count(name)) return true;
  bool lower = !name.empty();
  for (char c : name)
    lower = lower && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  return lower && name.find("proxy") == std::string::npos;
}

std::string AssignedName(const ShellWord& w) {
  std::string name = w.value.substr(0, w.value.find('='));
  if (!name.empty() && name.back() == '+') name.pop_back();
  return name.substr(0, name.find('['));
}

std::string LexicalNormal(const std::string& path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(pos, slash - pos);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = slash + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

// The script is parsed as bash reads it, but dash (Debian's sh) reads $'\x2d' and $"x" as a
// '$' before a quoted string: the words it runs are not the ones the policy judged (the
// corpus test found `sh -c "nvcc -o $'attention-verify/x.o' ..."` writing `$attention-verify`).
constexpr const char* kBashOnlyQuoting =
    "$'...' and $\"...\" make other words in sh than in bash, which the policy reads";
bool HasBashOnlyQuoting(const std::string& script) {
  return script.find("$'") != std::string::npos || script.find("$\"") != std::string::npos;
}

std::string JoinValues(const std::vector<ShellWord>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? " " : "") + words[i].source;
  return out;
}

std::vector<ShellWord> Slice(const std::vector<ShellWord>& words, size_t begin, size_t end) {
  return std::vector<ShellWord>(words.begin() + begin, words.begin() + end);
}

struct RuleCheck {
  Verdict verdict = Verdict::kAllow;  // kAllow: no deny or ask rule applies
  std::string rule;
  std::string reason;
};

class Evaluator {
 public:
  explicit Evaluator(const PermissionSettings& s)
      : s_(s), allow_(Compile(s.allow)), ask_(Compile(s.ask)), deny_(Compile(s.deny)) {}

  void RunScript(const ShellScript& script, int reparse) {
    for (const ShellConstruct& c : script.undecided) {
      out.push_back({c.text, Verdict::kAsk, "", c.what + ": never allowed without asking"});
    }
    for (const SimpleCommand& cmd : script.commands) Command(cmd, reparse);
  }

  std::vector<SubcommandDecision> out;

 private:
  void Command(const SimpleCommand& cmd, int reparse) {
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

  static void Downgrade(SubcommandDecision* d, const std::vector<std::string>& asks) {
    if (d->decision != Verdict::kAllow || asks.empty()) return;
    d->decision = Verdict::kAsk;
    d->reason = asks[0] + (d->rule.empty() ? "" : " (otherwise allowed by " + d->rule + ")");
    d->rule.clear();
  }

  RuleCheck CheckDenyAndAsk(const std::vector<ShellWord>& words) const {
    std::vector<std::vector<ShellWord>> variants = {words};
    if (words[0].Literal() && words[0].value.find('/') != std::string::npos) {
      std::vector<ShellWord> v = words;
      v[0].value = Basename(v[0].value);  // /bin/rm is rm for a deny rule
      variants.push_back(v);
    }
    if (words[0].Literal() && Basename(words[0].value) == "git") {
      GitView g = NormalizeGit(variants.back());
      g.words[0].value = "git";
      variants.push_back(g.words);
    }
    RuleCheck result;
    for (const auto& v : variants) {
      Subject s = MakeSubject(v);
      for (const CompiledRule& r : deny_) {
        if (BashPatternMatches(r.pattern, s.deny_text)) {
          return {Verdict::kDeny, RuleName(*r.rule), "matches a deny rule"};
        }
        if (!s.fully_known && result.verdict == Verdict::kAllow &&
            BashPatternMayMatch(r.pattern, s.known_prefix)) {
          result = {Verdict::kAsk, RuleName(*r.rule),
                    "may match a deny rule once its expansions are known"};
        }
      }
    }
    if (result.verdict != Verdict::kAllow) return result;
    for (const auto& v : variants) {
      Subject s = MakeSubject(v);
      for (const CompiledRule& r : ask_) {
        if (BashPatternMatches(r.pattern, s.deny_text) ||
            (!s.fully_known && BashPatternMayMatch(r.pattern, s.known_prefix))) {
          return {Verdict::kAsk, RuleName(*r.rule), "matches an ask rule"};
        }
      }
    }
    return result;
  }

  // A wrapper we cannot read: a deny rule may still match the words from any position.
  RuleCheck DenyAnywhere(const std::vector<ShellWord>& words) const {
    for (size_t k = 1; k < words.size(); ++k) {
      if (!words[k].Literal() || words[k].value.empty() || words[k].value[0] == '-') continue;
      RuleCheck c = CheckDenyAndAsk(Slice(words, k, words.size()));
      if (c.verdict == Verdict::kDeny) return c;
    }
    return {};
  }

  const CompiledRule* MatchAllow(const std::vector<ShellWord>& words) const {
    Subject s = MakeSubject(words);
    for (const CompiledRule& r : allow_) {
      if (BashPatternMatches(r.pattern, s.allow_text)) return &r;
    }
    return nullptr;
  }

  SubcommandDecision DecideWords(const std::vector<ShellWord>& words, const std::string& text,
                                 int reparse, int wrappers) {
    SubcommandDecision d{text, Verdict::kAsk, "", ""};
    RuleCheck rc = CheckDenyAndAsk(words);
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
      if (base == "eval") return DecideEval(words, text, reparse);
      if (base == "source" || base == ".") {
        d.reason = base + " runs a file's commands in this shell";
        return d;
      }
      if (base == "alias" || base == "trap" || base == "enable" || base == "hash" ||
          base == "let" || base == "fc" || base == "bind" || base == "complete") {
        d.reason = base + " can make later commands run something else";
        return d;
      }
      if (base == "declare" || base == "typeset" || base == "local" || base == "readonly" ||
          base == "export") {
        return DecideDeclare(words, text, rc);
      }
      bool bare_exec = base == "exec" && words.size() == 1;  // only its redirections act
      if (base == "true" || base == "false" || base == ":" || base == "test" || base == "[" ||
          base == "[[" || bare_exec) {
        if (rc.verdict == Verdict::kAsk) return {text, Verdict::kAsk, rc.rule, rc.reason};
        return {text, Verdict::kAllow, "(shell builtin)", "a test or no-op without side effects"};
      }
    }
    if (wrappers >= kMaxWrappers) {
      d.reason = "wrappers nest too deeply";
      return d;
    }
    Unwrapped u = Unwrap(words);
    if (u.kind == WrapperKind::kShell) return DecideShell(words, text, u, trusted, rc, reparse);
    if (u.kind != WrapperKind::kNone && !u.understood) {
      RuleCheck any = DenyAnywhere(words);
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
          DecideWords(Slice(words, r.begin, r.end), JoinValues(Slice(words, r.begin, r.end)),
                      reparse, wrappers + 1);
      if (inner.decision == Verdict::kDeny)
        return {text, Verdict::kDeny, inner.rule, "wraps a command that " + inner.reason};
    }
    if (u.kind == WrapperKind::kTool) {
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
        if (HasBashOnlyQuoting(u.script)) asks.push_back(base + " runs sh -c: " + kBashOnlyQuoting);
      }
      if (!u.writes.empty()) asks.push_back(u.writes);
      if (!u.runs.empty()) asks.push_back(u.runs);
      for (const ShellWord& path : u.written) {
        std::string why = CheckWrite(path);
        if (!why.empty()) asks.push_back(base + " " + why);
      }
    }
    Downgrade(&d, asks);
    return d;
  }

  SubcommandDecision MatchRegular(const std::vector<ShellWord>& words, const std::string& text,
                                  const RuleCheck& rc) {
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
      allow = MatchAllow(g.words);
      if (seen_cd_) {
        asks.push_back(
            "git after cd: a repository there can make git run its own programs "
            "(core.fsmonitor, hooks)");
      }
    }
    if (allow == nullptr) allow = MatchAllow(words);
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

  SubcommandDecision DecideShell(const std::vector<ShellWord>& words, const std::string& text,
                                 const Unwrapped& u, bool trusted, const RuleCheck& rc,
                                 int reparse) {
    std::string prog = Basename(words[0].value);
    if (!u.understood) return {text, Verdict::kAsk, "", u.reason};
    size_t before = out.size();
    DecideScript(u.script, prog + " -c", reparse);
    bool denied = false;
    for (size_t i = before; i < out.size(); ++i)
      denied = denied || out[i].decision == Verdict::kDeny;
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

  void DecideScript(const std::string& script, const std::string& what, int reparse) {
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

  SubcommandDecision DecideEval(const std::vector<ShellWord>& words, const std::string& text,
                                int reparse) {
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

  SubcommandDecision DecideDeclare(const std::vector<ShellWord>& words, const std::string& text,
                                   const RuleCheck& rc) {
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
        return {text, Verdict::kAsk, "",
                base + " sets " + AssignedName(w) +
                    ", which can change what later programs load or run"};
      }
    }
    if (rc.verdict == Verdict::kAsk) return {text, Verdict::kAsk, rc.rule, rc.reason};
    return {text, Verdict::kAllow, "(shell builtin)", "sets shell variables only"};
  }

  // Empty when writing `target` is fine; otherwise why it is asked about. A file must lie
  // inside the package folder; `package_itself` also accepts the folder (attnverify's
  // --package, --work, --export name folders it writes in).
  std::string CheckWrite(const ShellWord& target, bool package_itself = false) const {
    if (!target.Literal())
      return "writes to a file named only when it runs (" + target.source + ")";
    const std::string& v = target.value;
    if (v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr") return "";
    if (v.compare(0, 8, "/dev/fd/") == 0 && v.size() > 8 &&
        v.find_first_not_of("0123456789", 8) == std::string::npos) {
      return "";
    }
    if (s_.package_dir.empty()) return "writes " + v + " (no package folder is set)";
    std::string path = v;
    if (v.empty() || v[0] != '/') {
      if (seen_cd_) return "writes " + v + " after cd, in a folder not known before it runs";
      if (s_.cwd.empty()) return "writes " + v + " (the working folder is not known)";
      path = s_.cwd + "/" + v;
    }
    std::string norm = LexicalNormal(path);
    std::string pkg = LexicalNormal(s_.package_dir);
    if (norm.compare(0, pkg.size() + 1, pkg + "/") != 0 && !(package_itself && norm == pkg)) {
      return "writes " + v + ", outside the package folder " + pkg;
    }
    if (s_.check_symlinks) {
      for (size_t slash = pkg.size() + 1; slash != std::string::npos;
           slash = norm.find('/', slash + 1)) {
        std::string part = norm.substr(0, norm.find('/', slash + 1));
        struct stat st;
        if (::lstat(part.c_str(), &st) != 0) break;
        if (S_ISLNK(st.st_mode)) return "writes " + v + " through the symbolic link " + part;
        if (part == norm) break;
      }
    }
    return "";
  }

  const PermissionSettings& s_;
  std::vector<CompiledRule> allow_, ask_, deny_;
  bool seen_cd_ = false;
};

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kAsk:
      return "ask";
    case Verdict::kDeny:
      return "deny";
  }
  return "ask";
}

Decision DecideCommand(const PermissionSettings& settings, std::string_view command) {
  Decision d;
  if (command.find_first_not_of(" \t\n") == std::string_view::npos) {
    d.reason = "an empty command";
    return d;
  }
  for (size_t i = 0; i < command.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(command[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
      // A carriage return or an escape sequence can make a terminal show one command and
      // the shell run another; a NUL ends the string early for some readers.
      d.reason = "the command holds control character 0x" +
                 std::string(1, "0123456789abcdef"[c >> 4]) +
                 std::string(1, "0123456789abcdef"[c & 15]) + " at byte " + std::to_string(i);
      return d;
    }
  }
  Result<ShellScript> script = ParseShell(command);
  if (!script.ok()) {
    d.reason = "not understood: " + script.status().message();
    return d;
  }
  Evaluator ev(settings);
  ev.RunScript(*script, 0);
  d.subcommands = std::move(ev.out);
  if (d.subcommands.empty()) {
    d.reason = "nothing to run";
    return d;
  }
  d.decision = Verdict::kAllow;
  for (const SubcommandDecision& s : d.subcommands) {
    if (s.decision > d.decision) d.decision = s.decision;
  }
  for (const SubcommandDecision& s : d.subcommands) {
    if (s.decision != d.decision) continue;
    d.reason = "`" + s.text + "`: " + s.reason + (s.rule.empty() ? "" : " " + s.rule);
    break;
  }
  if (d.decision == Verdict::kAllow) {
    d.reason = d.subcommands.size() == 1 ? d.subcommands[0].reason + " " + d.subcommands[0].rule
                                         : "every subcommand is allowed";
  }
  return d;
}

}  // namespace av
