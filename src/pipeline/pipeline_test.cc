#include "pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file.h"
#include "core/sha256.h"
#include "pipeline/package_init.h"
#include "pipeline/run_config.h"
#include "pipeline/stage_ledger.h"
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

// A pipeline whose stages are answered by a fake: slice crashes, build rejects (and writes
// its evidence), report accepts.
TEST(Pipeline, KeepsGoingRecordsWhyAndWritesRunJsonBeforeTheReport) {
  TempDir dir;
  ASSERT_TRUE(
      WriteFileAtomically(dir.File("attnverify.toml"), "[slice]\n[build]\n[candidate]\n").ok());
  Result<RunConfig> config = LoadRunConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(config.ok()) << config.status().message();
  bool run_json_seen_by_report = false;
  std::string build_entry_while_running;
  std::set<std::string> run_ids;
  FakeProcessRunner runner([&](const ProcessRequest& r) -> Result<ProcessResult> {
    const std::string& stage = r.argv[1];
    EXPECT_EQ(r.cwd, "");  // the caller's folder
    auto id = r.extra_env.find(kRunIdEnv);
    EXPECT_NE(id, r.extra_env.end()) << stage;
    if (id != r.extra_env.end()) run_ids.insert(id->second);
    if (stage == "slice") {
      ProcessResult p;
      p.term_signal = 11;
      p.stderr_text = "partial\n";
      return p;
    }
    if (stage == "build") {
      // While the stage runs, the ledger says it started and has not finished.
      Result<std::string> ledger = ReadFileToString(dir.File("evidence/run.json"));
      if (ledger.ok()) {
        build_entry_while_running = nlohmann::json::parse(*ledger)["stages"][2].dump();
      }
      EXPECT_TRUE(WriteFileAtomically(dir.File("evidence/resources.json"), "{}").ok());
      return MakeExitedResult(1, "gate smem_within_cap failed\n", "");
    }
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
  options.argv = {"attnverify", "run"};
  options.cwd = dir.path();
  Result<PipelineRecord> record = RunPipeline(options);
  ASSERT_TRUE(record.ok()) << record.status().message();
  ASSERT_EQ(record->stages.size(), 5u);
  const std::vector<StageRecord>& st = record->stages;
  EXPECT_EQ(st[0].entry.status, StageStatus::kError);
  EXPECT_NE(st[0].entry.reason.find("signal 11"), std::string::npos) << st[0].entry.reason;
  EXPECT_EQ(st[1].entry.status, StageStatus::kOk);  // review still ran
  EXPECT_EQ(st[2].entry.status, StageStatus::kRejected);
  EXPECT_EQ(st[3].entry.status, StageStatus::kOk);
  EXPECT_EQ(record->report_exit_code, 0);
  EXPECT_TRUE(run_json_seen_by_report);
  // One run id, given to every stage, recorded in every entry.
  ASSERT_EQ(run_ids.size(), 1u);
  EXPECT_EQ(*run_ids.begin(), record->run_id);
  EXPECT_NE(build_entry_while_running.find("did not finish"), std::string::npos)
      << build_entry_while_running;
  Result<std::string> log = ReadFileToString(dir.File("logs/run-build.log"));
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("$ /bin/attnverify build --config"), std::string::npos);
  EXPECT_NE(log->find("gate smem_within_cap failed"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.File("logs/run-report.log")));
  Result<std::string> text = ReadFileToString(dir.File("evidence/run.json"));
  ASSERT_TRUE(text.ok());
  Result<RunLedger> ledger = ParseRunLedger(*text, "evidence/run.json");
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  EXPECT_NE(text->find("\"schema\": \"attnverify.run/2\""), std::string::npos);
  EXPECT_EQ(ledger->run_id, record->run_id);
  EXPECT_EQ(ledger->argv, options.argv);
  ASSERT_EQ(ledger->stages.size(), 4u);  // everything before the report
  const StageEntry* build = ledger->Stage("build");
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(build->status, StageStatus::kRejected);
  EXPECT_EQ(build->run_id, record->run_id);
  EXPECT_EQ(build->log_sha256.size(), 64u);
  EXPECT_EQ(build->log_sha256, Sha256Hex(*log));
  // What the stage wrote, hashed by the parent; the stage's log and the ledger are not
  // among it, nor is anything another stage wrote.
  ASSERT_EQ(build->outputs.size(), 1u);
  EXPECT_EQ(build->outputs[0].path, "evidence/resources.json");
  EXPECT_EQ(build->outputs[0].sha256, Sha256Hex("{}"));
  EXPECT_TRUE(ledger->Stage("review")->outputs.empty());
}

TEST(Pipeline, StagesThisRunDoesNotPlanKeepTheirEntries) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.File("attnverify.toml"),
                                  "[run]\nstages = [\"numerics\", \"report\"]\n[candidate]\n")
                  .ok());
  RunLedger old;
  StageEntry build;
  build.name = "build";
  build.run_id = "20260101T000000Z-aaaaaa";
  build.status = StageStatus::kOk;
  old.Put(build);
  ASSERT_TRUE(WriteLedger(dir.path(), old).ok());
  Result<RunConfig> config = LoadRunConfig(dir.File("attnverify.toml"));
  ASSERT_TRUE(config.ok());
  FakeProcessRunner runner(
      [](const ProcessRequest& r) -> Result<ProcessResult> { return MakeExitedResult(0, "", ""); });
  PipelineOptions options;
  options.config = *config;
  options.self_exe = "/bin/attnverify";
  options.runner = &runner;
  Result<PipelineRecord> record = RunPipeline(options);
  ASSERT_TRUE(record.ok());
  std::string warning;
  RunLedger now = LoadLedgerOrEmpty(dir.path(), &warning);
  EXPECT_EQ(warning, "");
  ASSERT_NE(now.Stage("build"), nullptr);
  EXPECT_EQ(now.Stage("build")->run_id, "20260101T000000Z-aaaaaa");
  ASSERT_NE(now.Stage("numerics"), nullptr);
  EXPECT_EQ(now.Stage("numerics")->run_id, record->run_id);
  EXPECT_NE(record->run_id, "20260101T000000Z-aaaaaa");
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
  EXPECT_EQ(record->stages[0].entry.status, StageStatus::kError);
  EXPECT_EQ(record->report_exit_code, -1);
}

