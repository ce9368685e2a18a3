// The reader of the allowed tools' option tables (tool_option_tables.h). A
// table lists every option the policy lets through: what it takes (nothing, a value in the
// next word or after '=', a value only when attached) and what it does (nothing the rule
// does not already grant, writes the path it names, runs a program, talks to the network,
// passes options on to the host compiler or ptxas). Anything else is asked about: a tool's
// unknown option is a behaviour nobody has judged. Option lists are from each tool's
// --help (nvcc 13.0, git 2.39, pytest 7.2 / argparse, attnverify's own CLI).
#include "policy/tool_options.h"

#include <algorithm>
#include <string_view>

#include "policy/tool_option_tables.h"
#include "shell/exec_wrappers.h"

namespace av {
namespace {

using tool_tables::Does;
using tool_tables::GitDiff;
using tool_tables::GitStatus;
using tool_tables::Grammar;
using tool_tables::Nvcc;
using tool_tables::Opt;
using tool_tables::Pytest;
using tool_tables::Takes;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool AllOf(std::string_view s, std::string_view chars) {
  return !s.empty() && s.find_first_not_of(chars) == std::string_view::npos;
}

// gcc/g++ options that neither run a program nor write a file: -wrapper, -B, -fplugin,
// -specs, @FILE, -o, -M*, -save-temps, -fdump-*, -Wl,/-Wa,/-Wp, are all outside this list.
bool HostOptionIsSafe(std::string_view t) {
  static const std::vector<std::string_view> kExact = {"-O0",
                                                       "-O1",
                                                       "-O2",
                                                       "-O3",
                                                       "-Os",
                                                       "-Ofast",
                                                       "-Og",
                                                       "-g",
                                                       "-g0",
                                                       "-g1",
                                                       "-g2",
                                                       "-g3",
                                                       "-ggdb",
                                                       "-fPIC",
                                                       "-fpic",
                                                       "-fPIE",
                                                       "-fpie",
                                                       "-fopenmp",
                                                       "-pthread",
                                                       "-w",
                                                       "-pedantic",
                                                       "-ffast-math",
                                                       "-funroll-loops",
                                                       "-fexceptions",
                                                       "-frtti",
                                                       "-fpermissive",
                                                       "-fwrapv",
                                                       "-ftrapv",
                                                       "-fomit-frame-pointer",
                                                       "-fstack-protector",
                                                       "-fstack-protector-strong",
                                                       "-fcf-protection",
                                                       "-finline-functions",
                                                       "-rdynamic",
                                                       "-fdiagnostics-color"};
  static const std::vector<std::string_view> kPrefixes = {"-std=",
                                                          "-march=",
                                                          "-mtune=",
                                                          "-mcpu=",
                                                          "-fvisibility=",
                                                          "-fsanitize=",
                                                          "-fdiagnostics-color=",
                                                          "-ffp-contract=",
                                                          "-fmax-errors=",
                                                          "-fexcess-precision=",
                                                          "-D",
                                                          "-U"};
  if (std::find(kExact.begin(), kExact.end(), t) != kExact.end()) return true;
  for (std::string_view p : kPrefixes) {
    if (StartsWith(t, p) && t.size() > p.size()) return true;
  }
  // -W<warning> and -Wno-<warning>, but not -Wl, -Wa, -Wp (which pass options on).
  if (StartsWith(t, "-W") && t.size() > 3 && t[2] != 'l' && t[2] != 'a' && t[2] != 'p' &&
      AllOf(t.substr(2), "abcdefghijklmnopqrstuvwxyz0123456789-=")) {
    return true;
  }
  if (StartsWith(t, "-Wpedantic") || t == "-Wall") return true;
  // -fno-<feature> switches a feature off; -m<flag> picks instructions (-mavx2, -mfma).
  if (StartsWith(t, "-fno-") && AllOf(t.substr(5), "abcdefghijklmnopqrstuvwxyz0123456789-")) {
    return true;
  }
  if (StartsWith(t, "-m") && AllOf(t.substr(2), "abcdefghijklmnopqrstuvwxyz0123456789-.")) {
    return true;
  }
  // -I<dir> reads headers; -isystem needs its value in the next option, so not here.
  return StartsWith(t, "-I") && t.size() > 2 && t.find(',') == std::string_view::npos;
}

bool PtxasOptionIsSafe(std::string_view t) {
  static const std::vector<std::string_view> kExact = {"-v",
                                                       "--verbose",
                                                       "-O0",
                                                       "-O1",
                                                       "-O2",
                                                       "-O3",
                                                       "-lineinfo",
                                                       "--generate-line-info",
                                                       "-g",
                                                       "--device-debug",
                                                       "-warn-spills",
                                                       "--warn-on-spills",
                                                       "-warn-lmem-usage",
                                                       "--warn-on-local-memory-usage",
                                                       "-warn-double-usage",
                                                       "--warn-on-double-precision-use",
                                                       "-Werror",
                                                       "--warning-as-error",
                                                       "-w",
                                                       "--disable-warnings",
                                                       "--suppress-stack-size-warning",
                                                       "-suppress-stack-size-warning",
                                                       "--suppress-double-demote-warning",
                                                       "-c",
                                                       "--compile-only"};
  static const std::vector<std::string_view> kPrefixes = {"--allow-expensive-optimizations=",
                                                          "-allow-expensive-optimizations=",
                                                          "-dlcm=",
                                                          "--def-load-cache=",
                                                          "-dscm=",
                                                          "--def-store-cache=",
                                                          "--maxrregcount=",
                                                          "-maxrregcount=",
                                                          "--fmad=",
                                                          "-fmad=",
                                                          "-O"};
  if (std::find(kExact.begin(), kExact.end(), t) != kExact.end()) return true;
  for (std::string_view p : kPrefixes) {
    if (StartsWith(t, p) && t.size() > p.size() &&
        AllOf(t.substr(p.size()), "0123456789abcdefghijklmnopqrstuvwxyz")) {
      return true;
    }
  }
  return false;
}

// The value part of `w` from byte `at` on, as a word of its own (its flags carried over).
ShellWord Tail(const ShellWord& w, size_t at) {
  ShellWord t = w;
  t.value = w.value.substr(std::min(at, w.value.size()));
  if (w.fixed != std::string::npos) t.fixed = w.fixed > at ? w.fixed - at : 0;
  return t;
}

// Reads one tool's words against its Grammar: every option, its value, and what it does
// (ToolEffects: why to ask, paths written).
class ArgReader {
 public:
  ArgReader(const Grammar& g, const std::vector<ShellWord>& words, ToolEffects* out)
      : g_(g), words_(words), out_(out) {}

