// attnverify.toml, parsed once: the one value a command loads and hands to each module
// that reads a table of it. Parse checks every top-level name against the list of
// {table, owning command} (core/package_schema.h) and every key of a known table; each
// module then takes its table with Table() and reads its values (build_config in evidence/,
// numerics_config in sweep/, review_config in review/, report_config and profile_config,
// provider_config in llm/, run_config in pipeline/), so one command that needs several
// tables (report: [policy], [report], [profile]; agent: [slice], [components], [review],
// [provider]) reads the file once. Every error names FILE:LINE(:COL). Immutable after
// Parse; copies share the document; any thread.
#pragma once

#include <toml++/toml.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace av {

class PackageConfig {
 public:
  // The text of `path` (as named: it prefixes every message), parsed and checked.
  static Result<PackageConfig> Parse(std::string_view text, const std::string& path);
  // Reads `path`, then Parse.
  static Result<PackageConfig> Load(const std::string& path);

  const std::string& path() const { return path_; }
  // The whole document, for a reader of several tables (run's plan).
  const toml::table& doc() const { return *doc_; }
  // The top-level table `name`, one of PackageTables(): null when the file has none;
  // "PATH:LINE:COL: \"name\" must be a table" when it is something else.
  Result<const toml::table*> Table(std::string_view name) const;

 private:
  PackageConfig(std::string path, std::shared_ptr<const toml::table> doc)
      : path_(std::move(path)), doc_(std::move(doc)) {}

  std::string path_;
  std::shared_ptr<const toml::table> doc_;
};

}  // namespace av
