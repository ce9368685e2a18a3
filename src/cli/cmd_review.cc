// attnverify review: run the built-in review rules over the sliced diffs of the package
// (or over diff files given with --diff; no repository needed) and write
// evidence/review.json and reports/review_01.md. Findings are questions, not verdicts:
// exit 0 whatever they say; 2 when the input is missing or malformed.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/stage_recording.h"
#include "core/version.h"
#include "review/review_package.h"
#include "review/rules.h"
#include "schema/provenance.h"

namespace av::cli {
namespace {

constexpr const char* kReviewHelp =
    "Built-in review of the refactor's diff: rules that know CUDA, C++ and Python raise\n"
    "findings (file:line on the new side, checklist item, the attnverify command that\n"
    "verifies it). Reads diff/*.diff listed in evidence/slice.json (run `attnverify slice`\n"
    "first), or the files given with --diff. Writes evidence/review.json\n"
    "(doc/formats/review-json.md) and reports/review_01.md. [review] disable = [ids] turns\n"
    "rules off; `attnverify review --rules` lists them (doc/review.md).";

}  // namespace

int RunReview(std::vector<std::string> args) {
  CLI::App app(kReviewHelp, "attnverify review");
  ReviewRequest request;
  bool list_rules = false;
  app.add_option("--config", request.config_path,
                 "attnverify.toml (default: attention-verify/attnverify.toml)");
  app.add_option("--diff", request.diff_files,
                 "review these unified diff files instead of the package's slice")
      ->take_all();
  app.add_option("--out", request.out_dir,
                 "package folder for evidence/ and reports/ (default: the config's folder)");
  app.add_flag("--rules", list_rules, "list the built-in rules and exit");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  if (list_rules) {
    for (const RuleInfo& r : BuiltinRules()) {
      std::printf("%-32s %-8s item %d  %s\n", std::string(r.id).c_str(), SeverityName(r.severity),
                  r.checklist_item, std::string(r.looks_for).c_str());
    }
    return kExitOk;
  }
  request.provenance = StartProvenance("review", RecordedArgv(args));
  // The folder that receives evidence/ and reports/: --out, else the config's package.
  std::error_code ec;
  const std::string config_path =
      !request.config_path.empty() ? request.config_path : "attention-verify/attnverify.toml";
  Result<PackageLock> lock =
      !request.out_dir.empty() ? LockPackage(request.out_dir, args)
      : !request.config_path.empty() || std::filesystem::exists(config_path, ec)
          ? LockPackageOfConfig(config_path, args)
          : LockPackage(".", args);
  if (!lock.ok()) return ReportError(lock.status());

  // A package's review records its entry in evidence/run.json (unless under `run`); a
  // review of --diff files without a package records nothing.
  std::optional<RecordedStage> stage;
  if (request.diff_files.empty() || std::filesystem::exists(config_path, ec)) {
    stage.emplace(
        request.out_dir.empty()
            ? std::filesystem::absolute(config_path).parent_path().lexically_normal().string()
            : request.out_dir,
        "review", args);
    stage->Bind(&request.provenance);
  }
  auto finish = [&](int code, const std::string& reason = "") {
    return stage ? stage->Finish(code, reason) : code;
  };
  Result<ReviewOutcome> out = ReviewPackage(request);
  if (!out.ok()) return finish(ReportError(out.status()), out.status().message());
  const ReviewReport& report = out->report;
  for (const Finding& f : report.findings) {
    std::printf("%s %-7s item %d  %s:%lld  %s  [%s]\n", f.id.c_str(), SeverityName(f.severity),
                f.checklist_item, f.file.c_str(), static_cast<long long>(f.line), f.title.c_str(),
                f.rule.c_str());
  }
  std::printf("%zu findings in %lld files (%lld skipped)\nwrote %s\nwrote %s\n",
              report.findings.size(), static_cast<long long>(report.files_reviewed),
              static_cast<long long>(report.files_skipped), out->json_path.c_str(),
              out->markdown_path.c_str());
  return finish(kExitOk);
}

}  // namespace av::cli