  // Reads words_[first...]: options until "--" (where the tool has it), then operands.
  void Read(size_t first);

 private:
  const Opt* Find(std::string_view name) const;
  void Ask(const std::string& why) { out_->asks.push_back(std::string(g_.tool) + ": " + why); }

  // The option at words_[i]; returns the index after it (and its value).
  size_t ReadOption(size_t i);
  // -vx, -kEXPR, -U5: one-letter options, the first one that takes a value ends the word.
  size_t ReadBundle(size_t i);
  // What option `o` (with its value, if any) does: asks and written paths into out_.
  void Apply(const Opt& o, const ShellWord* value);

  const Grammar& g_;
  const std::vector<ShellWord>& words_;
  ToolEffects* out_;
};

void ArgReader::Read(size_t first) {
  bool options = true;
  for (size_t i = first; i < words_.size();) {
    const ShellWord& w = words_[i];
    if (!options) {  // operands only: whatever they expand to, none is an option
      ++i;
      continue;
    }
    std::string why = MayBecomeOption(w);
    if (!why.empty()) {
      Ask(why);
      ++i;
      continue;
    }
    std::string_view fixed = w.FixedPrefix();
    if (fixed.empty() || fixed[0] != '-' || w.value == "-") {
      if (g_.at_files && !fixed.empty() && fixed[0] == '@') {
        Ask("the argument " + w.source + " reads more arguments from a file");
      }
      ++i;
      continue;
    }
    if (w.Literal() && (w.value == "--" || w.value == "--end-of-options") && g_.double_dash) {
      options = false;
      ++i;
      continue;
    }
    i = ReadOption(i);
  }
}

const Opt* ArgReader::Find(std::string_view name) const {
  for (const Opt& o : g_.options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

size_t ArgReader::ReadOption(size_t i) {
  const ShellWord& w = words_[i];
  const std::string& v = w.value;
  std::string_view fixed = w.FixedPrefix();
  if (w.Literal()) {
    if (const Opt* o = Find(v)) {
      if (o->takes != Takes::kValue) {
        Apply(*o, nullptr);
        return i + 1;
      }
      if (i + 1 >= words_.size()) {
        Ask(v + " has no value");
        return i + 1;
      }
      const ShellWord& value = words_[i + 1];
      bool passes_options = o->does == Does::kHostPass || o->does == Does::kPtxasPass;
      std::string why = MayBecomeOption(value);
      std::string_view vfixed = value.FixedPrefix();
      if (!passes_options && why.empty() && !vfixed.empty() && vfixed[0] == '-') {
        why = "its value " + value.source + " may be read as an option";
      }
      if (!why.empty()) {
        Ask(v + ": " + why);
        return i + 2;
      }
      Apply(*o, &value);
      return i + 2;
    }
  }
  size_t eq = v.find('=');
  if (eq != std::string::npos && eq < fixed.size()) {
    if (const Opt* o = Find(std::string_view(v).substr(0, eq))) {
      if (o->takes != Takes::kNothing) {
        ShellWord value = Tail(w, eq + 1);
        Apply(*o, &value);
        return i + 1;
      }
    }
  }
  if (g_.bundles && v.size() > 1 && v[1] != '-') return ReadBundle(i);
  for (std::string_view prefix : g_.attached) {
    if (StartsWith(fixed, prefix) && v.size() > prefix.size()) {
      if (const Opt* o = Find(prefix)) {
        ShellWord value = Tail(w, prefix.size());
        Apply(*o, &value);
        return i + 1;
      }
    }
  }
  std::string name(fixed.substr(0, std::min(fixed.find('='), fixed.size())));
  if (!w.Literal() && name.size() == fixed.size()) {
    Ask("the option " + w.source + " is only known when it runs");
  } else {
    Ask("option " + name + " is not one the policy knows");
  }
  return i + 1;
}

size_t ArgReader::ReadBundle(size_t i) {
  const ShellWord& w = words_[i];
  std::string_view fixed = w.FixedPrefix();
  for (size_t j = 1; j < w.value.size(); ++j) {
    if (j >= fixed.size()) {
      Ask("the option " + w.source + " is only known when it runs");
      return i + 1;
    }
    std::string letter = std::string("-") + w.value[j];
    const Opt* o = Find(letter);
    if (o == nullptr) {
      Ask("option " + letter + (w.value.size() > 2 ? " (in " + w.source + ")" : "") +
          " is not one the policy knows");
      return i + 1;
    }
    if (o->takes == Takes::kNothing) {
      Apply(*o, nullptr);
      continue;
    }
    if (j + 1 < w.value.size()) {
      ShellWord value = Tail(w, j + 1);
      Apply(*o, &value);
      return i + 1;
    }
    if (o->takes == Takes::kAttached) {
      Apply(*o, nullptr);
      return i + 1;
    }
    if (i + 1 >= words_.size()) {
      Ask(letter + " has no value");
      return i + 1;
    }
    const ShellWord& value = words_[i + 1];
    std::string why = MayBecomeOption(value);
    std::string_view vfixed = value.FixedPrefix();
    if (why.empty() && !vfixed.empty() && vfixed[0] == '-') {
      why = "its value " + value.source + " may be read as an option";
    }
    if (!why.empty()) {
      Ask(letter + ": " + why);
    } else {
      Apply(*o, &value);
    }
    return i + 2;
  }
  return i + 1;
}

void ArgReader::Apply(const Opt& o, const ShellWord* value) {
  std::string name(o.name);
  switch (o.does) {
    case Does::kNothing:
      return;
    case Does::kWrites:
    case Does::kInPackage:
      if (value != nullptr) out_->writes.push_back(*value);
      return;
    case Does::kRuns:
    case Does::kNetwork:
      Ask(name + " " + std::string(o.why));
      return;
    case Does::kPlugin:
      if (value == nullptr || !value->Literal() || !StartsWith(value->value, "no:")) {
        Ask(name + " loads a plugin module (-p no:NAME only disables one)");
      }
      return;
    case Does::kSandbox:
      if (value == nullptr || !value->Literal() || value->value != "bwrap") {
        Ask(name + " other than bwrap runs the candidate outside the sandbox");
      }
      return;
    case Does::kHostPass:
    case Does::kPtxasPass: {
      bool host = o.does == Does::kHostPass;
      if (value == nullptr || !value->Literal()) {
        Ask(name + " passes options only known when it runs");
        return;
      }
      // nvcc splits the value at commas; a blank would start another option too.
      std::string token;
      for (size_t k = 0; k <= value->value.size(); ++k) {
        char c = k < value->value.size() ? value->value[k] : ',';
        if (c != ',' && c != ' ' && c != '\t' && c != '\n') {
          token += c;
          continue;
        }
        if (!token.empty() && !(host ? HostOptionIsSafe(token) : PtxasOptionIsSafe(token))) {
          Ask(name + " passes " + token + " to the " + (host ? "host compiler" : "ptxas") +
              ", which is not an option the policy knows to be harmless (-wrapper, -B, "
              "-fplugin and -specs run programs)");
          return;
        }
        token.clear();
      }
      return;
    }
  }
}

bool IsPythonName(const std::string& base) {
  if (base == "python" || base == "python3") return true;
  return StartsWith(base, "python3.") && AllOf(std::string_view(base).substr(8), "0123456789");
}

// python [options] -m pytest ...: pytest's table after python's own options. Any other
// python command is not read here (its rule says what it may run).
void ReadPython(const std::vector<ShellWord>& words, ToolEffects* out) {
  static const std::vector<std::string_view> kSafeX = {"importtime",
                                                       "dev",
                                                       "utf8",
                                                       "utf8=0",
                                                       "utf8=1",
                                                       "faulthandler",
                                                       "tracemalloc",
                                                       "showrefcount",
                                                       "warn_default_encoding",
                                                       "no_debug_ranges",
                                                       "frozen_modules=on",
                                                       "frozen_modules=off"};
  for (size_t i = 1; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    if (!w.Literal()) return;
    const std::string& v = w.value;
    if (v == "-m" || v == "-mpytest") {
      size_t mod = v == "-m" ? i + 1 : i;
      if (v == "-m" &&
          (mod >= words.size() || !words[mod].Literal() || words[mod].value != "pytest")) {
        return;
      }
      out->known = true;
      ArgReader(Pytest(), words, out).Read(mod + 1);
      return;
    }
    if (v == "-W" || v == "-X") {
      if (i + 1 >= words.size() || !words[i + 1].Literal()) return;
      const std::string& opt = words[++i].value;
      if (v == "-X" && std::find(kSafeX.begin(), kSafeX.end(), opt) == kSafeX.end()) {
        out->asks.push_back("python -X " + opt + " is not an option the policy knows");
      }
      continue;
    }
    // One-letter switches that change nothing the rule does not grant: -u -B -O -E -s ...
    if (v.size() > 1 && v[0] == '-' && AllOf(std::string_view(v).substr(1), "bBdEIOqsSuvP")) {
      continue;
    }
    return;  // -c, a script, or an option we do not know: not python -m pytest
  }
}

// attnverify's CLI refuses options it does not know (exit 2), so only the options with an
// effect are listed: the paths it writes, the candidate's config, the sandbox switch.
void ReadAttnverify(const std::vector<ShellWord>& words, ToolEffects* out) {
  out->known = true;
  auto ask = [&](const std::string& why) { out->asks.push_back("attnverify " + why); };
  std::string sub = words.size() > 1 && words[1].Literal() ? words[1].value : "";
  std::string action = words.size() > 2 && words[2].Literal() ? words[2].value : "";
  if (sub == "agent" || sub == "provider") {
    ask(sub +
        " talks to the model provider (network, tokens) and can run the commands it "
        "suggests");
  }
  if (sub == "agent-config" && action != "audit") {
    ask("agent-config " + action + " writes agent settings, which decide what an agent may run");
  }
  static const std::vector<std::string_view> kWrites = {
      "--out",  "--export", "--md",      "--sarif",  "--junit", "--evidence", "--work",
      "--perf", "--record", "--package", "--config", "-c",      "--ledger"};
  for (size_t i = 1; i < words.size(); ++i) {
    const ShellWord& w = words[i];
    std::string why = MayBecomeOption(w);
    if (!why.empty()) {
      ask(why);
      continue;
    }
    const std::string& v = w.value;
    if (w.Literal() && v == "--") break;
    std::string_view fixed = w.FixedPrefix();
    if (fixed.empty() || fixed[0] != '-') continue;  // an operand
    size_t eq = v.find('=');
    if (!w.Literal() && (eq == std::string::npos || eq >= fixed.size())) {
      ask("option " + w.source + " is only known when it runs");
      continue;
    }
    std::string name = v.substr(0, eq);
    bool writes = std::find(kWrites.begin(), kWrites.end(), name) != kWrites.end();
    bool sandbox = name == "--sandbox";
    if (!writes && !sandbox) continue;
    ShellWord value;
    if (name.size() < v.size()) {
      value = Tail(w, name.size() + 1);
    } else if (i + 1 < words.size()) {
      value = words[++i];
    } else {
      continue;
    }
    if (sandbox) {
      if (!value.Literal() || value.value != "bwrap") {
        ask("--sandbox other than bwrap runs the candidate outside the sandbox");
      }
      continue;
    }
    out->writes.push_back(value);
  }
}

}  // namespace

ToolEffects ToolOptionEffects(const std::vector<ShellWord>& words) {
  ToolEffects out;
  if (words.empty() || !words[0].Literal()) return out;
  std::string base = Basename(words[0].value);
  if (base == "nvcc") {
    out.known = true;
    ArgReader(Nvcc(), words, &out).Read(1);
  } else if (base == "pytest" || base == "py.test") {
    out.known = true;
    ArgReader(Pytest(), words, &out).Read(1);
  } else if (IsPythonName(base)) {
    ReadPython(words, &out);
  } else if (base == "attnverify") {
    ReadAttnverify(words, &out);
  } else if (base == "git" && words.size() > 1) {
    std::string sub = words[1].Literal() ? words[1].value : "";
    out.known = true;
    if (sub == "diff") {
      ArgReader(GitDiff(), words, &out).Read(2);
    } else if (sub == "status") {
      ArgReader(GitStatus(), words, &out).Read(2);
    } else {
      // Other subcommands have no table: the options known to write or run are asked
      // about, and so is any word that may become one.
      for (size_t i = 2; i < words.size(); ++i) {
        const ShellWord& w = words[i];
        std::string why = MayBecomeOption(w);
        if (!why.empty()) out.asks.push_back("git " + sub + ": " + why);
        std::string name = w.value.substr(0, w.value.find('='));
        if (name == "--output" || name == "--ext-diff") {
          out.asks.push_back("git " + name + " writes a file or runs an external diff program");
        }
        if (w.Literal() && w.value == "--") break;
      }
    }
  }
  return out;
}

}  // namespace av
