// attnverify verify-package: recompute the sha256 of every file manifest.json lists (and
// look for files it does not), and check evidence/run.json's digests and seal. Exit 0
// every file matches, 1 changed, missing or extra files or a ledger edited after it was
// sealed (each listed), 2 no or unreadable manifest.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/parse.h"
#include "core/file.h"
#include "report/manifest.h"
#include "schema/run_json.h"
#include "schema/run_seal.h"

namespace av::cli {

int RunVerifyPackage(std::vector<std::string> args) {
  CLI::App app(
      "Recompute manifest.json (written by attnverify report): every package file's sha256.\n"
      "Format: doc/formats/manifest-json.md. Exit 0 all match, 1 changed/missing/extra files.",
      "attnverify verify-package");
  std::string config_path = "attention-verify/attnverify.toml";
  app.add_option("--config", config_path,
                 "attnverify.toml of the package (its folder holds manifest.json)")
      ->capture_default_str();
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path package = fs::absolute(fs::path(config_path)).parent_path().lexically_normal();
  const std::string manifest_path = (package / "manifest.json").string();
  if (!fs::exists(manifest_path, ec)) {
    return ReportError(NotFound(manifest_path + ": no manifest; `attnverify report --config " +
                                config_path + "` writes it"));
  }
  Result<std::string> text = ReadFileToString(manifest_path);
  if (!text.ok()) return ReportError(text.status());
  Result<Manifest> manifest = ParseManifest(*text, manifest_path);
  if (!manifest.ok()) return ReportError(manifest.status());
  Result<ManifestDiff> diff = VerifyManifest(package.string(), *manifest);
  if (!diff.ok()) return ReportError(diff.status());
  // The stage ledger's digests too: a file rewritten after its stage ended is changed
  // evidence even when the manifest was written after the rewrite.
  std::vector<std::string> ledger_problems;
  const fs::path ledger_path = package / "evidence/run.json";
  if (fs::exists(ledger_path, ec)) {
    Result<std::string> ledger_text = ReadFileToString(ledger_path.string());
    if (!ledger_text.ok()) return ReportError(ledger_text.status());
    Result<av::RunLedger> ledger = ParseRunLedger(*ledger_text, ledger_path.string());
    if (!ledger.ok()) return ReportError(ledger.status());
    ledger_problems = VerifyLedgerOutputs(package.string(), *ledger);
    // Its seal (schema/run_seal.h): a ledger edited by hand is a changed file; one this
    // machine cannot authenticate (no seal, another machine's key) is said, not failed:
    // its files may still match.
    RunTrust trust = CheckRunSeal(*ledger, ReadSealKey(SealKeyPath()), package.string());
    if (trust.seal == SealState::kBroken) {
      ledger_problems.push_back("evidence/run.json: " + trust.note);
    } else if (trust.seal == SealState::kUnauthenticated) {
      std::printf("note: evidence/run.json cannot be authenticated: %s\n", trust.note.c_str());
    }
  }
  for (const std::string& p : ledger_problems) std::printf("run.json %s\n", p.c_str());
  if (diff->ok() && ledger_problems.empty()) {
    std::printf("ok: %zu files match %s\n", manifest->files.size(), manifest_path.c_str());
    return kExitOk;
  }
  if (diff->ok()) {
    std::printf(
        "%zu files match %s, but %zu differ from what their stage wrote (evidence/run.json)\n",
        manifest->files.size(), manifest_path.c_str(), ledger_problems.size());
    return kExitRejected;
  }
  for (const std::string& p : diff->changed) std::printf("changed  %s\n", p.c_str());
  for (const std::string& p : diff->missing) std::printf("missing  %s\n", p.c_str());
  for (const std::string& p : diff->extra) std::printf("extra    %s\n", p.c_str());
  std::printf("%zu changed, %zu missing, %zu extra: the package no longer matches %s\n",
              diff->changed.size(), diff->missing.size(), diff->extra.size(),
              manifest_path.c_str());
  return kExitRejected;
}

}  // namespace av::cli
