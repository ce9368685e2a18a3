#include "compile/build_evidence.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/json_dump.h"
#include "compile/arch_limits.h"
#include "compile/git_worktree.h"
#include "compile/nvcc_runner.h"
#include "compile/ptxas_log.h"
#include "compile/resources_writer.h"
#include "compile/smem_scan.h"
#include "compile/source_files.h"

namespace av {
namespace {

namespace fs = std::filesystem;

Status MakeDirs(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir + ": cannot create folder: " + ec.message());
  return Status::Ok();
}

// Keeps a copy of an imported log in the package (`copy`, e.g. logs/build.log), so the
// manifest covers the evidence's source and a moved package still holds it.
Result<PtxasReport> ImportLog(const std::string& text, const std::string& copy,
                              const std::string& name) {
  AV_ASSIGN_OR_RETURN(PtxasReport report, ParsePtxasLog(text, name));
  AV_RETURN_IF_ERROR(WriteFileAtomically(copy, text));
  return report;
}

// Runs [build] base_setup in the base copy; its output goes to the base log.
Status RunBaseSetup(ProcessRunner& runner, const BuildConfig& config, const std::string& head_top,
                    const std::string& base_top, std::string* log,
                    std::vector<std::string>* failed) {
  ProcessRequest req;
  for (const std::string& a : config.base_setup) {
    std::string arg = a;
    for (auto [key, value] : {std::pair{std::string("{head}"), head_top}, {"{base}", base_top}}) {
      for (size_t at = arg.find(key); at != std::string::npos;
           at = arg.find(key, at + value.size()))
        arg.replace(at, key.size(), value);
    }
    req.argv.push_back(arg);
  }
  req.cwd = base_top;
  req.timeout_ms = config.timeout_s * 1000;
  auto r = runner.Run(req);
  std::string cmd;
  for (const std::string& a : req.argv) cmd += (cmd.empty() ? "" : " ") + a;
  *log += "attnverify: [build] base_setup: " + cmd + "\n";
  if (!r.ok()) {
    failed->push_back("[build] base_setup (" + cmd + "): " + r.status().message());
    return Status::Ok();
  }
  *log += r->stdout_text + r->stderr_text;
  if (!r->ok()) failed->push_back("[build] base_setup (" + cmd + "): " + r->Describe());
  return Status::Ok();
}

// Compiles in `root` and writes the raw log (`prefix` first: what ran before); fills
// `info`. `log_path` is where it is written, `log_name` the package-relative name.
Result<PtxasReport> CompileRevision(ProcessRunner& runner, const std::string& nvcc,
                                    const BuildConfig& config,
                                    const std::vector<std::string>& targets,
                                    const std::string& root, const std::string& log_path,
                                    const std::string& log_name, const std::string& prefix,
                                    RevisionInfo* info, bool* failed,
                                    std::vector<std::string>* failed_calls, std::string* version) {
  for (const std::string& s : config.sources) {
    fs::path p = fs::path(s).is_absolute() ? fs::path(s) : fs::path(root) / s;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      return InvalidInput(config.path + ": [build] source \"" + s + "\" not found in " + root);
    }
  }
  AV_ASSIGN_OR_RETURN(NvccRun run, RunNvcc(runner, nvcc, config, targets, root));
  AV_RETURN_IF_ERROR(WriteFileAtomically(log_path, prefix + run.log));
  for (const NvccInvocation& inv : run.invocations) {
    info->commands.push_back(inv.argv);
    info->exit_codes.push_back(inv.exit_code);
    if (inv.exit_code != 0)
      failed_calls->push_back("nvcc " + inv.source + " for " + inv.target + ": " + inv.outcome);
  }
  *failed = !run.all_succeeded;
  *version = run.version;
  info->log_path = log_name;
  return ParsePtxasLog(run.log, log_name);
}

