#include "pipeline/stage_ledger.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/package_config.h"
#include "core/seal_key.h"
#include "core/version.h"
#include "schema/run_seal.h"

namespace av {
namespace {

namespace fs = std::filesystem;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

StageStatus StatusFromExitCode(int exit_code) {
  return exit_code == 0   ? StageStatus::kOk
         : exit_code == 1 ? StageStatus::kRejected
                          : StageStatus::kError;
}

RunLedger LoadLedgerOrEmpty(const std::string& package_dir, std::string* warning) {
  warning->clear();
  const std::string path = (fs::path(package_dir) / kRunJsonPath).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return RunLedger{};
  Result<std::string> text = ReadFileToString(path);
  Result<RunLedger> ledger =
      text.ok() ? ParseRunLedger(*text, kRunJsonPath) : Result<RunLedger>(text.status());
  if (!ledger.ok()) {
    *warning = ledger.status().message() +
               "; it is replaced, and the stages recorded in it "
               "must run again before the report uses their evidence";
    return RunLedger{};
  }
  // Entries are carried over (and so sealed again) only from a ledger this machine can
  // authenticate: otherwise editing run.json by hand and then running any stage would
  // have attnverify seal the edit.
  if (!ledger->stages.empty()) {
    RunTrust trust = CheckRunSeal(*ledger, ReadSealKey(SealKeyPath()), package_dir);
    if (trust.seal != SealState::kValid) {
      *warning = trust.note +
                 "; its entries are not carried over, and the stages recorded in it must run "
                 "again before the report uses their evidence";
      return RunLedger{};
    }
  }
  return *ledger;
}

Status WriteLedger(const std::string& package_dir, const RunLedger& ledger) {
  const fs::path dir = fs::path(package_dir) / "evidence";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir.string() + ": cannot create the folder: " + ec.message());
  RunLedger out = ledger;
  out.tool_version = ATTNVERIFY_VERSION;
  // Sealed with this user's key (made on first use). Without one the ledger is written
  // unsealed: the report then says it cannot authenticate it, rather than losing the run.
  out.seal_key_id.clear();
  out.seal_mac.clear();
  Result<SealKey> key = ReadOrCreateSealKey(SealKeyPath());
  if (key.ok()) SealRunLedger(&out, *key);
  AV_RETURN_IF_ERROR(WriteFileAtomically(
      (fs::path(package_dir) / kRunJsonPath).string(),
      RunLedgerToJson(out).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  // The newest seal for this package, so that an evidence folder rolled back to an earlier
  // sealed ledger is told apart (schema/run_seal.h SealJournalPath).
  return key.ok() ? RecordNewestSeal(*key, package_dir, out) : Status::Ok();
}

std::vector<std::string> SnapshotExclusions(const std::string& package_dir) {
  std::string work = "work";
  Result<PackageConfig> config =
      PackageConfig::Load((fs::path(package_dir) / "attnverify.toml").string());
  if (config.ok()) {
    if (auto w = config->doc()["numerics"]["work_dir"].value<std::string>(); w && !w->empty())
      work = *w;
  }
  const fs::path abs = (fs::path(package_dir) / work).lexically_normal();
  const fs::path rel = abs.lexically_relative(fs::path(package_dir).lexically_normal());
  if (rel.empty() || *rel.begin() == ".." || rel == ".") return {};
  return {rel.generic_string()};
}

std::vector<std::string> SnapshotIgnored(const std::vector<std::string>& stage_names) {
  std::vector<std::string> out = {kRunJsonPath};
  for (const std::string& s : stage_names) out.push_back("logs/run-" + s + ".log");
  return out;
}

Result<StandaloneStage> StandaloneStage::Begin(const std::string& package_dir, std::string stage,
                                               std::vector<std::string> argv) {
  StandaloneStage s;
  const char* env = std::getenv(kRunIdEnv);
  if (env != nullptr && *env != '\0') return s;  // `attnverify run` records this stage
  s.active_ = true;
  s.package_dir_ = package_dir;
  s.ledger_ = LoadLedgerOrEmpty(package_dir, &s.warning_);
  s.entry_.name = std::move(stage);
  s.entry_.run_id = NewRunId();
  s.entry_.argv = std::move(argv);
  std::error_code ec;
  s.entry_.cwd = fs::current_path(ec).string();
  s.entry_.package = fs::absolute(package_dir, ec).lexically_normal().string();
  s.entry_.status = StageStatus::kError;
  s.entry_.started = UtcNowRfc3339();
  s.entry_.reason =
      "started " + s.entry_.started + " and did not finish (killed, or still running)";
  ::setenv(kRunIdEnv, s.entry_.run_id.c_str(), 1);
  s.excluded_ = SnapshotExclusions(package_dir);
  s.ignored_ = SnapshotIgnored({});
  s.ledger_.Put(s.entry_);
  AV_RETURN_IF_ERROR(WriteLedger(package_dir, s.ledger_));
  s.before_ = TakePackageSnapshot(package_dir, s.excluded_, s.ignored_);
  s.started_ms_ = NowMs();
  return s;
}

Status StandaloneStage::Finish(int exit_code, std::string reason) {
  if (!active_) return Status::Ok();
  active_ = false;
  PackageSnapshot after = TakePackageSnapshot(package_dir_, excluded_, ignored_);
  entry_.outputs = WrittenFiles(package_dir_, before_, after);
  entry_.exit_code = exit_code;
  entry_.status = StatusFromExitCode(exit_code);
  entry_.reason = entry_.status == StageStatus::kRejected && reason.empty()
                      ? "exit 1: the evidence says no"
                      : std::move(reason);
  entry_.finished = UtcNowRfc3339();
  entry_.wall_ms = NowMs() - started_ms_;
  ledger_.Put(entry_);
  return WriteLedger(package_dir_, ledger_);
}

}  // namespace av
