// MergeNumericsShards refuses shards of different runs (issue 34 B): on a real Slurm array
// a shard file left by an earlier run was merged when the new run's task was cancelled,
// and the merge said 72 failures where the new kernel had 93.
#include "sweep/numerics_merge.h"

#include <gtest/gtest.h>

#include "sweep/numerics_report.h"

#include <string>
#include <vector>

namespace av {
namespace {

// Shard `index` of `count` of a run: one passing case, the identity of run `sweep_id`.
NumericsShard Shard(int64_t index, int64_t count, const std::string& sweep_id,
                    const std::string& started = "2026-12-05T10:00:00Z") {
  NumericsShard s;
  s.path = "evidence/numerics.json.shard" + std::to_string(index) + "of" + std::to_string(count);
  s.sha256 = std::string(64, 'a');
  NumericsRecord& r = s.record;
  r.shard.index = index;
  r.shard.count = count;
  r.summary.cases_total = count;
  r.provenance.started = started;
  NumericsCase c;
  c.id = "case" + std::to_string(index);
  c.index = index;
  c.verdict = CaseVerdict::kPass;
  r.cases.push_back(c);
  r.run_identity = {{"sweep_id", sweep_id},
                    {"shapes_sha256", std::string(64, 'b')},
                    {"cases_sha256", std::string(64, 'c')},
                    {"shard_count", std::to_string(count)}};
  return s;
}

TEST(NumericsMerge, ShardsOfOneRunMerge) {
  Result<MergedNumerics> m =
      MergeNumericsShards({Shard(0, 3, "57"), Shard(1, 3, "57"), Shard(2, 3, "57")}, false, {});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->record.cases.size(), 3u);
  EXPECT_EQ(m->record.verdict, CaseVerdict::kPass);
  EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
}

// Cases the tests skipped in a shard stay skipped in the merge and in its JUnit, where
// they are <skipped/> test cases, never passes.
TEST(NumericsMerge, SkippedCasesStaySkippedInTheMergeAndItsJUnit) {
  NumericsShard a = Shard(0, 2, "57"), b = Shard(1, 2, "57");
  a.record.skipped.push_back({"gemm.m=3", "fp8_gemm", "the test runs attention only"});
  b.record.skipped.push_back({"gemm.m=129", "fp8_gemm", "the test runs attention only"});
  Result<MergedNumerics> m = MergeNumericsShards({a, b}, false, {});
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->record.skipped.size(), 2u);
  EXPECT_EQ(m->record.skipped[1].id, "gemm.m=129");
  const std::string junit = NumericsToJUnit(m->record);
  EXPECT_NE(junit.find("tests=\"4\" failures=\"0\" skipped=\"2\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<testcase classname=\"numerics.skipped.fp8_gemm\" name=\"gemm.m=3\">\n"
                       "      <skipped message=\"the test runs attention only\"/>"),
            std::string::npos)
      << junit;
  // A case skipped in one shard and run in another is not one run's evidence.
  b.record.skipped.push_back({"case0", "attention", "skipped"});
  EXPECT_FALSE(MergeNumericsShards({a, b}, false, {}).ok());
}

TEST(NumericsMerge, StaleShardOfAnEarlierRunIsRefused) {
  // Shard 2's task of run 57 was cancelled; run 41's shard 2 was still in evidence/.
  Result<MergedNumerics> m = MergeNumericsShards(
      {Shard(0, 3, "57"), Shard(1, 3, "57"), Shard(2, 3, "41", "2026-12-05T09:00:00Z")}, false,
      {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidInput);
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("evidence/numerics.json.shard2of3 comes from another run than "
                     "evidence/numerics.json.shard0of3"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("sweep_id \"41\" vs \"57\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("--shard 2/3 --sweep-id 57"), std::string::npos) << msg;
}

// The stale shard is named whichever order the files come in: the shard that started
// last is the run's.
TEST(NumericsMerge, StaleShardIsNamedWhenItComesFirst) {
  Result<MergedNumerics> m = MergeNumericsShards(
      {Shard(0, 2, "41", "2026-12-05T09:00:00Z"), Shard(1, 2, "57")}, false, {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message().rfind("evidence/numerics.json.shard0of2 comes from another run",
                                       0),
            0u)
      << m.status().message();
}

TEST(NumericsMerge, ShardOfAnotherCaseListIsRefused) {
  NumericsShard other = Shard(1, 2, "57");
  other.record.run_identity["cases_sha256"] = std::string(64, 'd');
  Result<MergedNumerics> m = MergeNumericsShards({Shard(0, 2, "57"), other}, false, {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("cases_sha256 dddddddddddd vs cccccccccccc"),
            std::string::npos)
      << m.status().message();
}

TEST(NumericsMerge, ShardWithoutRunIdentityBesideOneWithIsRefused) {
  NumericsShard old = Shard(1, 2, "57", "2026-12-05T09:00:00Z");
  old.record.run_identity.clear();
  Result<MergedNumerics> m = MergeNumericsShards({Shard(0, 2, "57"), old}, false, {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("records no run identity"), std::string::npos)
      << m.status().message();
}

TEST(NumericsMerge, ShardsWithoutSweepIdMergeWithAWarning) {
  Result<MergedNumerics> m = MergeNumericsShards({Shard(0, 2, ""), Shard(1, 2, "")}, false, {});
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_NE(m->warnings[0].find("carry no --sweep-id"), std::string::npos) << m->warnings[0];
}

TEST(NumericsMerge, MissingShardAllowedGivesAFailVerdictAndNamesIt) {
  Result<MergedNumerics> m = MergeNumericsShards({Shard(0, 2, "57")}, true, {});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->record.verdict, CaseVerdict::kFail);
  EXPECT_EQ(m->record.shard.missing, std::vector<int64_t>{1});
}

}  // namespace
}  // namespace av
