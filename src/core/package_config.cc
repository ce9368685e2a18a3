#include "core/package_config.h"

#include "core/file.h"
#include "core/package_schema.h"
#include "core/toml_config.h"

namespace av {

Result<PackageConfig> PackageConfig::Parse(std::string_view text, const std::string& path) {
  AV_ASSIGN_OR_RETURN(toml::table doc, ParsePackageConfig(text, path));
  return PackageConfig(path, std::make_shared<const toml::table>(std::move(doc)));
}

Result<PackageConfig> PackageConfig::Load(const std::string& path) {
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return Parse(text, path);
}

Result<const toml::table*> PackageConfig::Table(std::string_view name) const {
  bool known = false;
  for (const PackageTable& t : PackageTables()) known |= t.name == name;
  // A module asking for a table the list does not have is a bug here, not in the file.
  if (!known) {
    return Internal(std::string("[").append(name).append("] is not a table of the package schema"));
  }
  return TomlTableReader(path_).OptionalTable(*doc_, name);
}

}  // namespace av
