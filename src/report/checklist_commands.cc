// The commands the report shows (doc/report.md, "Commands"): argv rendered with POSIX
// quoting (core/shell_quote.h), and the config path chosen structurally — as the user typed it when
// the evidence records that (an argv element, never a split string), else the path the report was
// given. Nothing here edits a command string.
#include <filesystem>

#include "core/shell_quote.h"
#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

namespace fs = std::filesystem;

std::string Normal(const std::string& p) { return fs::path(p).lexically_normal().string(); }

// The --config value of an argv ("--config X" or "--config=X"); `fallback` when absent.
std::string ConfigArg(const std::vector<std::string>& argv, const std::string& fallback) {
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--config" && i + 1 < argv.size()) return argv[i + 1];
    if (argv[i].rfind("--config=", 0) == 0) return argv[i].substr(9);
  }
  return fallback;
}

// True when `config`, given to a command that ran in `cwd` while the package was at
// `package`, names the package's attnverify.toml (`file`, its name). Compared as the paths
// were then, so a package moved since still recognises its own commands.
bool NamesPackageConfig(const std::string& config, const std::string& cwd,
                        const std::string& package, const std::string& file) {
  if (package.empty()) return false;
  const fs::path given = fs::path(config).is_absolute() ? fs::path(config) : fs::path(cwd) / config;
  if (!fs::path(config).is_absolute() && cwd.empty()) return false;
  return Normal(given.string()) == Normal((fs::path(package) / file).string());
}

}  // namespace

std::string DisplayConfig(const Evidence& ev, const ReportConfig& cfg) {
  if (!cfg.path.empty() && !fs::path(cfg.path).is_absolute()) return cfg.path;
  if (!ev.run) return cfg.path;
  const RunLedger& l = ev.run->ledger;
  const std::string file = fs::path(cfg.path).filename().string();
  std::error_code ec;
  const std::string here = Normal(fs::absolute(cfg.path, ec).parent_path().string());
  // `attnverify run` first (the stages it started were given its absolute path), then the
  // stages that ran on their own.
  struct Typed {
    const std::vector<std::string>* argv;
    const std::string *cwd, *package;
  };
  std::vector<Typed> typed;
  if (!l.argv.empty()) typed.push_back({&l.argv, &l.cwd, &l.package});
  for (const StageEntry& s : l.stages) typed.push_back({&s.argv, &s.cwd, &s.package});
  for (const Typed& t : typed) {
    // Only a record of this package where it is now: a relative path typed elsewhere
    // (another machine, a moved package) would not work from here.
    if (t.package->empty() || Normal(*t.package) != here) continue;
    const std::string config = ConfigArg(*t.argv, "attention-verify/attnverify.toml");
    if (!fs::path(config).is_absolute() && NamesPackageConfig(config, *t.cwd, *t.package, file))
      return config;
  }
  return cfg.path;
}

std::string StageCommand(const StageEntry& e, const ReportConfig& cfg, const std::string& display) {
  std::vector<std::string> argv = e.argv;
  if (argv.empty()) return "";
  // The stage ran as a child of `attnverify run` (argv[0] its absolute path): a user types
  // "attnverify".
  if (fs::path(argv[0]).filename() == "attnverify") argv[0] = "attnverify";
  const std::string file = fs::path(cfg.path).filename().string();
  auto names = [&](const std::string& c) { return NamesPackageConfig(c, e.cwd, e.package, file); };
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--config" && i + 1 < argv.size() && names(argv[i + 1])) {
      argv[i + 1] = display;
    } else if (argv[i].rfind("--config=", 0) == 0 && names(argv[i].substr(9))) {
      argv[i] = "--config=" + display;
    }
  }
  return ShellJoin(argv);
}

}  // namespace av::checklist