// Writes the base revision's files into a temporary copy (git_worktree.h), runs
// [build] base_setup there and compiles it as the head was compiled.
Result<PtxasReport> CompileBase(ProcessRunner& runner, const std::string& nvcc,
                                const BuildConfig& config, const std::vector<std::string>& targets,
                                const std::string& ref, const std::string& log_path,
                                RevisionInfo* info, ResourcesInput* input) {
  AV_ASSIGN_OR_RETURN(std::unique_ptr<GitWorktree> tree,
                      GitWorktree::Create(runner, config.root, ref));
  // The same folder inside the base copy: sources and -I flags stay relative.
  std::error_code ec;
  std::string rel = fs::weakly_canonical(config.root, ec)
                        .lexically_relative(fs::weakly_canonical(tree->toplevel(), ec))
                        .string();
  if (rel.rfind("..", 0) == 0) {
    return InvalidInput("[build] root " + config.root + " is outside the git repository " +
                        tree->toplevel() + ": --base cannot build it from the base revision");
  }
  std::string base_root = rel.empty() || rel == "." ? tree->path() : tree->path() + "/" + rel;
  info->commit = tree->commit();
  input->base_warnings = tree->warnings();
  std::string setup_log;
  if (!config.base_setup.empty()) {
    AV_RETURN_IF_ERROR(RunBaseSetup(runner, config, tree->toplevel(), tree->path(), &setup_log,
                                    &input->base_failed_calls));
    input->base_build_failed = !input->base_failed_calls.empty();
  }
  std::string version;
  bool failed = false;
  std::vector<std::string> compile_failures;
  AV_ASSIGN_OR_RETURN(PtxasReport base, CompileRevision(runner, nvcc, config, targets, base_root,
                                                        log_path, info->log_path, setup_log, info,
                                                        &failed, &compile_failures, &version));
  input->base_build_failed |= failed;
  input->base_failed_calls.insert(input->base_failed_calls.end(), compile_failures.begin(),
                                  compile_failures.end());
  return base;
}

// The launch sites of the sources and of the headers they include (source_files.h).
void ScanSources(const BuildConfig& config, ResourcesInput* input) {
  SourceWalk walk = WalkSourcesAndIncludes(
      config.root, config.sources, config.flags,
      [&](const std::string& shown, std::string_view text, bool is_source) {
        for (DynamicSmemSite& site : ScanDynamicSmem(text, shown)) {
          site.included = !is_source;
          input->sites.push_back(std::move(site));
        }
      });
  input->scanned_files = walk.files;
  input->scan_warnings = walk.warnings;
}

}  // namespace

std::vector<std::string> TargetArchs(const std::vector<std::string>& targets) {
  std::vector<std::string> out;
  auto add = [&](const std::string& a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const std::string& t : targets) {
    size_t code = t.find("code=");
    if (t.rfind("arch=", 0) != 0 || code == std::string::npos) {
      add(NormalizeArch(t));
      continue;
    }
    std::string list = t.substr(code + 5);
    size_t at = 0;
    while ((at = list.find("sm_", at)) != std::string::npos) {
      size_t end = at + 3;
      while (end < list.size() && std::isalnum(static_cast<unsigned char>(list[end]))) ++end;
      add(list.substr(at, end - at));
      at = end;
    }
  }
  return out;
}

