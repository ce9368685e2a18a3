// attnverify profile: profiler evidence. `--import FILE --label base|head` reads an ncu,
// nsys, Google Benchmark or timing-CSV export and adds it to evidence/perf.json; `--run`
// profiles the base and the head build under ncu on a GPU host and imports both; `--show`
// prints the perf gates the report's items 3 and 4 read (exit 1 when one fails). Formats,
// matching and gates: doc/profile.md; the file: doc/formats/perf-json.md.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/parse.h"
#include "core/process.h"
#include "core/utf8.h"
#include "profile/gates.h"
#include "profile/import.h"
#include "profile/ncu_run.h"
#include "profile/perf_model.h"
#include "profile/profile_config.h"
#include "report/chart_labels.h"
#include "schema/provenance.h"

namespace av::cli {
namespace {

namespace fs = std::filesystem;
using namespace av::profile;

constexpr const char* kProfileHelp =
    "Profiler evidence for checklist items 3 (occupancy, bank conflicts) and 4 (time and\n"
    "throughput before and after). --import FILE --label base|head adds an export to\n"
    "evidence/perf.json: ncu --csv (details or --page raw), nsys stats --report\n"
    "cuda_gpu_kern_sum --format csv, Google Benchmark JSON, or a kernel,shape,time_ns CSV.\n"
    "--run profiles [profile] bench under ncu for the base and the head build (a GPU host;\n"
    "exit 2 without ncu) and imports both. --show prints the gates (exit 1 when one fails).\n"
    "Gates and [profile] keys: doc/profile.md.";

// `provenance` gathers what this command read (the config, each export imported) and
// names the import that wrote perf.json last.
int Import(const std::string& file, const std::string& label, const std::string& shape,
           const std::string& format_name, const std::string& perf_path,
           const std::string& package_dir, Provenance* provenance) {
  std::optional<ImportFormat> format = ParseImportFormat(format_name);
  if (!format) {
    return ReportError(InvalidInput(
        "--format must be auto, ncu, ncu-raw, nsys, gbench or csv, got \"" + format_name + "\""));
  }
  Result<std::vector<KernelProfile>> kernels =
      ImportProfileFile(file, *format, {label, shape, file, ""});
  if (!kernels.ok()) return ReportError(kernels.status());
  if (Status st = AddInputFile(provenance, package_dir, file); !st.ok()) return ReportError(st);
  provenance->finished = UtcNowRfc3339();
  Status s = AppendPerfJson(perf_path, *kernels, provenance);
  if (!s.ok()) return ReportError(s);
  size_t launches = 0;
  for (const KernelProfile& k : *kernels) {
    launches += k.summary ? static_cast<size_t>(k.summary->instances) : k.launches.size();
  }
  std::printf("%s: %zu kernel(s), %zu launch(es) from %s as %s (%s, %s)\n", perf_path.c_str(),
              kernels->size(), launches, ShowControlCharacters(file).c_str(),
              ShowControlCharacters(label).c_str(), (*kernels)[0].format.c_str(),
              ShowControlCharacters((*kernels)[0].tool_version).c_str());
  return kExitOk;
}

constexpr size_t kKernelColumn = 72;

int Show(const ProfileConfig& cfg, const std::string& perf_path) {
  Result<PerfDoc> doc = ReadPerfJson(perf_path);
  if (!doc.ok()) return ReportError(doc.status());
  PerfVerdict v =
      JudgePerfDoc(*doc, cfg, {}, "attnverify profile --run (or ncu --launch-count 5 ...)");
  bool failed = false;
  // A template instantiation's name runs to hundreds of characters: cut in the middle to a
  // bounded column, numbered where two cut names would read the same (report/chart_labels.h).
  std::vector<std::string> names;
  for (const GateResult& g : v.gates) names.push_back(ShowControlCharacters(g.kernel));
  const std::vector<std::string> labels = ChartLabels(names, kKernelColumn);
  for (size_t i = 0; i < v.gates.size(); ++i) {
    const GateResult& g = v.gates[i];
    failed |= g.status == CheckStatus::kFail;
    // Kernel names and shapes come from an export made elsewhere: shown, never obeyed.
    std::printf("%-7s %-14s %s [%s]: %s\n", GateStatusName(g.status), g.gate.c_str(),
                labels[i].c_str(), ShowControlCharacters(g.shape).c_str(),
                ShowControlCharacters(g.summary).c_str());
  }
  return failed ? kExitRejected : kExitOk;
}

int Run(const ProfileConfig& cfg, const std::string& package_dir, const std::string& perf_path,
        Provenance* provenance) {
  if (FindExecutable("ncu").empty()) {
    std::fprintf(stderr,
                 "attnverify: ncu (Nsight Compute) is not on PATH: `profile --run` needs a GPU "
                 "host. Elsewhere, import exports made there: attnverify profile --import "
                 "ncu_head.csv --label head\n");
    return kExitUsage;
  }
  PosixProcessRunner runner;
  const std::string logs = (fs::path(package_dir) / "logs").string();
  std::error_code ec;
  fs::create_directories(logs, ec);
  for (const char* label : {"base", "head"}) {
    const std::string& dir = std::string(label) == "base" ? cfg.base_dir : cfg.head_dir;
    if (dir.empty()) {
      return ReportError(InvalidInput(std::string("[profile] ") + label + "_dir is not set"));
    }
    std::string build_dir = (fs::path(package_dir) / dir).string();
    Result<NcuRunResult> r = RunNcu(runner, cfg, build_dir, logs, label);
    if (!r.ok()) return ReportError(r.status());
    if (int code = Import(r->log_path, label, "", "ncu-raw", perf_path, package_dir, provenance);
        code != kExitOk)
      return code;
  }
  return kExitOk;
}

}  // namespace

int RunProfile(std::vector<std::string> args) {
  CLI::App app(kProfileHelp, "attnverify profile");
  std::string config_path = "attention-verify/attnverify.toml", import_file, label, shape,
              format = "auto", perf_path;
  bool run = false, show = false;
  CLI::Option* config_option =
      app.add_option("--config", config_path, "attnverify.toml")->capture_default_str();
  app.add_option("--import", import_file, "a profiler export to add to evidence/perf.json");
  app.add_option("--label", label, "base or head: which build the export measured");
  app.add_option("--shape", shape, "the shape the export ran (names the row in item 4)");
  app.add_option("--format", format, "auto, ncu, ncu-raw, nsys, gbench or csv")
      ->capture_default_str();
  app.add_option("--perf", perf_path,
                 "perf.json to write (default: evidence/perf.json of the package)");
  app.add_flag("--run", run, "profile [profile] bench under ncu for base and head, then import");
  app.add_flag("--show", show, "print the perf gates over perf.json");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if ((import_file.empty() ? 0 : 1) + (run ? 1 : 0) + (show ? 1 : 0) != 1) {
    return ReportError(InvalidInput("give one of --import FILE, --run or --show"));
  }
  std::error_code ec;
  const bool have_config = fs::exists(config_path, ec);
  if (!have_config && (config_option->count() > 0 || perf_path.empty())) {
    return ReportError(NotFound(config_path + ": no such file (pass --config, or --perf FILE)"));
  }
  const std::string package_dir =
      have_config ? fs::absolute(config_path).parent_path().string() : fs::current_path().string();
  if (perf_path.empty()) perf_path = (fs::path(package_dir) / "evidence" / "perf.json").string();
  ProfileConfig cfg;
  Provenance provenance = StartProvenance("profile", RecordedArgv(args));
  if (have_config) {
    Result<ProfileConfig> c = LoadProfileConfig(config_path);
    if (!c.ok()) return ReportError(c.status());
    cfg = std::move(c).value();
    provenance.config = PackageRelative(package_dir, config_path);
    if (Status st = AddInputFile(&provenance, package_dir, config_path); !st.ok())
      return ReportError(st);
  }
  if (show) return Show(cfg, perf_path);
  if (run) return Run(cfg, package_dir, perf_path, &provenance);
  if (label != "base" && label != "head") {
    return ReportError(InvalidInput("--label must be base or head, got \"" + label + "\""));
  }
  fs::create_directories(fs::path(perf_path).parent_path(), ec);
  return Import(import_file, label, shape, format, perf_path, package_dir, &provenance);
}

}  // namespace av::cli
