// RunReportStage over a package on disk: the formats asked for, through the writers'
// table, then manifest.json covering them; a linked reports/ folder refused first.
#include "report/report_stage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/json_dump.h"
#include "report/report_writers.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;

TEST(ReportWriters, OneWriterPerFormatInTheConfigsOrder) {
  std::vector<std::string> names;
  for (const ReportWriter& w : ReportWriters()) names.emplace_back(w.format);
  EXPECT_EQ(names, std::vector<std::string>(std::begin(kReportFormats), std::end(kReportFormats)));
  EXPECT_EQ(FindReportWriter("pdf"), nullptr);
  ASSERT_NE(FindReportWriter("json"), nullptr);
  ChecklistReport r;
  r.verdict = ReportVerdict::kIncomplete;
  const std::string text = FindReportWriter("json")->write(r);
  EXPECT_EQ(text, JsonFileText(AcceptanceToJson(r)));
}

class ReportStageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.File("attnverify.toml")) << "[report]\nformats = [\"md\", \"json\"]\n";
    fs::create_directories(dir_.File("evidence"));
    Result<ReportConfig> c = LoadReportConfig(dir_.File("attnverify.toml"));
    ASSERT_TRUE(c.ok()) << c.status().message();
    config_ = *c;
    request_.config_path = dir_.File("attnverify.toml");
    request_.on_warning = [this](const std::string& note) { warnings_.push_back(note); };
  }

  av::testing::TempDir dir_;
  ReportConfig config_;
  ReportRequest request_;
  std::vector<std::string> warnings_;
  // nvcc is probed only when it is on PATH; whatever it answers is not this test's subject.
  FakeProcessRunner runner_{
      [](const ProcessRequest&) -> Result<ProcessResult> { return ProcessResult{}; }};
};

TEST_F(ReportStageTest, WritesTheAskedFormatsThenAManifestThatCoversThem) {
  Result<ReportOutcome> out = RunReportStage(config_, request_, runner_);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->written.size(), 2u);
  EXPECT_EQ(fs::path(out->written[0]).filename(), "acceptance.md");
  EXPECT_EQ(fs::path(out->written[1]).filename(), "acceptance.json");
  EXPECT_FALSE(fs::exists(dir_.File("reports/acceptance.html")));
  EXPECT_EQ(*ReadFileToString(out->written[0]), WriteAcceptanceMarkdown(out->report));
  EXPECT_EQ(out->report.verdict, ReportVerdict::kIncomplete);  // no evidence at all
  Result<std::string> manifest = ReadFileToString(out->manifest_path);
  ASSERT_TRUE(manifest.ok());
  nlohmann::json m = nlohmann::json::parse(*manifest);
  std::vector<std::string> listed;
  for (const auto& f : m["files"]) listed.push_back(f["path"].get<std::string>());
  EXPECT_EQ(listed, (std::vector<std::string>{"attnverify.toml", "reports/acceptance.json",
                                              "reports/acceptance.md"}));
  EXPECT_EQ(out->manifest_files, 3u);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(ReportStageTest, ALinkedReportsFolderIsRefusedBeforeAnythingIsWritten) {
  av::testing::TempDir elsewhere;
  fs::create_directory_symlink(elsewhere.path(), dir_.File("reports"));
  Result<ReportOutcome> out = RunReportStage(config_, request_, runner_);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("reports"), std::string::npos) << out.status().message();
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
  EXPECT_FALSE(fs::exists(dir_.File("manifest.json")));
}

TEST_F(ReportStageTest, ALinkToAFileIsRecordedAndReported) {
  std::ofstream(dir_.File("notes.txt")) << "x";
  fs::create_symlink("../notes.txt", dir_.File("evidence/link.txt"));
  Result<ReportOutcome> out = RunReportStage(config_, request_, runner_);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0],
            "warning: evidence/link.txt -> ../notes.txt is a symbolic link: manifest.json "
            "records the link, not what it points to");
}

}  // namespace
}  // namespace av
