// The option tables of the tools the workflow's rules allow (nvcc, git diff, git status,
// pytest): for each option what it takes and what it does. Data only; tool_options.cc reads
// a command's words against them. Internal to policy/. Option lists are from each tool's
// --help (nvcc 13.0, git 2.39, pytest 7.2 / argparse).
#pragma once

#include <string_view>
#include <vector>

namespace av::tool_tables {

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

const Grammar& Nvcc();
const Grammar& GitDiff();
const Grammar& GitStatus();
const Grammar& Pytest();

}  // namespace av::tool_tables
