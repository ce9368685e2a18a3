#include "review/review_package.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "review/review_config.h"
#include "review/review_run.h"
#include "review/review_writers.h"
#include "review/rules.h"

namespace av {
namespace {

Status WriteWithParent(const std::string& path, std::string_view text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
  return WriteFileAtomically(path, text);
}

// What the rules need beyond the diffs: component kinds, and for a slice the repository
// and its two revisions (whole files, the package's own config).
BuiltinReviewRequest BuiltinReviewFor(const ReviewPackageConfig& config,
                                      const std::optional<SliceRecord>& slice,
                                      const ReviewOptions& options,
                                      std::vector<ReviewedDiff>& shown,
                                      const std::vector<Diff>& diffs, ProcessRunner* runner) {
  BuiltinReviewRequest r;
  r.options = options;
  for (size_t i = 0; i < diffs.size(); ++i) {
    ComponentDiff d{shown[i].component, &diffs[i], std::nullopt};
    if (const ComponentSpec* spec = FindComponent(config.components, d.component))
      d.kind = spec->kind;
    std::optional<ComponentKind> kind = d.kind ? d.kind : InferComponentKind(d.component);
    if (kind) shown[i].kind = std::string(ComponentKindName(*kind));
    r.diffs.push_back(d);
  }
  if (slice && !slice->repo.empty() && !config.package_dir.empty()) {
    r.runner = runner;
    r.revisions.repo_dir = slice->repo;
    r.revisions.base_commit = slice->base_commit;
    r.revisions.head = slice->head_commit;
    std::error_code ec;
    const std::filesystem::path package = std::filesystem::weakly_canonical(config.package_dir, ec);
    const std::filesystem::path repo = std::filesystem::weakly_canonical(slice->repo, ec);
    const std::filesystem::path rel = package.lexically_relative(repo);
    const std::string rel_text = rel.generic_string();
    r.package_in_repo_known = !rel.empty() && rel_text.rfind("..", 0) != 0;
    r.package_in_repo = rel_text == "." ? "" : rel_text;
    r.toml_name = std::filesystem::path(config.path).filename().string();
  }
  return r;
}

}  // namespace

Result<SliceOutcome> SlicePackage(ProcessRunner& runner, const SliceRequest& request) {
  AV_ASSIGN_OR_RETURN(ReviewPackageConfig config,
                      LoadReviewPackageConfig(request.config_path, BuiltinRuleIds()));
  GitDiffRequest git_request;
  git_request.repo_dir = config.repo_dir;
  git_request.base = request.base.empty() ? config.base : request.base;
  git_request.mode = request.mode;
  AV_ASSIGN_OR_RETURN(GitDiffOutput git, RunGitDiff(runner, git_request));
  AV_ASSIGN_OR_RETURN(Diff diff, ParseUnifiedDiff(git.text, "git diff " + git.base_commit));
  SliceOutcome out;
  out.package_dir = config.package_dir;
  SliceResult& slice = out.slice;
  slice.provenance = request.provenance;
  slice.provenance.config = PackageRelative(config.package_dir, request.config_path);
  slice.provenance.head_commit = git.head_commit;
  AV_RETURN_IF_ERROR(AddInputFile(&slice.provenance, config.package_dir, request.config_path));
  slice.provenance.finished = UtcNowRfc3339();
  slice.mode = request.mode == DiffMode::kStaged     ? "staged"
               : request.mode == DiffMode::kWorktree ? "worktree"
                                                     : "commit";
  slice.repo = git.toplevel;
  slice.base = git_request.base;
  slice.base_commit = git.base_commit;
  slice.head_commit = git.head_commit;
  slice.diff = std::move(diff);
  SliceDiff(SliceSpecs(config.components), &slice);
  AV_ASSIGN_OR_RETURN(out.written, WriteSlice(config.package_dir, slice));
  return out;
}

Result<ReviewOutcome> ReviewPackage(const ReviewRequest& request) {
  const bool explicit_config = !request.config_path.empty();
  const std::string config_path =
      explicit_config ? request.config_path : "attention-verify/attnverify.toml";
  std::error_code ec;
  ReviewPackageConfig config;
  const bool have_config = explicit_config || std::filesystem::exists(config_path, ec);
  if (have_config) {
    AV_ASSIGN_OR_RETURN(config, LoadReviewPackageConfig(config_path, BuiltinRuleIds()));
  } else if (request.diff_files.empty()) {
    return InvalidInput("no " + config_path +
                        ": pass --config FILE, or --diff FILE... to review diffs without a "
                        "package");
  }
  const std::string out_dir = !request.out_dir.empty() ? request.out_dir
                              : have_config            ? config.package_dir
                                                       : ".";

  ReviewOutcome out;
  ReviewReport& report = out.report;
  report.provenance = request.provenance;
  report.tool_version = request.provenance.tool_version;
  if (have_config) {
    report.provenance.config = PackageRelative(out_dir, config_path);
    AV_RETURN_IF_ERROR(AddInputFile(&report.provenance, out_dir, config_path));
  }
  report.disabled_rules = config.disabled_rules;
  ReviewOptions options;
  options.config_path = config_path;
  options.base = config.base;
  options.disabled_rules = config.disabled_rules;

  struct Input {
    std::string component, path, shown_path, expected_sha256;
  };
  std::optional<SliceRecord> slice_record;  // set when reviewing the package's slice
  std::vector<Input> inputs;
  if (!request.diff_files.empty()) {
    for (const std::string& f : request.diff_files) {
      inputs.push_back({std::filesystem::path(f).stem().string(), f, f, ""});
    }
  } else {
    const std::string slice_path = config.package_dir + "/evidence/slice.json";
    if (!std::filesystem::exists(slice_path, ec)) {
      return InvalidInput(slice_path + ": missing; run `attnverify slice --config " + config_path +
                          "` first, or pass --diff FILE...");
    }
    AV_ASSIGN_OR_RETURN(SliceRecord record, LoadSliceRecord(slice_path));
    slice_record = record;
    report.base = record.base;
    report.base_commit = record.base_commit;
    report.head_commit = record.head_commit;
    report.provenance.head_commit = record.head_commit;
    AV_RETURN_IF_ERROR(AddInputFile(&report.provenance, out_dir, slice_path));
    options.base = record.base;
    for (const SliceComponentRecord& e : record.components) {
      inputs.push_back({e.name, config.package_dir + "/" + e.path, e.path, e.sha256});
    }
  }

  std::vector<Diff> diffs;  // parsed first: ComponentDiff points into them
  diffs.reserve(inputs.size());
  for (const Input& in : inputs) {
    AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(in.path));
    std::string sha = Sha256Hex(text);
    if (!in.expected_sha256.empty() && sha != in.expected_sha256) {
      return InvalidInput(in.path + ": changed since `attnverify slice` wrote it (sha256 " + sha +
                          ", slice.json says " + in.expected_sha256 + "); slice again");
    }
    AV_ASSIGN_OR_RETURN(Diff diff, ParseUnifiedDiff(text, in.path));
    report.diffs.push_back(
        {in.component, in.shown_path, sha, static_cast<int64_t>(diff.files.size()), ""});
    report.provenance.inputs.push_back({PackageRelative(out_dir, in.path), sha});
    diffs.push_back(std::move(diff));
  }
  PosixProcessRunner posix_runner;
  BuiltinReviewRequest builtin =
      BuiltinReviewFor(config, slice_record, options, report.diffs, diffs, &posix_runner);
  if (request.runner != nullptr) builtin.runner = request.runner;
  RunBuiltinReview(builtin, &report);

  report.provenance.finished = UtcNowRfc3339();
  out.json_path = out_dir + "/evidence/review.json";
  out.markdown_path = out_dir + "/reports/review_01.md";
  AV_RETURN_IF_ERROR(WriteWithParent(out.json_path, JsonFileText(ReviewToJson(report))));
  AV_RETURN_IF_ERROR(WriteWithParent(out.markdown_path, ReviewToMarkdown(report)));
  return out;
}

}  // namespace av
