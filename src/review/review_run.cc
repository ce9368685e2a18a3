#include "review/review_run.h"

#include <memory>

#include "review/package_config_review.h"

namespace av {

void RunBuiltinReview(const BuiltinReviewRequest& request, ReviewReport* report) {
  std::unique_ptr<ReviewSources> sources;
  if (request.runner != nullptr && !request.revisions.repo_dir.empty() &&
      !request.revisions.base_commit.empty()) {
    sources = std::make_unique<ReviewSources>(*request.runner, request.revisions);
  }
  SourceLookup lookup;
  if (sources) lookup = sources->Lookup();
  std::vector<Finding> findings =
      ReviewDiffs(request.diffs, request.options, sources ? &lookup : nullptr,
                  &report->files_reviewed, &report->files_skipped);

  PackageConfigReview config;
  if (!sources) {
    config = FlagPackageConfigInDiffs(request.diffs, request.options);
  } else if (!request.package_in_repo_known) {
    config.not_reviewed = "the package is outside the reviewed repository " +
                          request.revisions.repo_dir + ": its config is not part of the change";
  } else {
    config = ReviewPackageConfigFiles(*sources, request.package_in_repo, request.toml_name,
                                      request.diffs, request.options);
  }
  const size_t first_config = findings.size();
  for (Finding& f : config.findings) findings.push_back(std::move(f));
  NumberFindings(&findings);
  for (ConfigChange& c : config.changes) {
    const size_t index = first_config + std::stoul(c.finding);
    c.finding = index < findings.size() ? findings[index].id : "";
  }
  report->findings = std::move(findings);
  report->config_changes = std::move(config.changes);
  report->config_reviewed = config.reviewed;
  report->config_not_reviewed = config.not_reviewed;
}

}  // namespace av
