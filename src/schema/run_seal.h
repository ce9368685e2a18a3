// The seal of evidence/run.json: an HMAC-SHA256 of the ledger under the per-user key of
// core/seal_key.h, written into the ledger's "seal" by every writer (pipeline/
// stage_ledger.h), and what `attnverify report` and `verify-package` conclude from it.
// Without the key nobody can edit the ledger (say, to bind a replayed numerics.json to
// the latest run) and keep it valid; a ledger copied from another package still names
// that package's folder. Format: doc/formats/run-json.md "The seal". Any thread.
#pragma once

#include <string>

#include "core/seal_key.h"
#include "core/status.h"
#include "schema/run_json.h"

namespace av {

enum class SealState {
  kValid,            // sealed with this machine's key, for this package, unchanged
  kBroken,           // sealed with this machine's key, and changed since: edited by hand
  kUnauthenticated,  // no seal, another key, no key here, or another package's ledger
};

// What the report knows about the ledger it binds evidence with, and the config it judges
// (each evidence file's provenance must name that config, with its bytes as they are now).
struct RunTrust {
  SealState seal = SealState::kUnauthenticated;
  std::string note;           // one sentence: why, and what to do
  std::string config;         // the judged attnverify.toml, package-relative
  std::string config_sha256;  // of its bytes now; "" when unreadable
};

// The MAC of `ledger` with its seal left out (the JSON attnverify writes, compact).
std::string RunSealMac(const RunLedger& ledger, const SealKey& key);
// Sets the ledger's seal for its current contents.
void SealRunLedger(RunLedger* ledger, const SealKey& key);

// The seal alone: `key` is this machine's key (or why there is none), `package_dir` the
// package being judged (absolute).
RunTrust CheckRunSeal(const RunLedger& ledger, const Result<SealKey>& key,
                      const std::string& package_dir);

// CheckRunSeal with this machine's key (SealKeyPath) plus the judged config's
// package-relative path and digest (`config_path` as the user named it).
RunTrust CheckRunTrust(const RunLedger& ledger, const std::string& package_dir,
                       const std::string& config_path);

// The newest seal this machine made for a package, kept beside the key (outside the
// package and out of the sandbox's reach) under run-seals/: a ledger whose MAC verifies
// but is not the newest — the evidence folder rolled back to an earlier run's, or
// restored from a copy — is not trusted. `package_dir` is the package's folder.
std::string SealJournalPath(const SealKey& key, const std::string& package_dir);
// Records `ledger`'s seal as the newest for `package_dir` (written by every ledger
// writer right after sealing; pipeline/stage_ledger.h).
Status RecordNewestSeal(const SealKey& key, const std::string& package_dir,
                        const RunLedger& ledger);

const char* SealStateName(SealState s);  // "valid", "broken", "unauthenticated"

}  // namespace av
