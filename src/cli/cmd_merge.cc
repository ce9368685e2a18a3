// attnverify merge: combine the numerics.json files of `numerics --shard i/N` runs into
// one evidence file (and JUnit XML). Exit 0 every case passed, 1 any failed (or a shard
// is missing under --allow-missing), 2 the shards do not fit together (another
// configuration, a case twice, a shard missing), 3 a case's reference failed.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/package_lock_cli.h"
#include "cli/parse.h"
#include "cli/stage_recording.h"
#include "core/file.h"
#include "core/json_dump.h"
#include "core/sha256.h"
#include "schema/numerics_json.h"
#include "schema/provenance.h"
#include "sweep/numerics_merge.h"
#include "sweep/numerics_report.h"

namespace av::cli {
namespace {

constexpr const char* kMergeHelp =
    "Merge the numerics.json files of sharded runs (attnverify numerics --shard i/N) into one.\n"
    "Format: doc/formats/numerics-json.md (\"Shards and merge\").";

Status WriteWithParent(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::absolute(path).parent_path(), ec);
  if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
  return WriteFileAtomically(path, text);
}

}  // namespace

int RunMerge(std::vector<std::string> args) {
  CLI::App app(kMergeHelp, "attnverify merge");
  std::vector<std::string> inputs;
  std::string out_path = "attention-verify/evidence/numerics.json", junit;
  bool allow_missing = false;
  app.add_option("shards", inputs, "numerics.json files of the shards")->required();
  app.add_option("--out", out_path, "merged numerics.json")->capture_default_str();
  app.add_option("--junit", junit, "also write JUnit XML here");
  app.add_flag("--allow-missing", allow_missing,
               "merge even when shards are missing (a warning; verdict fail)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  // The shards first: merged shards of a filtered run go beside the full sweep's file,
  // never over it, unless --out names the file. A shard that cannot be read is recorded
  // as the merge stage's failure below.
  Status read_status = Status::Ok();
  std::vector<NumericsShard> shards;
  for (const std::string& path : inputs) {
    Result<std::string> text = ReadFileToString(path);
    Result<NumericsRecord> record =
        text.ok() ? ParseNumerics(*text, path) : Result<NumericsRecord>(text.status());
    if (!record.ok()) {
      read_status = record.status();
      break;
    }
    shards.push_back({path, Sha256Hex(*text), std::move(*record)});
  }
  const bool beside = app.count("--out") == 0 && read_status.ok() && !shards.empty() &&
                      !shards.front().record.filter.empty();
  if (beside) out_path = FilteredEvidencePath(out_path);
  // The package the merged file lands in: the folder holding evidence/ (else the file's
  // own folder). It is locked, and recorded paths are relative to it.
  const std::filesystem::path out_dir =
      std::filesystem::absolute(out_path).parent_path().lexically_normal();
  const std::string package =
      (out_dir.filename() == "evidence" ? out_dir.parent_path() : out_dir).string();
  Result<PackageLock> lock = LockPackage(package, args);
  if (!lock.ok()) return ReportError(lock.status());

  // Merged into a package's evidence/ folder: the package's evidence/run.json records it
  // (begun before the provenance so both carry the same run id). A filtered merge beside
  // the full sweep's file leaves the ledger as it was.
  std::optional<RecordedStage> stage;
  if (out_dir.filename() == "evidence" && !beside) stage.emplace(package, "merge", args);
  auto finish = [&](int code, const std::string& reason = "") {
    return stage ? stage->Finish(code, reason) : code;
  };
  auto fail = [&](const Status& st) { return finish(ReportError(st), st.message()); };
  Provenance provenance = StartProvenance("merge", RecordedArgv(args));
  if (!read_status.ok()) return fail(read_status);
  for (NumericsShard& s : shards) s.path = PackageRelative(package, s.path);
  Result<MergedNumerics> merged = MergeNumericsShards(shards, allow_missing, std::move(provenance));
  if (!merged.ok()) return fail(merged.status());
  for (const std::string& w : merged->warnings)
    std::fprintf(stderr, "attnverify: warning: %s\n", w.c_str());
  const NumericsRecord& record = merged->record;
  Status st = WriteWithParent(out_path, JsonFileText(NumericsToJson(record)));
  if (st.ok() && !junit.empty()) st = WriteWithParent(junit, NumericsToJUnit(record));
  if (!st.ok()) return fail(st);
  const NumericsSummary& s = record.summary;
  std::printf("merged %zu shard(s): %lld cases, %lld passed, %lld failed\nevidence: %s\n",
              shards.size(), static_cast<long long>(s.cases_run), static_cast<long long>(s.passed),
              static_cast<long long>(s.failed), out_path.c_str());
  if (beside) {
    std::printf("note: the shards ran with --filter \"%s\": the merged file is the one above, "
                "beside the full sweep's numerics.json, which it does not replace (--out PATH "
                "names another file)\n",
                record.filter.c_str());
  }
  for (const NumericsCase& c : record.cases) {
    if (c.verdict == CaseVerdict::kError) return finish(kExitInternal, "a case's reference failed");
  }
  return finish(record.verdict == CaseVerdict::kPass ? kExitOk : kExitRejected);
}

}  // namespace av::cli
