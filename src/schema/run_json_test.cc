// evidence/run.json, the stage ledger: what is written is read back the same, /1 files are
// read without run ids (so they bind nothing), and bad input names the file and JSON path.
#include "schema/run_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace av {
namespace {

RunLedger SampleLedger() {
  RunLedger l;
  l.tool_version = "0.1.0";
  l.run_id = "20261201T093000Z-3f9a1c";
  l.argv = {"attnverify", "run", "--config", "attention-verify/attnverify.toml"};
  l.cwd = "/home/dev/splitk";
  l.package = "/home/dev/splitk/attention-verify";
  l.config = "attnverify.toml";
  l.base = "HEAD~1";
  StageEntry numerics;
  numerics.name = "numerics";
  numerics.run_id = l.run_id;
  numerics.status = StageStatus::kRejected;
  numerics.exit_code = 1;
  numerics.outputs = {{"evidence/numerics.json", std::string(64, 'a')}};
  StageEntry build;
  build.name = "build";
  build.run_id = l.run_id;
  build.status = StageStatus::kError;
  build.reason = "killed by signal 9";
  l.Put(numerics);
  l.Put(build);  // put before numerics: stage order, not call order
  return l;
}

TEST(RunJsonTest, WrittenLedgerReadsBackInStageOrder) {
  const RunLedger l = SampleLedger();
  Result<RunLedger> back = ParseRunLedger(RunLedgerToJson(l).dump(2), "evidence/run.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->schema_version, 2);
  EXPECT_EQ(back->run_id, l.run_id);
  EXPECT_EQ(back->argv, l.argv);
  ASSERT_EQ(back->stages.size(), 2u);
  EXPECT_EQ(back->stages[0].name, "build");
  EXPECT_EQ(back->stages[0].status, StageStatus::kError);
  EXPECT_EQ(back->stages[0].reason, "killed by signal 9");
  const StageEntry* n = back->Stage("numerics");
  ASSERT_NE(n, nullptr);
  ASSERT_NE(n->Output("evidence/numerics.json"), nullptr);
  EXPECT_EQ(n->Output("evidence/numerics.json")->sha256, std::string(64, 'a'));
  EXPECT_EQ(n->Output("evidence/resources.json"), nullptr);
}

TEST(RunJsonTest, PutReplacesTheEntryOfThatName) {
  RunLedger l = SampleLedger();
  StageEntry again;
  again.name = "build";
  again.run_id = "20261201T100000Z-000001";
  again.status = StageStatus::kOk;
  again.exit_code = 0;
  l.Put(again);
  ASSERT_EQ(l.stages.size(), 2u);
  EXPECT_EQ(l.Stage("build")->run_id, "20261201T100000Z-000001");
  EXPECT_EQ(l.Stage("build")->status, StageStatus::kOk);
}

TEST(RunJsonTest, Version1FileIsReadWithoutRunIds) {
  const char* v1 = R"({"schema": "attnverify.run/1", "command": "attnverify run",
    "stages": [{"name": "build", "command": "attnverify build", "status": "ok",
                "exit_code": 0, "run_id": "forged"}]})";
  Result<RunLedger> l = ParseRunLedger(v1, "evidence/run.json");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->schema_version, 1);
  ASSERT_NE(l->Stage("build"), nullptr);
  EXPECT_TRUE(l->Stage("build")->run_id.empty());  // a /1 entry binds nothing
}

TEST(RunJsonTest, BadInputNamesTheFileAndTheJsonPath) {
  struct Bad {
    const char* text;
    const char* expect;
  } cases[] = {
      {"{", "evidence/run.json:1:2: unexpected end of file"},  // line:column of the reader
      {"[]", "must be a JSON object"},
      {R"({"schema": "attnverify.run/9"})", "$.schema"},
      {R"({"schema": "attnverify.run/2", "stages": {}})", "$.stages"},
      {R"({"schema": "attnverify.run/2", "stages": [{"name": "build", "status": "great"}]})",
       "$.stages[0].status"},
      {R"({"schema": "attnverify.run/2", "stages": [{"name": "build", "status": "ok"},
                                                    {"name": "build", "status": "ok"}]})",
       "listed twice"},
  };
  for (const Bad& b : cases) {
    Result<RunLedger> l = ParseRunLedger(b.text, "evidence/run.json");
    ASSERT_FALSE(l.ok()) << b.text;
    EXPECT_NE(l.status().message().find("evidence/run.json"), std::string::npos)
        << l.status().message();
    EXPECT_NE(l.status().message().find(b.expect), std::string::npos)
        << b.text << " -> " << l.status().message();
  }
  EXPECT_EQ(ParseStageStatus("rejected"), StageStatus::kRejected);
  EXPECT_EQ(ParseStageStatus("passed"), std::nullopt);
}

}  // namespace
}  // namespace av
