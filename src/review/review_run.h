// The built-in review of one package as a single call: the rules over every component's
// diff (with the base and head files when a repository is at hand), the package's own
// config compared with the base revision's, findings numbered and config changes linked
// to their findings. review_package.cc calls it for `attnverify review` and `run`.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "findings/finding.h"
#include "review/review_sources.h"
#include "review/rules.h"

namespace av {

struct BuiltinReviewRequest {
  std::vector<ComponentDiff> diffs;
  ReviewOptions options;
  // The repository the slice was cut from; runner null or revisions.repo_dir empty: the
  // diffs alone (no whole files, the package's config not compared).
  ProcessRunner* runner = nullptr;
  RevisionPair revisions;
  // The package folder relative to the repository's top ("" for the top itself) and the
  // toml's file name; package_in_repo_known false when the package is outside the repo.
  bool package_in_repo_known = false;
  std::string package_in_repo;
  std::string toml_name = "attnverify.toml";
};

// Fills report->findings (numbered), config_changes, config_reviewed / config_not_reviewed,
// files_reviewed and files_skipped.
void RunBuiltinReview(const BuiltinReviewRequest& request, ReviewReport* report);

}  // namespace av
