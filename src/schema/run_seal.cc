#include "schema/run_seal.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "schema/provenance.h"

namespace av {
namespace {

namespace fs = std::filesystem;

// A domain separator: a MAC of this kind can never be taken for any other.
constexpr const char* kSealContext = "attnverify.run-seal/1\n";

// The package folders the ledger records (the run's and each stage's), all of which must
// be `package_dir`; "" when they are (or none is recorded).
std::string OtherPackage(const RunLedger& ledger, const std::string& package_dir) {
  std::vector<std::string> recorded;
  if (!ledger.package.empty()) recorded.push_back(ledger.package);
  for (const StageEntry& s : ledger.stages) {
    if (!s.package.empty()) recorded.push_back(s.package);
  }
  for (const std::string& p : recorded) {
    std::error_code ec;
    if (p == package_dir || fs::equivalent(p, package_dir, ec)) continue;
    return p;
  }
  return "";
}

}  // namespace

const char* SealStateName(SealState s) {
  switch (s) {
    case SealState::kValid:
      return "valid";
    case SealState::kBroken:
      return "broken";
    case SealState::kUnauthenticated:
      break;
  }
  return "unauthenticated";
}

std::string RunSealMac(const RunLedger& ledger, const SealKey& key) {
  RunLedger unsealed = ledger;
  unsealed.seal_key_id.clear();
  unsealed.seal_mac.clear();
  // Invalid UTF-8 (a Latin-1 folder in argv) is written as U+FFFD; the MAC is taken over
  // the same text, so a ledger read back verifies against what was written.
  const std::string text =
      RunLedgerToJson(unsealed).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return HmacSha256Hex(key.bytes, std::string(kSealContext) + text);
}

void SealRunLedger(RunLedger* ledger, const SealKey& key) {
  ledger->seal_mac = RunSealMac(*ledger, key);
  ledger->seal_key_id = key.id;
}

RunTrust CheckRunSeal(const RunLedger& ledger, const Result<SealKey>& key,
                      const std::string& package_dir) {
  RunTrust t;
  const std::string again =
      "re-run the stages here, or give this machine the key that sealed it "
      "(copy the key file, or set ATTNVERIFY_KEY_FILE)";
  if (ledger.seal_mac.empty()) {
    t.note =
        "evidence/run.json carries no seal (written by hand, or by an attnverify that "
        "could not make its key); re-run the stages to seal it";
    return t;
  }
  const std::string sealed = "sealed with key " + ledger.seal_key_id;
  if (!key.ok()) {
    t.note = sealed + ", but this machine has no key (" + key.status().message() + "): " + again;
    return t;
  }
  if (ledger.seal_key_id != key->id) {
    t.note = sealed + ", not with this machine's key " + key->id + " (" + key->path +
             "): evidence from another machine or user; " + again;
    return t;
  }
  if (!DigestsEqual(RunSealMac(ledger, *key), ledger.seal_mac)) {
    t.seal = SealState::kBroken;
    t.note = "evidence/run.json was changed after attnverify sealed it (its seal, key " + key->id +
             ", does not match its contents)";
    return t;
  }
  if (std::string other = OtherPackage(ledger, package_dir); !other.empty()) {
    t.note = sealed + " for the package at " + other + ", not this one (" + package_dir +
             "): the ledger was copied or the package moved; re-run the stages here";
    return t;
  }
  // A ledger sealed before journals existed has none: it is judged by its MAC alone.
  if (Result<std::string> newest = ReadFileToString(SealJournalPath(*key, package_dir));
      newest.ok() && newest->substr(0, newest->find('\n')) != ledger.seal_mac) {
    t.note = sealed + ", but it is not the newest ledger this machine sealed for this package "
             "(the evidence folder was rolled back to an earlier run's, or restored from a "
             "copy): re-run the stages";
    return t;
  }
  t.seal = SealState::kValid;
  t.note = "sealed with this machine's key " + key->id;
  return t;
}

std::string SealJournalPath(const SealKey& key, const std::string& package_dir) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(package_dir, ec), ec);
  if (ec) dir = fs::absolute(package_dir, ec).lexically_normal();
  // Named by a digest of the folder: one file per package, whatever its path holds.
  return (fs::path(key.path).parent_path() / "run-seals" /
          (Sha256Hex(dir.string()).substr(0, 32) + ".mac"))
      .string();
}

Status RecordNewestSeal(const SealKey& key, const std::string& package_dir,
                        const RunLedger& ledger) {
  const fs::path path = SealJournalPath(key, package_dir);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return IoError(path.parent_path().string() + ": cannot create: " + ec.message());
  return WriteFileAtomically(path.string(), ledger.seal_mac + "\n");
}

RunTrust CheckRunTrust(const RunLedger& ledger, const std::string& package_dir,
                       const std::string& config_path) {
  RunTrust t = CheckRunSeal(ledger, ReadSealKey(SealKeyPath()), package_dir);
  t.config = PackageRelative(package_dir, config_path);
  if (Result<std::string> sha = Sha256File(config_path); sha.ok()) t.config_sha256 = *sha;
  return t;
}

}  // namespace av