TEST(PackageInit, WritesTheLayoutAndKeepsExistingFiles) {
  TempDir dir;
  const std::string pkg = dir.File("attention-verify");
  Result<InitResult> r = InitPackage(pkg, false);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->written.size(), 5u);
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
  EXPECT_EQ(r->kept.size(), 5u);
  Result<std::string> mine = ReadFileToString(pkg + "/attnverify.toml");
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(*mine, "# mine\n");
  r = InitPackage(pkg, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->written.size(), 5u);
}

// init's lock file was committed with the package and every later command rewrote it, so
// the tree was dirty after each one (`git stash pop` failed on it); work/ holds case files.
TEST(PackageInit, GitIgnoresTheLockAndTheWorkFolder) {
  TempDir dir;
  const std::string repo = dir.File("repo");
  std::filesystem::create_directories(repo);
  ASSERT_EQ(testing::RunShell("cd " + repo + " && git init -q .").exit_code, 0);
  ASSERT_TRUE(InitPackage(repo + "/attention-verify", false).ok());
  ASSERT_TRUE(WriteFileAtomically(repo + "/attention-verify/.attnverify.lock", "").ok());
  std::filesystem::create_directories(repo + "/attention-verify/work/cases/x");
  ASSERT_TRUE(WriteFileAtomically(repo + "/attention-verify/work/cases/x/case.json", "{}").ok());
  auto r = testing::RunShell("cd " + repo +
                             " && git check-ignore -q attention-verify/.attnverify.lock"
                             " && git check-ignore -q attention-verify/work/cases/x/case.json"
                             " && ! git check-ignore -q attention-verify/attnverify.toml");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Pipeline, LastLineSkipsTrailingBlankLines) {
  EXPECT_EQ(LastLine("a\nb\n\n  \n"), "b");
  EXPECT_EQ(LastLine(""), "");
  EXPECT_EQ(LastLine("only"), "only");
}

}  // namespace
}  // namespace av
