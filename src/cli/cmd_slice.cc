// attnverify slice: diff a base revision against HEAD (or the index, or the work tree)
// with git's repository-configured programs disabled, split the diff by the
// [components] globs of attnverify.toml, and write diff/<component>.diff,
// diff/unassigned.diff and evidence/slice.json into the package. Exit 0, 2 on a bad
// config, a missing base or a folder that is not a git work tree.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/stage_recording.h"
#include "core/process.h"
#include "review/review_package.h"
#include "schema/provenance.h"

namespace av::cli {
namespace {

constexpr const char* kSliceHelp =
    "Split the refactor's diff by component. Reads [slice] (repo, base) and [components]\n"
    "(name = [globs], first match wins) of attnverify.toml; writes diff/<component>.diff\n"
    "(empty when nothing changed), diff/unassigned.diff and evidence/slice.json in the\n"
    "config's folder. git runs without hooks, fsmonitor, pager, external diff, textconv\n"
    "or filter drivers (doc/review.md).";

}  // namespace

int RunSlice(std::vector<std::string> args) {
  CLI::App app(kSliceHelp, "attnverify slice");
  SliceRequest request;
  bool staged = false, worktree = false;
  app.add_option("--config", request.config_path, "attnverify.toml")->capture_default_str();
  app.add_option("--base", request.base, "base revision (default: [slice] base, else HEAD~1)");
  auto* s = app.add_flag("--staged", staged, "compare the base with the index instead of HEAD");
  auto* w =
      app.add_flag("--worktree", worktree, "compare the base with the work tree (tracked files)");
  s->excludes(w);
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  request.mode = staged ? DiffMode::kStaged : worktree ? DiffMode::kWorktree : DiffMode::kCommit;
  request.provenance = StartProvenance("slice", RecordedArgv(args));
  Result<PackageLock> lock = LockPackageOfConfig(request.config_path, args);
  if (!lock.ok()) return ReportError(lock.status());

  // The package is the config's folder (evidence/run.json), unless under `run`.
  RecordedStage stage(
      std::filesystem::absolute(request.config_path).parent_path().lexically_normal().string(),
      "slice", args);
  stage.Bind(&request.provenance);
  PosixProcessRunner runner;
  Result<SliceOutcome> out = SlicePackage(runner, request);
  if (!out.ok()) return stage.Fail(out.status());
  const SliceResult& slice = out->slice;
  std::printf("base %s (%s) -> %s\n", slice.base.c_str(), slice.base_commit.c_str(),
              slice.head_commit.c_str());
  for (const SliceComponent& c : slice.components) {
    int64_t added = 0, deleted = 0;
    for (size_t i : c.files) {
      added += slice.diff.files[i].added_lines();
      deleted += slice.diff.files[i].deleted_lines();
    }
    std::printf("%-20s %4zu files  +%-6lld -%-6lld %s\n", c.name.c_str(), c.files.size(),
                static_cast<long long>(added), static_cast<long long>(deleted), c.path.c_str());
  }
  std::printf("wrote %s/evidence/slice.json\n", out->package_dir.c_str());
  return stage.Finish(kExitOk);
}

}  // namespace av::cli
