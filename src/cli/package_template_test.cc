// The attnverify.toml that `attnverify init` writes must be accepted by every command that
// reads it. The readers live in different modules (pipeline, sweep, evidence, review,
// report); cli is the one module that sees them all, so the check lives here.
#include <gtest/gtest.h>

#include "compile/build_config.h"
#include "pipeline/package_init.h"
#include "pipeline/run_config.h"
#include "report/report_config.h"
#include "review/review_config.h"
#include "review/rules.h"
#include "sweep/numerics_config.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::TempDir;

TEST(PackageTemplate, ParsesForEveryReader) {
  TempDir dir;
  ASSERT_TRUE(InitPackage(dir.path(), false).ok());
  const std::string toml = dir.File("attnverify.toml");
  Result<RunConfig> run = LoadRunConfig(toml);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_TRUE(run->has_slice);
  EXPECT_FALSE(run->has_build);      // commented out until the user names sources
  EXPECT_FALSE(run->has_candidate);  // likewise the candidate
  Result<NumericsConfig> numerics = LoadNumericsConfig(toml);
  ASSERT_TRUE(numerics.ok()) << numerics.status().message();
  // init writes the fast reference, refereed by the oracle (doc/numerics.md).
  EXPECT_EQ(numerics->reference.kind, ImplKind::kFast);
  EXPECT_EQ(numerics->oracle_sample, 64);
  Result<ReviewPackageConfig> review = LoadReviewPackageConfig(toml, BuiltinRuleIds());
  EXPECT_TRUE(review.ok()) << review.status().message();
  Result<ReportConfig> report = LoadReportConfig(toml);
  EXPECT_TRUE(report.ok()) << report.status().message();
}

}  // namespace
}  // namespace av
