// attnverify init [DIR]: write the attention-verify/ package into DIR (default: the
// current folder) — attnverify.toml with every table commented, the default
// config/shapes.json and config/tolerances.json, the agent reviewer's config/prompts/*.md,
// acceptance_checklist.md and the empty
// diff/ logs/ evidence/ reports/ folders. Existing files are kept unless --force.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "agent/prompts.h"
#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "pipeline/package_init.h"

namespace av::cli {

int RunInit(std::vector<std::string> args) {
  CLI::App app(
      "Write the attention-verify/ acceptance package: attnverify.toml, config/, the checklist.",
      "attnverify init");
  std::string dir = ".";
  bool force = false;
  app.add_option("dir", dir, "folder that receives attention-verify/")->capture_default_str();
  app.add_flag("--force", force, "overwrite existing package files");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  const std::string package =
      (std::filesystem::path(dir) / "attention-verify").lexically_normal().string();
  std::error_code ec;
  std::filesystem::create_directories(package, ec);
  if (ec) return ReportError(IoError(package + ": cannot create folder: " + ec.message()));
  Result<PackageLock> lock = LockPackage(package, args);
  if (!lock.ok()) return ReportError(lock.status());
  Result<InitResult> r = InitPackage(package, force);
  if (!r.ok()) return ReportError(r.status());
  // The agent reviewer's prompts, editable in the package (doc/agent.md).
  Result<PromptsWritten> prompts = WriteDefaultPrompts(package, force);
  if (!prompts.ok()) return ReportError(prompts.status());
  r->written.insert(r->written.end(), prompts->written.begin(), prompts->written.end());
  r->kept.insert(r->kept.end(), prompts->kept.begin(), prompts->kept.end());
  for (const std::string& f : r->written) std::printf("wrote %s\n", f.c_str());
  for (const std::string& f : r->kept)
    std::printf("kept  %s (exists; --force overwrites)\n", f.c_str());
  std::printf(
      "next: edit %s/attnverify.toml ([components], [build], [candidate]), then\n"
      "      attnverify run --config %s/attnverify.toml\n",
      package.c_str(), package.c_str());
  return kExitOk;
}

}  // namespace av::cli