Result<BuildOutcome> CollectBuildEvidence(ProcessRunner& runner, const BuildRequest& req) {
  const BuildConfig& config = req.config;
  std::vector<std::string> targets = req.arch_override.empty() ? config.archs : req.arch_override;
  for (const std::string& t : targets) AV_RETURN_IF_ERROR(GencodeFor(t).status());
  bool importing = !req.import_log.empty();
  if (importing && !req.base_ref.empty()) {
    return InvalidInput(
        "--base compiles the base revision and --import does not compile: "
        "give the base's log with --import-base instead");
  }
  if (!importing) {
    if (config.sources.empty()) {
      return InvalidInput((config.path.empty() ? std::string("attnverify.toml") : config.path) +
                          ": [build] sources is empty (or use --import LOG)");
    }
    if (targets.empty())
      return InvalidInput("no target archs: set [build] archs or pass --arch sm_90a");
  }
  std::string logs = req.out_dir + "/logs", evidence = req.out_dir + "/evidence";
  AV_RETURN_IF_ERROR(MakeDirs(logs));
  AV_RETURN_IF_ERROR(MakeDirs(evidence));
  BuildOutcome outcome;
  const std::string json_path = evidence + "/resources.json";
  auto write_json = [&](const ResourcesReport& r) -> Status {
    AV_RETURN_IF_ERROR(WriteFileAtomically(
        json_path, ResourcesReportToJsonText(r, req.provenance, req.out_dir)));
    outcome.written.push_back(json_path);
    return Status::Ok();
  };

  // Paths recorded in the evidence are package-relative (the package may move).
  const std::string head_log = "logs/build.log", base_log = "logs/build-base.log";
  ResourcesInput input;
  input.config = &config;
  PtxasReport head, base;
  RevisionInfo head_info{"head", "working tree", "", head_log, {}, {}, 0, false};
  std::optional<RevisionInfo> base_info;
  std::string nvcc, version;
  if (importing) {
    // Both are read before either copy is written: a bad --import-base loses nothing.
    AV_ASSIGN_OR_RETURN(std::string head_text, ReadFileToString(req.import_log));
    std::string base_text;
    if (!req.import_base_log.empty()) {
      AV_ASSIGN_OR_RETURN(base_text, ReadFileToString(req.import_base_log));
    }
    AV_ASSIGN_OR_RETURN(head, ImportLog(head_text, logs + "/build.log", head_log));
    outcome.written.push_back(logs + "/build.log");
    head_info.ref = "imported";
    if (!req.import_base_log.empty()) {
      AV_ASSIGN_OR_RETURN(base, ImportLog(base_text, logs + "/build-base.log", base_log));
      outcome.written.push_back(logs + "/build-base.log");
      base_info = RevisionInfo{"base", "imported", "", base_log, {}, {}, 0, false};
      input.base = &base;
    }
  } else {
    std::string why;
    nvcc = FindNvcc(config, &why);
    if (nvcc.empty()) {
      outcome.report =
          MissingResourcesReport(why +
                                     "; the compile evidence (registers, shared memory, "
                                     "spills, occupancy) is missing",
                                 TargetArchs(targets));
      AV_RETURN_IF_ERROR(write_json(outcome.report));
      return outcome;
    }
    AV_ASSIGN_OR_RETURN(
        head, CompileRevision(runner, nvcc, config, targets, config.root, logs + "/build.log",
                              head_log, "", &head_info, &input.head_build_failed,
                              &input.head_failed_calls, &version));
    outcome.written.push_back(logs + "/build.log");
    if (!req.base_ref.empty()) {
      base_info = RevisionInfo{"base", req.base_ref, "", base_log, {}, {}, 0, false};
      AV_ASSIGN_OR_RETURN(base, CompileBase(runner, nvcc, config, targets, req.base_ref,
                                            logs + "/build-base.log", &*base_info, &input));
      outcome.written.push_back(logs + "/build-base.log");
      input.base = &base;
    }
  }
  input.head = &head;
  ScanSources(config, &input);
  input.archs = TargetArchs(targets);
  if (input.archs.empty()) {  // imported without --arch: the archs the log names
    for (const PtxasKernel* k : head.EntryKernels()) {
      std::string a = NormalizeArch(k->arch);
      if (!a.empty() && std::find(input.archs.begin(), input.archs.end(), a) == input.archs.end()) {
        input.archs.push_back(a);
      }
    }
  }
  head_info.errors = head.CountErrors();
  head_info.truncated = head.truncated;
  if (base_info) {
    base_info->errors = base.CountErrors();
    base_info->truncated = base.truncated;
  }
  outcome.report = ComputeResourcesReport(input);
  outcome.report.nvcc_path = nvcc;
  outcome.report.nvcc_version = version;
  outcome.report.head = head_info;
  outcome.report.base = base_info;
  AV_RETURN_IF_ERROR(write_json(outcome.report));
  return outcome;
}

}  // namespace av
