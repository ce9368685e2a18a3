#include "cli/case_source.h"

#include <filesystem>

namespace av::cli {
namespace fs = std::filesystem;

Result<NumericsConfig> ResolveCaseSource(const CaseSourceFlags& flags) {
  std::string toml = flags.config;
  if (toml.empty() && flags.shapes.empty() && fs::exists("attention-verify/attnverify.toml"))
    toml = "attention-verify/attnverify.toml";
  // --shapes inside a package that has an attnverify.toml (the workflow's pytest command):
  // that toml's [numerics] (reference, evidence, work folder) applies, as for `numerics`.
  if (toml.empty() && flags.package.empty() && !flags.shapes.empty()) {
    fs::path dir = fs::absolute(flags.shapes).lexically_normal().parent_path();
    if (dir.filename() == "config" && fs::is_regular_file(dir.parent_path() / "attnverify.toml"))
      toml = (dir.parent_path() / "attnverify.toml").string();
  }
  NumericsConfig config;
  if (!toml.empty()) {
    AV_ASSIGN_OR_RETURN(config, LoadNumericsConfig(toml));
  } else {
    if (flags.shapes.empty()) {
      return InvalidInput(
          "no sweep: give --config attnverify.toml, or --shapes shapes.json and --tolerances "
          "tolerances.json (attention-verify/attnverify.toml does not exist here)");
    }
    fs::path shapes_dir = fs::absolute(flags.shapes).lexically_normal().parent_path();
    fs::path package = shapes_dir.filename() == "config" ? shapes_dir.parent_path() : shapes_dir;
    config.base_dir = package.string();
    config.work_dir = (package / "work").string();
    config.evidence = (package / "evidence" / "numerics.json").string();
    config.junit = (package / "evidence" / "numerics.junit.xml").string();
  }
  if (!flags.package.empty())
    config.base_dir = fs::absolute(flags.package).lexically_normal().string();
  if (!flags.shapes.empty()) config.shapes = fs::absolute(flags.shapes).lexically_normal().string();
  if (!flags.tolerances.empty())
    config.tolerances = fs::absolute(flags.tolerances).lexically_normal().string();
  if (config.tolerances.empty()) {
    return InvalidInput("no tolerances: give --tolerances tolerances.json (" +
                        (toml.empty() ? std::string("no attnverify.toml") : toml) + " names none)");
  }
  for (const std::string* p : {&config.shapes, &config.tolerances}) {
    if (!fs::is_regular_file(*p)) return InvalidInput(*p + ": no such file");
  }
  return config;
}

Result<std::string> ExactIdFilter(const std::vector<std::string>& ids) {
  std::string re = "^(?:";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i].empty()) return InvalidInput("--case: an empty case id");
    if (i) re += "|";
    for (char c : ids[i]) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '_' || c == '=' || c == '-';
      if (c == '.' || c == '+') {
        re += '\\';
      } else if (!plain) {
        return InvalidInput("--case \"" + ids[i] +
                            "\": not a case id (ids hold only A-Z a-z 0-9 . _ = + -)");
      }
      re += c;
    }
  }
  return re + ")$";
}

}  // namespace av::cli
