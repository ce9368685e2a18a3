// attnverify judge: `numerics` for outputs that something else already computed (the
// pytest plugin's tests). The sweep's cases are generated again into a work folder of
// their own, the outputs under --outputs (DIR/cases/<id>/out/, the layout `cases
// --export` writes) are copied in by `attnverify cases --import-outputs` as the
// candidate, and the numerics sweep judges them: the same reference, rules, invariance
// checks, numerics.json and JUnit as a numerics run. Exit 0 every case passed, 1 any
// failed, 2 usage or input error, 3 internal error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/case_source.h"
#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/stage_recording.h"
#include "core/file.h"
#include "core/json_dump.h"
#include "core/json_reader.h"
#include "schema/numerics_json.h"
#include "schema/provenance.h"
#include "sweep/case_files.h"
#include "sweep/numerics_report.h"
#include "sweep/numerics_run.h"
#include "sweep/run_salt.h"

namespace av::cli {
namespace {
namespace fs = std::filesystem;

constexpr const char* kJudgeHelp =
    "Judge outputs computed elsewhere (pytest) as `attnverify numerics` judges a candidate's.\n"
    "--outputs DIR holds DIR/cases/<id>/out/outputs.safetensors (or <name>.npy), the layout\n"
    "`attnverify cases --export DIR` writes; the cases are generated again (their inputs'\n"
    "sha256 is in the evidence), the reference computed and every output compared under\n"
    "tolerances.json, with the invariance checks of the groups judged. A case without\n"
    "outputs fails, unless --skipped lists it: then it is recorded as skipped, not judged.\n"
    "Writes numerics.json (doc/formats/numerics-json.md) and JUnit XML.";

std::string SelfExecutable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("attnverify") : p.string();
}

bool Inside(const fs::path& path, const fs::path& dir) {
  fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// --skipped FILE: {"skipped": [{"id": ID, "reason": WHY}, ...]}, the cases the tests
// skipped (the pytest plugin writes it). Each is recorded as skipped, never judged.
Result<std::map<std::string, std::string>> ReadSkipped(const std::string& path) {
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  const JsonReader in(path);
  AV_ASSIGN_OR_RETURN(nlohmann::json doc, in.ParseObject(*text));
  AV_RETURN_IF_ERROR(in.CheckKeys(doc, "$", {"skipped"}));
  AV_ASSIGN_OR_RETURN(const nlohmann::json* list, in.Array(doc, "skipped", "$"));
  if (list == nullptr || !list->is_array()) return in.Error("$.skipped", "must be an array");
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string w = JsonReader::Index("$.skipped", i);
    const nlohmann::json& e = (*list)[i];
    if (!e.is_object()) return in.Error(w, "must be an object with \"id\" and \"reason\"");
    AV_RETURN_IF_ERROR(in.CheckKeys(e, w, {"id", "reason"}));
    std::string id, reason;
    AV_RETURN_IF_ERROR(in.Str(e, "id", w, &id));
    AV_RETURN_IF_ERROR(in.Str(e, "reason", w, &reason));
    if (id.empty()) return in.Error(w + ".id", "missing");
    out[id] = reason.empty() ? "skipped (no reason given)" : reason;
  }
  return out;
}

Status WriteEvidence(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
  return WriteFileAtomically(path, text);
}

}  // namespace

