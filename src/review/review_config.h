// The [slice], [components] and [review] tables of attnverify.toml (doc/review.md):
// which git work tree and base ref to diff, which path globs make each component (in
// file order = priority) and, optionally, its kind, and which built-in review rules are
// switched off. Unknown keys
// are errors naming FILE:LINE:COLUMN. Plain data once loaded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/package_config.h"
#include "core/status.h"
#include "diff/slice.h"
#include "review/component_kind.h"

namespace av {

// A component: its name ([A-Za-z0-9_.-]+, not "unassigned") and globs, as the slicer
// takes them, and what kind of code it holds.
struct ComponentSpec : SliceSpec {
  // `name = { paths = [...], kind = "gemm" }`; absent: inferred (component_kind.h).
  std::optional<ComponentKind> kind;
};

struct ReviewPackageConfig {
  std::string path;         // the toml file, as given
  std::string package_dir;  // its folder (absolute)
  std::string repo_dir;     // [slice] repo resolved against package_dir (absolute); default ".."
  std::string base = "HEAD~1";
  std::vector<ComponentSpec> components;
  std::string reviewer = "builtin";
  std::vector<std::string> disabled_rules;
};

// `known_rules` validates [review] disable (an unknown rule id is an error).
Result<ReviewPackageConfig> ParseReviewPackageConfig(const PackageConfig& package,
                                                     const std::vector<std::string>& known_rules);
Result<ReviewPackageConfig> ParseReviewPackageConfig(std::string_view text, const std::string& path,
                                                     const std::vector<std::string>& known_rules);
Result<ReviewPackageConfig> LoadReviewPackageConfig(const std::string& path,
                                                    const std::vector<std::string>& known_rules);

// The components as the slicer takes them (diff/slice.h), in the same order.
std::vector<SliceSpec> SliceSpecs(const std::vector<ComponentSpec>& components);

// The first component whose globs match `path`; empty when none does ("unassigned").
std::string AssignComponent(const std::vector<ComponentSpec>& components, std::string_view path);

// The component called `name`, or null.
const ComponentSpec* FindComponent(const std::vector<ComponentSpec>& components,
                                   std::string_view name);

}  // namespace av
