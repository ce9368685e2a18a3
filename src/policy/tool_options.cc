// The option tables of the tools the workflow's rules allow, and one reader for them. A
// table lists every option the policy lets through: what it takes (nothing, a value in the
// next word or after '=', a value only when attached) and what it does (nothing the rule
// does not already grant, writes the path it names, runs a program, talks to the network,
// passes options on to the host compiler or ptxas). Anything else is asked about: a tool's
// unknown option is a behaviour nobody has judged. Option lists are from each tool's
// --help (nvcc 13.0, git 2.39, pytest 7.2 / argparse, attnverify's own CLI).
#include "policy/tool_options.h"

#include <algorithm>
#include <string_view>

#include "policy/exec_wrappers.h"

namespace av {
namespace {

enum class Takes {
  kNothing,
  kValue,     // the next word, or attached: --name=V, -nV (bundling tools), -IV (nvcc)
  kAttached,  // a value only when attached (--stat=N, -U5, -M50%): alone it is a flag
};

enum class Does {
  kNothing,
  kWrites,     // writes (or empties) the path in its value
  kRuns,       // runs a program, loads code or reads options from a file: `why` says
  kNetwork,    // sends data off the machine
  kHostPass,   // nvcc -Xcompiler: options for the host compiler (HostOptionIsSafe)
  kPtxasPass,  // nvcc -Xptxas: options for ptxas (PtxasOptionIsSafe)
  kPlugin,     // pytest -p NAME loads a plugin; -p no:NAME only disables one
  kSandbox,    // attnverify --sandbox: anything but bwrap runs the candidate unconfined
  kInPackage,  // attnverify --config, --package: fine inside the package, else ask
};

struct Opt {
  std::string_view name;
  Takes takes = Takes::kNothing;
  Does does = Does::kNothing;
  std::string_view why = {};
};

struct Grammar {
  std::string_view tool;
  std::vector<Opt> options;
  bool bundles = false;  // -vx: one-letter options combine, the last may hold a value
  // Single-dash options whose value may follow without a space (nvcc -I/usr/include, -O3).
  std::vector<std::string_view> attached = {};
  bool double_dash = true;  // "--" ends the options
  bool at_files = false;    // an operand "@FILE" is replaced by the arguments in FILE
};

constexpr Takes N = Takes::kNothing;
constexpr Takes V = Takes::kValue;
constexpr Takes A = Takes::kAttached;

const Grammar& Nvcc() {
  static const std::string_view kCcbin = "names the host compiler nvcc runs";
  static const Grammar kGrammar = {
      .tool = "nvcc",
      .options =
          {
              // Outputs named by the command: judged like a redirection.
              {"-o", V, Does::kWrites},
              {"--output-file", V, Does::kWrites},
              {"-odir", V, Does::kWrites},
              {"--output-directory", V, Does::kWrites},
              {"-MF", V, Does::kWrites},
              {"--dependency-output", V, Does::kWrites},
              {"-keep-dir", V, Does::kWrites},
              {"--keep-dir", V, Does::kWrites},
              {"-time", V, Does::kWrites},
              {"--time", V, Does::kWrites},
              // Programs the command never names.
              {"-optf", V, Does::kRuns,
               "reads more options from a file, which can hold -ccbin (a program nvcc runs)"},
              {"--options-file", V, Does::kRuns,
               "reads more options from a file, which can hold -ccbin (a program nvcc runs)"},
              {"-ccbin", V, Does::kRuns, kCcbin},
              {"--compiler-bindir", V, Does::kRuns, kCcbin},
              {"-run", N, Does::kRuns, "runs the program it builds"},
              {"--run", N, Does::kRuns, "runs the program it builds"},
              {"-run-args", V, Does::kRuns, "runs the program it builds"},
              {"--run-args", V, Does::kRuns, "runs the program it builds"},
              {"-forward-unknown-to-host-compiler", N, Does::kRuns,
               "passes options nvcc does not know to the host compiler (-wrapper, -B run "
               "programs)"},
              {"--forward-unknown-to-host-compiler", N, Does::kRuns,
               "passes options nvcc does not know to the host compiler (-wrapper, -B run "
               "programs)"},
              {"-forward-unknown-opts", N, Does::kRuns,
               "passes options nvcc does not know to the host compiler (-wrapper, -B run "
               "programs)"},
              {"--forward-unknown-opts", N, Does::kRuns,
               "passes options nvcc does not know to the host compiler (-wrapper, -B run "
               "programs)"},
              {"-Xlinker", V, Does::kRuns, "passes options to the host linker (-plugin runs code)"},
              {"--linker-options", V, Does::kRuns,
               "passes options to the host linker (-plugin runs code)"},
              {"-Xnvlink", V, Does::kRuns, "passes options to nvlink the policy does not judge"},
              {"--nvlink-options", V, Does::kRuns,
               "passes options to nvlink the policy does not judge"},
              {"-Xarchive", V, Does::kRuns, "passes options to the archiver"},
              {"--archive-options", V, Does::kRuns, "passes options to the archiver"},
              {"-Xcudafe", V, Does::kRuns, "passes options to cudafe the policy does not judge"},
              // Pass-through options, judged option by option.
              {"-Xcompiler", V, Does::kHostPass},
              {"--compiler-options", V, Does::kHostPass},
              {"-Xptxas", V, Does::kPtxasPass},
              {"--ptxas-options", V, Does::kPtxasPass},
              // Compilation phases and modes (default outputs go to the working folder).
              {"-c", N},
              {"--compile", N},
              {"-dc", N},
              {"--device-c", N},
              {"-dw", N},
              {"--device-w", N},
              {"-dlink", N},
              {"--device-link", N},
              {"-link", N},
              {"--link", N},
              {"-lib", N},
              {"--lib", N},
              {"-ptx", N},
              {"--ptx", N},
              {"-cubin", N},
              {"--cubin", N},
              {"-fatbin", N},
              {"--fatbin", N},
              {"-optix-ir", N},
              {"--optix-ir", N},
              {"-E", N},
              {"--preprocess", N},
              {"-M", N},
              {"--generate-dependencies", N},
              {"-MM", N},
              {"--generate-nonsystem-dependencies", N},
              {"-MD", N},
              {"--generate-dependencies-with-compile", N},
              {"-MMD", N},
              {"--generate-nonsystem-dependencies-with-compile", N},
              {"-MP", N},
              {"--generate-dependency-targets", N},
              {"-MT", V},
              {"--dependency-target-name", V},
              {"-keep", N},
              {"--keep", N},
              {"-save-temps", N},
              {"--save-temps", N},
              {"-keep-device-functions", N},
              {"--keep-device-functions", N},
              {"-clean", N},
              {"--clean-targets", N},
              {"-dryrun", N},
              {"--dryrun", N},
              {"-v", N},
              {"--verbose", N},
              {"-V", N},
              {"--version", N},
              {"-h", N},
              {"--help", N},
              {"-list-gpu-arch", N},
              {"--list-gpu-arch", N},
              {"-list-gpu-code", N},
              {"--list-gpu-code", N},
              // Code generation.
              {"-arch", V},
              {"--gpu-architecture", V},
              {"-code", V},
              {"--gpu-code", V},
              {"-gencode", V},
              {"--generate-code", V},
              {"-std", V},
              {"--std", V},
              {"-O", V},
              {"--optimize", V},
              {"-dopt", V},
              {"--dopt", V},
              {"-x", V},
              {"--x", V},
              {"-m", V},
              {"--machine", V},
              {"-m64", N},
              {"-g", N},
              {"--debug", N},
              {"-G", N},
              {"--device-debug", N},
              {"-lineinfo", N},
              {"--generate-line-info", N},
              {"-src-in-ptx", N},
              {"--source-in-ptx", N},
              {"-rdc", V},
              {"--relocatable-device-code", V},
              {"-dlto", N},
              {"--dlink-time-opt", N},
              {"-cudart", V},
              {"--cudart", V},
              {"-cudadevrt", V},
              {"--cudadevrt", V},
              {"-default-stream", V},
              {"--default-stream", V},
              {"-maxrregcount", V},
              {"--maxrregcount", V},
              {"-t", V},
              {"--threads", V},
              {"-split-compile", V},
              {"--split-compile", V},
              {"-ftz", V},
              {"--ftz", V},
              {"-prec-div", V},
              {"--prec-div", V},
              {"-prec-sqrt", V},
              {"--prec-sqrt", V},
              {"-fmad", V},
              {"--fmad", V},
              {"-use_fast_math", N},
              {"--use_fast_math", N},
              {"-expt-relaxed-constexpr", N},
              {"--expt-relaxed-constexpr", N},
              {"-expt-extended-lambda", N},
              {"--expt-extended-lambda", N},
              {"-extended-lambda", N},
              {"--extended-lambda", N},
              {"-allow-unsupported-compiler", N},
              {"--allow-unsupported-compiler", N},
              {"-res-usage", N},
              {"--resource-usage", N},
              {"-extra-device-vectorization", N},
              {"--extra-device-vectorization", N},
              // Inputs, macros and warnings.
              {"-I", V},
              {"--include-path", V},
              {"-isystem", V},
              {"--system-include", V},
              {"-include", V},
              {"--pre-include", V},
              {"-L", V},
              {"--library-path", V},
              {"-l", V},
              {"--library", V},
              {"-D", V},
              {"--define-macro", V},
              {"-U", V},
              {"--undefine-macro", V},
              {"-w", N},
              {"--disable-warnings", N},
              {"-Werror", V},
              {"--Werror", V},
              {"-Wno-deprecated-gpu-targets", N},
              {"--Wno-deprecated-gpu-targets", N},
              {"-Wno-deprecated-declarations", N},
              {"--Wno-deprecated-declarations", N},
              {"-Wreorder", N},
              {"--Wreorder", N},
              {"-Wdefault-stream-launch", N},
              {"--Wdefault-stream-launch", N},
              {"-Wmissing-launch-bounds", N},
              {"--Wmissing-launch-bounds", N},
              {"-Wext-lambda-captures-this", N},
              {"--Wext-lambda-captures-this", N},
              {"-diag-suppress", V},
              {"--diag-suppress", V},
              {"-diag-warn", V},
              {"--diag-warn", V},
              {"-diag-error", V},
              {"--diag-error", V},
              {"-err-no", N},
              {"--display-error-number", N},
              {"-no-err-no", N},
              {"--no-display-error-number", N},
          },
      // Only these five take their value glued on: -I/usr/include, -DNDEBUG, -O3, -lcublas.
      .attached = {"-I", "-L", "-l", "-D", "-U", "-O"},
      .double_dash = false,
      .at_files = true,
  };
  return kGrammar;
}

// git diff (and the diff options git status shares none of). Value options of git's
// parse-options take the next word or "=value"; one-letter options bundle (-bw).
const Grammar& GitDiff() {
  static const Grammar kGrammar = {
      .tool = "git diff",
      .options =
          {
              {"--output", V, Does::kWrites},
              {"--ext-diff", N, Does::kRuns,
               "runs the external diff program the repository's configuration names"},
              {"--cached", N},
              {"--staged", N},
              {"--merge-base", N},
              {"--no-index", N},
              {"-p", N},
              {"-u", N},
              {"--patch", N},
              {"-s", N},
              {"--no-patch", N},
              {"-U", V},
              {"--unified", V},
              {"--raw", N},
              {"--patch-with-raw", N},
              {"--patch-with-stat", N},
              {"--minimal", N},
              {"--patience", N},
              {"--histogram", N},
              {"--diff-algorithm", V},
              {"--anchored", V},
              {"--stat", A},
              {"--stat-width", V},
              {"--stat-name-width", V},
              {"--stat-graph-width", V},
              {"--stat-count", V},
              {"--compact-summary", N},
              {"--numstat", N},
              {"--shortstat", N},
              {"--dirstat", A},
              {"-X", A},
              {"--cumulative", N},
              {"--dirstat-by-file", A},
              {"--summary", N},
              {"--name-only", N},
              {"--name-status", N},
              {"--submodule", A},
              {"--color", A},
              {"--no-color", N},
              {"--color-moved", A},
              {"--no-color-moved", N},
              {"--color-moved-ws", V},
              {"--no-color-moved-ws", N},
              {"--word-diff", A},
              {"--word-diff-regex", V},
              {"--color-words", A},
              {"--no-renames", N},
              {"--rename-empty", N},
              {"--no-rename-empty", N},
              {"--check", N},
              {"--ws-error-highlight", V},
              {"--full-index", N},
              {"--binary", N},
              {"--abbrev", A},
              {"--no-abbrev", N},
              {"-B", A},
              {"--break-rewrites", A},
              {"-M", A},
              {"--find-renames", A},
              {"-C", A},
              {"--find-copies", A},
              {"--find-copies-harder", N},
              {"-D", N},
              {"--irreversible-delete", N},
              {"-l", V},
              {"--diff-filter", V},
              {"-S", V},
              {"-G", V},
              {"--find-object", V},
              {"--pickaxe-all", N},
              {"--pickaxe-regex", N},
              {"-O", V},
              {"--skip-to", V},
              {"--rotate-to", V},
              {"-R", N},
              {"--relative", A},
              {"--no-relative", N},
              {"-a", N},
              {"--text", N},
              {"--ignore-cr-at-eol", N},
              {"--ignore-space-at-eol", N},
              {"-b", N},
              {"--ignore-space-change", N},
              {"-w", N},
              {"--ignore-all-space", N},
              {"--ignore-blank-lines", N},
              {"-I", V},
              {"--ignore-matching-lines", V},
              {"--inter-hunk-context", V},
              {"-W", N},
              {"--function-context", N},
              {"--no-function-context", N},
              {"--exit-code", N},
              {"--quiet", N},
              {"--no-ext-diff", N},
              {"--textconv", N},
              {"--no-textconv", N},
              {"--ignore-submodules", A},
              {"--src-prefix", V},
              {"--dst-prefix", V},
              {"--no-prefix", N},
              {"--default-prefix", N},
              {"--line-prefix", V},
              {"--ita-invisible-in-index", N},
              {"--ita-visible-in-index", N},
              {"--indent-heuristic", N},
              {"--no-indent-heuristic", N},
              {"-z", N},
              {"-0", N},
              {"-1", N},
              {"-2", N},
              {"-3", N},
              {"--base", N},
              {"--ours", N},
              {"--theirs", N},
              {"--end-of-options", N},
          },
      .bundles = true,
  };
  return kGrammar;
}

const Grammar& GitStatus() {
  static const Grammar kGrammar = {
      .tool = "git status",
      .options =
          {
              {"-s", N},
              {"--short", N},
              {"-b", N},
              {"--branch", N},
              {"--show-stash", N},
              {"--porcelain", A},
              {"--long", N},
              {"-v", N},
              {"--verbose", N},
              {"-u", A},
              {"--untracked-files", A},
              {"--ignore-submodules", A},
              {"--ignored", A},
              {"-z", N},
              {"--column", A},
              {"--no-column", N},
              {"--ahead-behind", N},
              {"--no-ahead-behind", N},
              {"--renames", N},
              {"--no-renames", N},
              {"--find-renames", A},
              {"-M", A},
              {"--end-of-options", N},
          },
      .bundles = true,
  };
  return kGrammar;
}

// pytest's own options (argparse: --name=V or --name V, bundled -vx, -kEXPR; no
// abbreviations since pytest 6). Plugin options are unknown here and asked about.
const Grammar& Pytest() {
  static const Grammar kGrammar = {
      .tool = "pytest",
      .options =
          {
              {"--basetemp", V, Does::kWrites},  // empties the folder first
              {"--junitxml", V, Does::kWrites},
              {"--junit-xml", V, Does::kWrites},
              {"--log-file", V, Does::kWrites},
              {"--debug", A, Does::kWrites},    // alone: pytestdebug.log in the working folder
              {"--rootdir", V, Does::kWrites},  // .pytest_cache is written there
              {"--pastebin", V, Does::kNetwork, "uploads the session to a paste service"},
              {"-p", V, Does::kPlugin},
              {"-c", V, Does::kRuns,
               "reads its configuration (addopts, plugins, cache_dir) from another file"},
              {"--config-file", V, Does::kRuns,
               "reads its configuration (addopts, plugins, cache_dir) from another file"},
              {"-o", V, Does::kRuns,
               "overrides configuration values (addopts, cache_dir, plugins)"},
              {"--override-ini", V, Does::kRuns,
               "overrides configuration values (addopts, cache_dir, plugins)"},
              {"--pdbcls", V, Does::kRuns, "imports and runs a debugger class it names"},
              {"-q", N},
              {"--quiet", N},
              {"-v", N},
              {"--verbose", N},
              {"--verbosity", V},
              {"-x", N},
              {"--exitfirst", N},
              {"--maxfail", V},
              {"-s", N},
              {"--capture", V},
              {"-k", V},
              {"-m", V},
              {"-r", V},
              {"-l", N},
              {"--showlocals", N},
              {"--no-showlocals", N},
              {"--tb", V},
              {"--show-capture", V},
              {"--full-trace", N},
              {"--color", V},
              {"--code-highlight", V},
              {"--durations", V},
              {"--durations-min", V},
              {"--lf", N},
              {"--last-failed", N},
              {"--ff", N},
              {"--failed-first", N},
              {"--nf", N},
              {"--new-first", N},
              {"--lfnf", V},
              {"--last-failed-no-failures", V},
              {"--cache-show", A},
              {"--cache-clear", N},
              {"--sw", N},
              {"--stepwise", N},
              {"--sw-skip", N},
              {"--stepwise-skip", N},
              {"--co", N},
              {"--collect-only", N},
              {"--pyargs", N},
              {"--ignore", V},
              {"--ignore-glob", V},
              {"--deselect", V},
              {"--confcutdir", V},
              {"--noconftest", N},
              {"--keep-duplicates", N},
              {"--collect-in-virtualenv", N},
              {"--continue-on-collection-errors", N},
              {"--import-mode", V},
              {"--doctest-modules", N},
              {"--doctest-glob", V},
              {"--doctest-report", V},
              {"--doctest-ignore-import-errors", N},
              {"--doctest-continue-on-failure", N},
              {"--disable-warnings", N},
              {"--disable-pytest-warnings", N},
              {"-W", V},
              {"--pythonwarnings", V},
              {"--strict-markers", N},
              {"--strict-config", N},
              {"--strict", N},
              {"--runxfail", N},
              {"--assert", V},
              {"--setup-only", N},
              {"--setup-show", N},
              {"--setup-plan", N},
              {"--fixtures", N},
              {"--funcargs", N},
              {"--fixtures-per-test", N},
              {"--markers", N},
              {"--trace-config", N},
              {"--no-header", N},
              {"--no-summary", N},
              {"--log-level", V},
              {"--log-format", V},
              {"--log-date-format", V},
              {"--log-cli-level", V},
              {"--log-cli-format", V},
              {"--log-cli-date-format", V},
              {"--log-file-level", V},
              {"--log-file-format", V},
              {"--log-file-date-format", V},
              {"--log-auto-indent", V},
              {"-V", N},
              {"--version", N},
              {"-h", N},
              {"--help", N},
          },
      .bundles = true,
      .at_files = true,  // pytest 8.2 reads @FILE as more arguments
  };
  return kGrammar;
}

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

class ArgReader {
 public:
  ArgReader(const Grammar& g, const std::vector<ShellWord>& words, ToolEffects* out)
      : g_(g), words_(words), out_(out) {}

  void Read(size_t first) {
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

 private:
  const Opt* Find(std::string_view name) const {
    for (const Opt& o : g_.options) {
      if (o.name == name) return &o;
    }
    return nullptr;
  }

  void Ask(const std::string& why) { out_->asks.push_back(std::string(g_.tool) + ": " + why); }

  // The option at words_[i]; returns the index after it (and its value).
  size_t ReadOption(size_t i) {
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

  // -vx, -kEXPR, -U5: one-letter options, the first one that takes a value ends the word.
  size_t ReadBundle(size_t i) {
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

  void Apply(const Opt& o, const ShellWord* value) {
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

  const Grammar& g_;
  const std::vector<ShellWord>& words_;
  ToolEffects* out_;
};

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
