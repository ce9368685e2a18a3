// schema/run_seal.h: a sealed ledger survives being written and read back; editing it
// (the run id and digest of a replayed numerics.json), stripping its seal, sealing it with
// another key or copying it to another package each lose the seal's proof.
#include "schema/run_seal.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

SealKey Key(const std::string& secret) {
  testing::TempDir dir;
  EXPECT_TRUE(WriteFileAtomically(dir.File("k"), secret).ok());
  Result<SealKey> k = ReadSealKey(dir.File("k"));
  EXPECT_TRUE(k.ok()) << k.status().message();
  return *k;
}

RunLedger Ledger(const std::string& package) {
  RunLedger l;
  l.tool_version = "0.1.0";
  l.run_id = "r1";
  l.package = package;
  l.config = "attnverify.toml";
  StageEntry e;
  e.name = "numerics";
  e.run_id = "r1";
  e.argv = {"attnverify", "numerics", "--config", "dir_\xe9/attnverify.toml"};  // not UTF-8
  e.package = package;
  e.status = StageStatus::kRejected;
  e.exit_code = 1;
  e.outputs = {{"evidence/numerics.json", std::string(64, 'a')}};
  l.Put(e);
  return l;
}

// As WriteLedger leaves it on disk, read back.
RunLedger RoundTrip(const RunLedger& l) {
  std::string text =
      RunLedgerToJson(l).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  Result<RunLedger> back = ParseRunLedger(text, "evidence/run.json");
  EXPECT_TRUE(back.ok()) << back.status().message();
  return *back;
}

const std::string kSecret = "0123456789abcdef0123456789abcdef";

TEST(RunSealTest, SealedLedgerReadBackIsValid) {
  testing::TempDir pkg;
  SealKey key = Key(kSecret);
  RunLedger l = Ledger(pkg.path());
  SealRunLedger(&l, key);
  RunLedger back = RoundTrip(l);
  EXPECT_EQ(back.seal_key_id, key.id);
  RunTrust t = CheckRunSeal(back, key, pkg.path());
  EXPECT_EQ(t.seal, SealState::kValid) << t.note;
  EXPECT_NE(t.note.find(key.id), std::string::npos);
}

TEST(RunSealTest, LedgerEditedToLaunderAReplayedFileBreaksTheSeal) {
  testing::TempDir pkg;
  SealKey key = Key(kSecret);
  RunLedger l = Ledger(pkg.path());
  SealRunLedger(&l, key);
  RunLedger edited = RoundTrip(l);
  StageEntry e = *edited.Stage("numerics");
  e.run_id = "an-earlier-passing-run";
  e.outputs[0].sha256 = std::string(64, 'b');
  e.status = StageStatus::kOk;
  edited.Put(e);
  RunTrust t = CheckRunSeal(RoundTrip(edited), key, pkg.path());
  EXPECT_EQ(t.seal, SealState::kBroken);
  EXPECT_NE(t.note.find("changed after attnverify sealed it"), std::string::npos) << t.note;
}

TEST(RunSealTest, StrippedForeignOrKeylessSealIsUnauthenticatedNotValid) {
  testing::TempDir pkg;
  SealKey key = Key(kSecret);
  RunLedger l = Ledger(pkg.path());
  SealRunLedger(&l, key);

  RunLedger stripped = l;
  stripped.seal_mac.clear();
  stripped.seal_key_id.clear();
  RunTrust t = CheckRunSeal(RoundTrip(stripped), key, pkg.path());
  EXPECT_EQ(t.seal, SealState::kUnauthenticated);
  EXPECT_NE(t.note.find("no seal"), std::string::npos) << t.note;

  // A key id copied onto a MAC made with another key.
  RunLedger foreign = l;
  SealRunLedger(&foreign, Key("ffffffffffffffffffffffffffffffff"));
  t = CheckRunSeal(RoundTrip(foreign), key, pkg.path());
  EXPECT_EQ(t.seal, SealState::kUnauthenticated);
  EXPECT_NE(t.note.find("not with this machine's key"), std::string::npos) << t.note;

  t = CheckRunSeal(RoundTrip(l), NotFound("/nowhere/run-seal.key: no key file"), pkg.path());
  EXPECT_EQ(t.seal, SealState::kUnauthenticated);
  EXPECT_NE(t.note.find("this machine has no key"), std::string::npos) << t.note;
  EXPECT_NE(t.note.find("ATTNVERIFY_KEY_FILE"), std::string::npos) << t.note;
}

TEST(RunSealTest, LedgerCopiedIntoAnotherPackageIsUnauthenticated) {
  testing::TempDir a, b;
  SealKey key = Key(kSecret);
  RunLedger l = Ledger(a.path());
  SealRunLedger(&l, key);
  RunTrust t = CheckRunSeal(RoundTrip(l), key, b.path());
  EXPECT_EQ(t.seal, SealState::kUnauthenticated);
  EXPECT_NE(t.note.find("for the package at " + a.path()), std::string::npos) << t.note;
}

TEST(RunSealTest, SealWithAnUnknownAlgorithmIsAnErrorNamingIt) {
  Result<RunLedger> r = ParseRunLedger(
      R"({"schema": "attnverify.run/2", "seal": {"alg": "md5", "key_id": "x", "mac": "y"}})",
      "evidence/run.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("$.seal.alg"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace av
