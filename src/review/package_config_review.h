// The package's own configuration, reviewed: a change between the base and head revisions
// to the tolerances, the shape sweep or attnverify.toml's [policy] decides what an accepted
// verdict means, so a PR that loosens them in the same commit is a finding (error when anything
// is loosened) and review.json lists every changed setting with old -> new
// (doc/review.md "The package's own config"). Comparisons are pure functions; the stage
// reads both revisions through ReviewSources.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "findings/finding.h"
#include "review/review_sources.h"
#include "review/rules.h"

namespace av {

// Changes between two tolerances.json documents (`file` is copied into each change).
// Numbers (atol, rtol, cos_tol, k) up, a limit dropped, allow_nan / equal_nan turned on: loosened.
std::vector<ConfigChange> CompareTolerances(const nlohmann::json& base, const nlohmann::json& head,
                                            const std::string& file);

// Changes between two shapes.json documents: a sweep, grid value, case, dtype, seed or
// invariance variant removed is loosened (less coverage); one added is "added".
std::vector<ConfigChange> CompareShapes(const nlohmann::json& base, const nlohmann::json& head,
                                        const std::string& file);

// Changes between the [policy] (and [numerics] shapes / tolerances paths) of two
// attnverify.toml texts: a required item removed or a waiver added is loosened.
std::vector<ConfigChange> ComparePolicy(const std::string& base_toml, const std::string& head_toml,
                                        const std::string& file);

struct PackageConfigReview {
  std::vector<Finding> findings;      // one per changed file (ids empty)
  std::vector<ConfigChange> changes;  // `finding` holds the index into findings, as text
  bool reviewed = false;
  std::string not_reviewed;  // why not, when !reviewed
};

// Reads the package's attnverify.toml, tolerances and shapes files at base and head.
// `package_in_repo` is the package folder relative to the repository's top ("" when the
// package is the top); `diffs` place the findings on the changed lines.
PackageConfigReview ReviewPackageConfigFiles(ReviewSources& sources,
                                             const std::string& package_in_repo,
                                             const std::string& toml_name,
                                             const std::vector<ComponentDiff>& diffs,
                                             const ReviewOptions& options);

// Without the repository (--diff files): a finding for each diff file that looks like a
// package's tolerances or shapes file, saying it changed and was not compared.
PackageConfigReview FlagPackageConfigInDiffs(const std::vector<ComponentDiff>& diffs,
                                             const ReviewOptions& options);

}  // namespace av
