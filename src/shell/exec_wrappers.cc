#include "shell/exec_wrappers.h"

#include <algorithm>
#include <string_view>

#include "shell/shell_parser.h"

namespace av {
namespace {

struct OptionSpec {
  std::string_view name = {};
  WrapperKind kind = WrapperKind::kNone;
  std::string_view flags = {};     // short options without a value
  std::string_view values = {};    // short options taking a value (attached or the next word)
  std::string_view optional = {};  // short options whose value, if any, is attached: xargs -i[R]
  std::vector<std::string_view> long_flags = {};
  std::vector<std::string_view> long_values = {};  // "--name VALUE" or "--name=VALUE"
  int positional = 0;                // words between options and command: timeout's DURATION
  bool numeric_flag = false;         // nice -10
  bool assignments = false;          // env NAME=value
  std::string_view no_command = {};  // short flags after which nothing is run: command -v
  // Options (as written: "-o", "--export") whose value is a path the wrapper writes, and
  // options that make the wrapper itself run code, with why.
  std::vector<std::string_view> write_values = {};
  std::vector<std::pair<std::string_view, std::string_view>> run_options = {};
};

// Only options we are sure of are listed: guessing wrong about whether one takes a value
// would put the wrapped command one word off, and the policy would judge the wrong words.
const std::vector<OptionSpec>& Specs() {
  static const std::vector<OptionSpec> kSpecs = {
      {.name = "time",
       .kind = WrapperKind::kTransparent,
       .flags = "pvqa",
       .values = "f",
       .long_flags = {"--portability", "--verbose", "--quiet", "--append"},
       .long_values = {"--format"}},
      {.name = "nice",
       .kind = WrapperKind::kTransparent,
       .values = "n",
       .long_values = {"--adjustment"},
       .numeric_flag = true},
      {.name = "nohup", .kind = WrapperKind::kTransparent},
      {.name = "timeout",
       .kind = WrapperKind::kTransparent,
       .flags = "v",
       .values = "sk",
       .long_flags = {"--foreground", "--preserve-status", "--verbose"},
       .long_values = {"--signal", "--kill-after"},
       .positional = 1},
      {.name = "stdbuf",
       .kind = WrapperKind::kTransparent,
       .values = "ioe",
       .long_values = {"--input", "--output", "--error"}},
      {.name = "env",
       .kind = WrapperKind::kTransparent,
       .flags = "i0v",
       .values = "uC",
       .long_flags = {"--ignore-environment", "--null", "--debug"},
       .long_values = {"--unset", "--chdir"},
       .assignments = true},
      {.name = "command", .kind = WrapperKind::kTransparent, .flags = "p", .no_command = "vV"},
      {.name = "builtin", .kind = WrapperKind::kTransparent},
      {.name = "exec", .kind = WrapperKind::kTransparent, .flags = "cl", .values = "a"},
      {.name = "ionice",
       .kind = WrapperKind::kTransparent,
       .flags = "t",
       .values = "cn",
       .long_flags = {"--ignore"},
       .long_values = {"--class", "--classdata"},
       .no_command = "p"},
      {.name = "setsid",
       .kind = WrapperKind::kTransparent,
       .flags = "cfw",
       .long_flags = {"--ctty", "--fork", "--wait"}},
      {.name = "taskset",
       .kind = WrapperKind::kTransparent,
       .flags = "ac",
       .long_flags = {"--all-tasks", "--cpu-list"},
       .positional = 1,
       .no_command = "p"},
      {.name = "numactl",
       .kind = WrapperKind::kTransparent,
       .flags = "l",
       .values = "NmCiP",
       .long_flags = {"--localalloc"},
       .long_values = {"--cpunodebind", "--membind", "--physcpubind", "--interleave",
                       "--preferred"}},
      {.name = "xargs",
       .kind = WrapperKind::kTool,
       .flags = "0rtpxo",
       .values = "adEILnPs",
       .optional = "eil",
       .long_flags = {"--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit",
                      "--open-tty"},
       .long_values = {"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines",
                       "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
      {.name = "watch",
       .kind = WrapperKind::kTool,
       .flags = "bcegptwx",
       .values = "n",
       .optional = "d",
       .long_flags = {"--beep", "--color", "--errexit", "--chgexit", "--precise", "--no-title",
                      "--no-wrap", "--exec", "--differences"},
       .long_values = {"--interval"}},
      {.name = "sudo",
       .kind = WrapperKind::kTool,
       .flags = "AbEHknPSB",
       .values = "ughpCrtTU",
       .long_flags = {"--askpass", "--background", "--preserve-env", "--set-home",
                      "--non-interactive", "--stdin", "--bell"},
       .long_values = {"--user", "--group", "--host", "--prompt", "--close-from", "--role",
                       "--type", "--command-timeout", "--other-user"}},
      {.name = "doas", .kind = WrapperKind::kTool, .flags = "ns", .values = "u"},
      {.name = "ncu",
       .kind = WrapperKind::kTool,
       .flags = "f",
       .values = "kcsoi",
       .long_flags = {"--force-overwrite", "--csv", "--nvtx", "--quiet", "--call-stack",
                      "--lockstep-kernel-launch", "--disable-extra-suffixes", "--print-fp",
                      "--open-in-ui"},
       .long_values = {"--set",
                       "--section",
                       "--section-folder",
                       "--section-folder-recursive",
                       "--metrics",
                       "--kernel-name",
                       "--kernel-name-base",
                       "--kernel-id",
                       "--launch-count",
                       "--launch-skip",
                       "--launch-skip-before-match",
                       "--nvtx-include",
                       "--nvtx-exclude",
                       "--replay-mode",
                       "--app-replay-buffer",
                       "--app-replay-match",
                       "--app-replay-mode",
                       "--graph-profiling",
                       "--target-processes",
                       "--export",
                       "--log-file",
                       "--print-summary",
                       "--print-units",
                       "--print-details",
                       "--print-kernel-base",
                       "--page",
                       "--import",
                       "--devices",
                       "--filter-mode",
                       "--clock-control",
                       "--cache-control",
                       "--config-file",
                       "--rule",
                       "--apply-rules",
                       "--import-source",
                       "--check-exit-code",
                       "--kill"},
       .write_values = {"-o", "--export", "--log-file"},
       .run_options = {{"--section-folder", "loads rule files (Python) from the folder it names"},
                       {"--section-folder-recursive",
                        "loads rule files (Python) from the folder it names"},
                       {"--open-in-ui", "starts the Nsight Compute user interface"}}},
      {.name = "compute-sanitizer",
       .kind = WrapperKind::kTool,
       .long_values = {"--tool",
                       "--leak-check",
                       "--racecheck-report",
                       "--racecheck-detect-level",
                       "--log-file",
                       "--save",
                       "--print-limit",
                       "--error-exitcode",
                       "--launch-timeout",
                       "--target-processes",
                       "--kernel-name",
                       "--kernel-name-exclude",
                       "--check-api-memory-access",
                       "--check-device-heap",
                       "--check-exit-code",
                       "--show-backtrace",
                       "--demangle",
                       "--require-cuda-init",
                       "--print-level",
                       "--destroy-on-device-error",
                       "--padding",
                       "--report-api-errors",
                       "--track-unused-memory",
                       "--strip-paths",
                       "--num-callers-device",
                       "--num-callers-host",
                       "--initcheck-address-reporting"},
       .write_values = {"--log-file", "--save"}},
  };
  return kSpecs;
}

// nsys profile|launch [options] app: every nsys profile option takes a value.
const OptionSpec& NsysSpec() {
  static const OptionSpec kSpec = {.name = "nsys",
                                   .kind = WrapperKind::kTool,
                                   .values = "tosbcdywxnpf",
                                   .long_values = {"--trace",
                                                   "--output",
                                                   "--sample",
                                                   "--backtrace",
                                                   "--capture-range",
                                                   "--capture-range-end",
                                                   "--duration",
                                                   "--delay",
                                                   "--show-output",
                                                   "--stop-on-exit",
                                                   "--inherit-environment",
                                                   "--nvtx-capture",
                                                   "--stats",
                                                   "--force-overwrite",
                                                   "--cuda-memory-usage",
                                                   "--cudabacktrace",
                                                   "--cuda-graph-trace",
                                                   "--cpuctxsw",
                                                   "--gpu-metrics-devices",
                                                   "--gpu-metrics-device",
                                                   "--gpu-metrics-frequency",
                                                   "--gpu-metrics-set",
                                                   "--python-sampling",
                                                   "--python-backtrace",
                                                   "--osrt-threshold",
                                                   "--sampling-frequency",
                                                   "--session-new",
                                                   "--wait",
                                                   "--kill",
                                                   "--export",
                                                   "--trace-fork-before-exec",
                                                   "--mpi-impl",
                                                   "--nvtx-domain-include",
                                                   "--nvtx-domain-exclude",
                                                   "--cuda-flush-interval",
                                                   "--cuda-event-trace"},
                                   .write_values = {"-o", "--output"}};
  return kSpec;
}

bool Contains(const std::vector<std::string_view>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool IsAssignment(std::string_view v) {
  bool subscript = false;
  return shell_internal::IsAssignmentWord(v, &subscript) && !subscript;
}

// Reads the options of one wrapper (its OptionSpec) from the wrapper's words: which words
// are options and values, what the options themselves do (Unwrapped::written, ::runs), and
// where the wrapped command starts.
class OptionScanner {
 public:
  OptionScanner(const std::vector<ShellWord>& words, const OptionSpec& spec, Unwrapped* u)
      : words_(words), spec_(spec), u_(u), prog_(spec.name) {}

  // Reads the options from words[first]; on return `*i` is the first word after them (and
  // after `spec.positional` words). False when nothing is run (`*runs` false) or an option
  // is unknown (`u` says which).
  bool Scan(size_t first, size_t* i, bool* runs);

 private:
  bool Unknown(const std::string& opt) {
    u_->understood = false;
    u_->reason = "cannot tell which command " + prog_ + " runs: option " + opt +
                 " is not one the policy knows";
    return false;
  }
  // A value in a word of its own: if bash can split it or turn it into an option
  // (`nice -n $x git status` with x='1 rm -rf ~'), the wrapped command is not the one we see.
  bool ValueWord(const std::string& opt, size_t at) {
    std::string why = MayBecomeOption(words_[at]);
    if (!why.empty()) {
      u_->understood = false;
      u_->reason = "cannot tell which command " + prog_ + " runs: the value of " + opt + ": " + why;
      return false;
    }
    return true;
  }
  // What the option does beyond choosing the wrapped command.
  void Effect(std::string_view opt, const ShellWord& value) {
    if (Contains(spec_.write_values, opt)) u_->written.push_back(value);
    for (const auto& [name, why] : spec_.run_options) {
      if (name == opt && u_->runs.empty())
        u_->runs = prog_ + " " + std::string(name) + " " + std::string(why);
    }
  }
  // --name, --name=VALUE or --name VALUE at words[*i]; false: Scan returns false.
  bool LongOption(size_t* i);
  // -abc, -nVALUE or -n VALUE at words[*i]; false: Scan returns false.
  bool ShortOptions(size_t* i, bool* runs);

  const std::vector<ShellWord>& words_;
  const OptionSpec& spec_;
  Unwrapped* u_;
  std::string prog_;
};

bool OptionScanner::Scan(size_t first, size_t* i, bool* runs) {
  *runs = true;
  size_t n = words_.size();
  *i = first;
  while (*i < n) {
    const ShellWord& w = words_[*i];
    const std::string& v = w.value;
    if (!w.Literal()) {
      if (!v.empty() && v[0] != '-' && !IsAssignment(v)) break;  // the command, expanded
      u_->understood = false;
      u_->reason = "cannot tell which command " + prog_ +
                   " runs: an option is only known "
                   "when it runs (" +
                   w.source + ")";
      return false;
    }
    if (v == "--") {
      ++*i;
      break;
    }
    if (spec_.assignments && IsAssignment(v)) {
      u_->assignments.push_back(w);
      ++*i;
      continue;
    }
    if (spec_.name == "env" && v == "-") {  // env - is env -i
      ++*i;
      continue;
    }
    if (v.size() > 2 && v[0] == '-' && v[1] == '-') {
      if (!LongOption(i)) return false;
      continue;
    }
    if (v.size() > 1 && v[0] == '-') {
      if (!ShortOptions(i, runs)) return false;
      continue;
    }
    break;
  }
  for (int k = 0; k < spec_.positional; ++k) {
    if (*i >= n) {
      *runs = false;
      return false;
    }
    if (!ValueWord("its argument " + words_[*i].source, *i)) return false;
    ++*i;
  }
  if (*i >= n) {
    *runs = false;
    return false;
  }
  return true;
}

bool OptionScanner::LongOption(size_t* i) {
  const ShellWord& w = words_[*i];
  const std::string& v = w.value;
  size_t n = words_.size();
  size_t eq = v.find('=');
  std::string name = v.substr(0, eq);
  if (eq != std::string::npos) {
    if (!Contains(spec_.long_values, name) && !Contains(spec_.long_flags, name)) {
      return Unknown(name);
    }
    ShellWord value = w;
    value.value = v.substr(eq + 1);
    Effect(name, value);
    ++*i;
  } else if (Contains(spec_.long_flags, name)) {
    Effect(name, w);
    ++*i;
  } else if (Contains(spec_.long_values, name)) {
    if (*i + 1 >= n) return Unknown(name + " (no value)");
    if (!ValueWord(name, *i + 1)) return false;
    Effect(name, words_[*i + 1]);
    *i += 2;
  } else {
    return Unknown(name);
  }
  return true;
}

bool OptionScanner::ShortOptions(size_t* i, bool* runs) {
  const ShellWord& w = words_[*i];
  const std::string& v = w.value;
  size_t n = words_.size();
  if (spec_.numeric_flag && v.find_first_not_of("0123456789", 1) == std::string::npos) {
    ++*i;
    return true;
  }
  size_t consumed = 1;
  for (size_t j = 1; j < v.size(); ++j) {
    char c = v[j];
    if (spec_.no_command.find(c) != std::string_view::npos) {
      *runs = false;
      return false;
    }
    if (spec_.flags.find(c) != std::string_view::npos) continue;
    if (spec_.optional.find(c) != std::string_view::npos) break;  // the rest is its value
    if (spec_.values.find(c) != std::string_view::npos) {
      std::string opt = std::string("-") + c;
      if (j + 1 == v.size()) {
        if (*i + 1 >= n) return Unknown(opt + " (no value)");
        if (!ValueWord(opt, *i + 1)) return false;
        Effect(opt, words_[*i + 1]);
        consumed = 2;
      } else {
        ShellWord value = w;
        value.value = v.substr(j + 1);
        Effect(opt, value);
      }
      break;
    }
    return Unknown(std::string("-") + c);
  }
  *i += consumed;
  return true;
}

bool ScanOptions(const std::vector<ShellWord>& words, size_t first, const OptionSpec& spec,
                 Unwrapped* u, size_t* i, bool* runs) {
  return OptionScanner(words, spec, u).Scan(first, i, runs);
}

Unwrapped UnwrapShell(const std::vector<ShellWord>& words, const std::string& prog) {
  Unwrapped u;
  bool command_mode = false;
  size_t i = 1, n = words.size();
  for (; i < n; ++i) {
    const ShellWord& w = words[i];
    const std::string& v = w.value;
    if (!w.Literal()) {
      if (!command_mode && !v.empty() && v[0] != '-' && v[0] != '+') break;
      u.kind = WrapperKind::kShell;
      u.understood = false;
      u.reason = prog + ": an option or the script is only known when it runs";
      return u;
    }
    if (v == "--" || v == "-") {
      ++i;
      break;
    }
    if (v == "--norc" || v == "--noprofile" || v == "--posix" || v == "--login" ||
        v == "--noediting") {
      continue;
    }
    if ((v == "-o" || v == "+o") && i + 1 < n) {
      ++i;
      continue;
    }
    if (v.size() > 1 && (v[0] == '-' || v[0] == '+') && v[1] != '-') {
      // -i (interactive: reads ~/.bashrc), -s (script on stdin) and -O (shopt, which can
      // change how the script parses) are refused with everything else unknown.
      if (v.find_first_not_of("euxvlcfnCr", 1) != std::string::npos) {
        u.kind = WrapperKind::kShell;
        u.understood = false;
        u.reason = prog + " option " + v + " is not one the policy knows";
        return u;
      }
      if (v[0] == '-' && v.find('c') != std::string::npos) command_mode = true;
      continue;
    }
    break;
  }
  if (!command_mode) return u;  // `bash file.sh`: a program like any other
  u.kind = WrapperKind::kShell;
  if (i >= n) {
    u.understood = false;
    u.reason = prog + " -c has no script";
    return u;
  }
  if (!words[i].Literal()) {
    u.understood = false;
    u.reason = prog + " -c runs a script that is only known when it runs (" + words[i].source + ")";
    return u;
  }
  u.has_script = true;
  u.script = words[i].value;
  return u;
}

Unwrapped UnwrapFind(const std::vector<ShellWord>& words) {
  Unwrapped u;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& v = words[i].value;
    if (v == "-delete" || v == "-fprint" || v == "-fprint0" || v == "-fprintf" || v == "-fls") {
      u.kind = WrapperKind::kTool;
      u.writes = "find " + v + " deletes or writes files";
    }
    if (v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir") continue;
    u.kind = WrapperKind::kTool;
    size_t end = i + 1;
    while (end < words.size() && words[end].value != ";" && words[end].value != "+") ++end;
    if (end >= words.size() || end == i + 1) {
      u.understood = false;
      u.reason = "find " + v + " has no command ending in ';' or '+'";
      return u;
    }
    u.inners.push_back({i + 1, end});
    i = end;
  }
  return u;
}

}  // namespace

std::string MayBecomeOption(const ShellWord& w) {
  if (w.Literal()) return "";
  if (w.splits) {
    return "the argument " + w.source +
           " is split into words when it runs, and any may be an "
           "option";
  }
  if (w.FixedPrefix().empty()) {
    return "the argument " + w.source + " is only known when it runs, and may be an option";
  }
  return "";
}

std::string Basename(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Unwrapped Unwrap(const std::vector<ShellWord>& words) {
  Unwrapped u;
  if (words.empty() || !words[0].Literal()) return u;
  std::string prog = Basename(words[0].value);
  if (prog == "sh" || prog == "bash" || prog == "dash") return UnwrapShell(words, prog);
  if (prog == "find") return UnwrapFind(words);
  const OptionSpec* spec = nullptr;
  size_t first = 1;
  if (prog == "nsys") {
    if (words.size() < 2 || (words[1].value != "profile" && words[1].value != "launch")) {
      u.kind = WrapperKind::kTool;  // nsys stats, export, ...: nothing else runs
      return u;
    }
    spec = &NsysSpec();
    first = 2;
  } else {
    for (const OptionSpec& s : Specs()) {
      if (s.name == prog) spec = &s;
    }
  }
  if (spec == nullptr) return u;
  u.kind = spec->kind;
  size_t i = 0;
  bool runs = true;
  bool found = ScanOptions(words, first, *spec, &u, &i, &runs);
  if (!u.understood) return u;
  if (prog == "env") {
    for (size_t k = first; k < i; ++k) {
      if (words[k].value == "-C" || words[k].value.rfind("--chdir", 0) == 0) {
        u.changes_directory = true;
      }
    }
  }
  if (!found) {
    if (!runs && prog == "xargs") u.implied_echo = true;
    return u;
  }
  if (prog == "watch") {
    bool exec_mode = false;
    for (size_t k = 1; k < i; ++k) {
      const std::string& v = words[k].value;
      if (v == "--exec" ||
          (v.size() > 1 && v[0] == '-' && v[1] != '-' && v.find('x') != std::string::npos)) {
        exec_mode = true;
      }
    }
    if (!exec_mode) {  // watch runs its arguments joined by spaces with sh -c
      u.has_script = true;
      for (size_t k = i; k < words.size(); ++k) {
        if (!words[k].Literal()) {
          u.understood = false;
          u.reason = "watch runs a script that is only known when it runs";
          return u;
        }
        u.script += (k > i ? " " : "") + words[k].value;
      }
      return u;
    }
  }
  u.inners.push_back({i, words.size()});
  return u;
}

}  // namespace av