int RunJudge(std::vector<std::string> args) {
  CLI::App app(kJudgeHelp, "attnverify judge");
  CaseSourceFlags flags;
  std::string outputs, filter, evidence, junit, work, reference, skipped;
  std::vector<std::string> ids;
  int jobs = 0;
  app.add_option("--config", flags.config, "attnverify.toml ([numerics])");
  app.add_option("--shapes", flags.shapes, "shapes.json (instead of the toml's)");
  app.add_option("--tolerances", flags.tolerances, "tolerances.json (instead of the toml's)");
  app.add_option("--package", flags.package, "the package folder (default: see doc/python.md)");
  app.add_option("--outputs", outputs, "DIR with cases/<id>/out/ (from cases --export)")
      ->required();
  app.add_option("--filter", filter, "only cases whose id matches this regular expression");
  app.add_option("--case", ids, "only this case id (repeatable; its group's base case too)");
  app.add_option("--evidence", evidence, "numerics.json path (default from the package)");
  app.add_option("--junit", junit, "JUnit XML path (default beside the evidence)");
  app.add_option("--work", work, "work folder for the regenerated cases (default OUTPUTS/judge)");
  app.add_option("--reference", reference, "oracle | fast (default: the toml's, else oracle)")
      ->check(CLI::IsMember({"oracle", "fast"}));
  app.add_option("--jobs,-j", jobs, "cases judged at once");
  app.add_option("--skipped", skipped,
                 "JSON {\"skipped\": [{\"id\", \"reason\"}]}: cases the tests skipped "
                 "(recorded as skipped, not judged)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if (!ids.empty()) {
    if (!filter.empty()) return ReportError(InvalidInput("judge: --filter or --case, not both"));
    Result<std::string> re = ExactIdFilter(ids);
    if (!re.ok()) return ReportError(re.status());
    filter = *re;
  }
  if (!fs::is_directory(fs::path(outputs) / "cases")) {
    return ReportError(InvalidInput("--outputs " + outputs +
                                    ": no cases/ folder in it (write it with attnverify cases "
                                    "--export)"));
  }
  Result<NumericsConfig> config = ResolveCaseSource(flags);
  if (!config.ok()) return ReportError(config.status());
  const std::string from = fs::absolute(outputs).lexically_normal().string();
  NumericsOptions options;
  options.config = *config;
  NumericsConfig& c = options.config;
  c.work_dir = fs::absolute(work.empty() ? from + "/judge" : work).lexically_normal().string();
  if (Inside(c.work_dir, fs::path(from) / "cases") || c.work_dir == from) {
    return ReportError(InvalidInput("--work " + c.work_dir + " would overwrite the outputs in " +
                                    from + "/cases"));
  }
  if (!evidence.empty()) c.evidence = fs::absolute(evidence).lexically_normal().string();
  if (!junit.empty()) {
    c.junit = fs::absolute(junit).lexically_normal().string();
  } else if (!evidence.empty()) {
    c.junit = (fs::path(c.evidence).parent_path() / "numerics.junit.xml").string();
  }
  if (reference == "fast") c.reference.kind = ImplKind::kFast;
  if (reference == "oracle") c.reference.kind = ImplKind::kOracle;
  // The candidate is attnverify itself, copying what the tests wrote: nothing to sandbox
  // (the kernel ran in the test process, before this command started).
  c.has_candidate = true;
  c.candidate = CandidateConfig();
  c.candidate.command = {SelfExecutable(), "cases", "--import-outputs", from, "{cases}"};
  c.candidate.mode = CandidateMode::kAllCases;
  c.candidate.cwd = c.base_dir;
  c.candidate.sandbox = SandboxMode::kNone;
  options.filter = filter;
  if (!skipped.empty()) {
    Result<std::map<std::string, std::string>> list = ReadSkipped(skipped);
    if (!list.ok()) return ReportError(list.status());
    options.skipped = std::move(*list);
  }
  options.exported_layout = true;  // the inputs and folders `cases --export` wrote
  // The export's salt and drawn cases, so the same cases are generated again; an export
  // from before salts existed is judged unsalted, with a warning.
  const std::string index = from + "/cases.json";
  Result<ExportStamp> stamp = ReadExportStamp(index);
  if (!stamp.ok()) return ReportError(stamp.status());
  if (stamp->salt == 0) {
    std::fprintf(stderr,
                 "attnverify: warning: %s has no salt (exported by an older attnverify): its "
                 "inputs are the same in every export; export again\n",
                 index.c_str());
  }
  options.salt = stamp->salt;
  c.drawn_cases = stamp->drawn_cases;
  options.jobs = jobs > 0 ? jobs : c.jobs;
  // Evidence written into a package takes its lock, as every writer of a package does.
  // There it is the package's numerics stage too (evidence/run.json), so the report binds
  // the file to this run as it binds a numerics run's.
  std::optional<Result<PackageLock>> lock;
  std::optional<RecordedStage> stage;
  if (Inside(c.evidence, c.base_dir)) {
    lock.emplace(LockPackage(c.base_dir, args));
    if (!lock->ok()) return ReportError(lock->status());
    stage.emplace(c.base_dir, "numerics", args);
  }
  Provenance provenance = StartProvenance("numerics", RecordedArgv(args));
  if (stage) stage->Bind(&provenance);
  auto finish = [&](int code, const std::string& reason = "") {
    return stage ? stage->Finish(code, reason) : code;
  };
  auto fail = [&](const Status& st) { return stage ? stage->Fail(st) : ReportError(st); };
  PosixProcessRunner runner;
  options.runner = &runner;
  Result<NumericsRun> run = RunNumericsSweep(options);
  if (!run.ok()) return fail(run.status());
  for (const std::string& w : run->warnings)
    std::fprintf(stderr, "attnverify: warning: %s\n", w.c_str());
  const NumericsRecord record = NumericsRunToRecord(*run, c, std::move(provenance));
  Status st = WriteEvidence(c.evidence, JsonFileText(NumericsToJson(record)));
  if (st.ok()) st = WriteEvidence(c.junit, NumericsToJUnit(record));
  if (!st.ok()) return fail(st);
  std::fputs(FormatNumericsSummary(*run).c_str(), stdout);
  std::printf("evidence: %s\njunit:    %s\n", c.evidence.c_str(), c.junit.c_str());
  for (const CaseResult& r : run->cases) {
    if (r.verdict == CaseVerdict::kError) {
      std::fprintf(stderr, "attnverify: %s: %s\n", r.spec.id.c_str(), r.reason.c_str());
      return finish(kExitInternal, r.spec.id + ": " + r.reason);
    }
  }
  return finish(run->failed() == 0 ? kExitOk : kExitRejected);
}

}  // namespace av::cli
