#include "pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/file.h"
#include "pipeline/package_init.h"
#include "pipeline/run_config.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::TempDir;

std::vector<std::string> Names(const std::vector<StagePlan>& plan, bool skipped) {
  std::vector<std::string> out;
  for (const StagePlan& s : plan) {
    if (s.skip_reason.empty() != skipped) out.push_back(s.name);
  }
  return out;
}

TEST(RunConfig, DefaultsRunEveryStageWhoseTableExists) {
  Result<RunConfig> c =
      ParseRunConfig("[slice]\nbase = \"main\"\n[build]\nsources = []\n", "/p/attnverify.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->base, "main");
  std::vector<StagePlan> plan = PlanStages(*c, "");
  EXPECT_EQ(Names(plan, false), (std::vector<std::string>{"slice", "review", "build", "report"}));
  EXPECT_EQ(Names(plan, true), (std::vector<std::string>{"numerics"}));
  EXPECT_EQ(plan[0].args, (std::vector<std::string>{"slice", "--config", "/p/attnverify.toml",
                                                    "--base", "main"}));
  EXPECT_EQ(plan[2].args, (std::vector<std::string>{"build", "--config", "/p/attnverify.toml",
                                                    "--base", "main"}));
  EXPECT_NE(plan[3].skip_reason.find("[candidate]"), std::string::npos);
}

TEST(RunConfig, BaseOverrideWinsAndStagesKeepTheirOrder) {
  Result<RunConfig> c = ParseRunConfig(
      "[run]\nstages = [\"report\", \"build\"]\nbase = \"v1\"\n[build]\n[slice]\nbase = \"v0\"\n",
      "/p/a.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->stages, (std::vector<std::string>{"build", "report"}));
  std::vector<StagePlan> plan = PlanStages(*c, "v2");
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].args.back(), "v2");
}

TEST(RunConfig, ErrorsNameFileLineAndKey) {
  Result<RunConfig> c = ParseRunConfig("[run]\nstagse = [\"build\"]\n", "pkg/attnverify.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("pkg/attnverify.toml:2:1: unknown key \"stagse\" in [run]"),
            std::string::npos)
      << c.status().message();
  c = ParseRunConfig("[run]\nstages = [\"bulid\"]\n", "a.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown stage \"bulid\""), std::string::npos);
  c = ParseRunConfig("run = 3\n", "a.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("\"run\" must be a table"), std::string::npos);
}

// A pipeline whose stages are answered by a fake: slice crashes, build rejects, report accepts.
TEST(Pipeline, KeepsGoingRecordsWhyAndWritesRunJsonBeforeTheReport) {
  TempDir dir;
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("attnverify.toml"), "[slice]\n[build]\n[candidate]\n").ok());
  Result<RunConfig> config = LoadRunConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(config.ok()) << config.status().message();
  bool run_json_seen_by_report = false;
  FakeProcessRunner runner([&](const ProcessRequest& r) -> Result<ProcessResult> {
    const std::string& stage = r.argv[1];
    EXPECT_EQ(r.cwd, "");  // the caller's folder
    if (stage == "slice") {
      ProcessResult p;
      p.term_signal = 11;
      p.stderr_text = "partial\n";
      return p;
    }
    if (stage == "build") return MakeExitedResult(1, "gate smem_within_cap failed\n", "");
    if (stage == "report") {
      run_json_seen_by_report = std::filesystem::exists(dir.File("evidence/run.json"));
      return MakeExitedResult(0, "verdict: accepted\n", "");
    }
    return MakeExitedResult(0, stage + " done\n", "");
  });
  PipelineOptions options;
  options.config = *config;
  options.self_exe = "/bin/attnverify";
  options.runner = &runner;
  options.command = "attnverify run";
  Result<PipelineRecord> record = RunPipeline(options);
  ASSERT_TRUE(record.ok()) << record.status().message();
  ASSERT_EQ(record->stages.size(), 5u);
  EXPECT_EQ(record->stages[0].status, "error");
  EXPECT_NE(record->stages[0].reason.find("signal 11"), std::string::npos)
      << record->stages[0].reason;
  EXPECT_EQ(record->stages[1].status, "ok");  // review still ran
  EXPECT_EQ(record->stages[2].status, "rejected");
  EXPECT_EQ(record->stages[3].status, "ok");
  EXPECT_EQ(record->report_exit_code, 0);
  EXPECT_TRUE(run_json_seen_by_report);
  Result<std::string> log = ReadFileToString(dir.File("logs/run-build.log"));
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("$ /bin/attnverify build --config"), std::string::npos);
  EXPECT_NE(log->find("gate smem_within_cap failed"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.File("logs/run-report.log")));
  Result<std::string> run_json = ReadFileToString(dir.File("evidence/run.json"));
  ASSERT_TRUE(run_json.ok());
  nlohmann::json j = nlohmann::json::parse(*run_json);
  EXPECT_EQ(j["schema"], kRunJsonSchema);
  ASSERT_EQ(j["stages"].size(), 4u);  // everything before the report
  EXPECT_EQ(j["stages"][2]["status"], "rejected");
  EXPECT_EQ(j["stages"][2]["log_sha256"].get<std::string>().size(), 64u);
}

TEST(Pipeline, ProgramThatCannotStartIsAnErrorStageNotAFailure) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"),
                                  "[run]\nstages = [\"numerics\", \"report\"]\n"
                                  "[candidate]\n")
                  .ok());
  Result<RunConfig> config = LoadRunConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(config.ok());
  FakeProcessRunner runner([](const ProcessRequest& r) -> Result<ProcessResult> {
    return NotFound(r.argv[0] + ": no such file");
  });
  PipelineOptions options;
  options.config = *config;
  options.self_exe = "/missing/attnverify";
  options.runner = &runner;
  Result<PipelineRecord> record = RunPipeline(options);
  ASSERT_TRUE(record.ok());
  ASSERT_EQ(record->stages.size(), 2u);
  EXPECT_EQ(record->stages[0].status, "error");
  EXPECT_EQ(record->report_exit_code, -1);
}

TEST(PackageInit, WritesTheLayoutAndKeepsExistingFiles) {
  TempDir dir;
  const std::string pkg = dir.File("attention-verify");
  Result<InitResult> r = InitPackage(pkg, false);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->written.size(), 4u);
  for (const char* sub : {"diff", "logs", "evidence", "reports"}) {
    EXPECT_TRUE(std::filesystem::is_directory(pkg + "/" + sub)) << sub;
  }
  Result<std::string> shapes = ReadFileToString(pkg + "/config/shapes.json");
  Result<std::string> shipped = ReadFileToString(testing::SourceDir() + "/config/shapes.json");
  ASSERT_TRUE(shapes.ok() && shipped.ok());
  EXPECT_EQ(*shapes, *shipped);

  ASSERT_TRUE(WriteFileAtomically(pkg + "/attnverify.toml", "# mine\n").ok());
  r = InitPackage(pkg, false);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->written.empty());
  EXPECT_EQ(r->kept.size(), 4u);
  Result<std::string> mine = ReadFileToString(pkg + "/attnverify.toml");
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(*mine, "# mine\n");
  r = InitPackage(pkg, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->written.size(), 4u);
}

TEST(Pipeline, LastLineSkipsTrailingBlankLines) {
  EXPECT_EQ(LastLine("a\nb\n\n  \n"), "b");
  EXPECT_EQ(LastLine(""), "");
  EXPECT_EQ(LastLine("only"), "only");
}

}  // namespace
}  // namespace av
