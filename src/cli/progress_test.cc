#include "cli/progress.h"

#include <gtest/gtest.h>

namespace av::cli {
namespace {

using std::chrono::seconds;

TEST(ProgressLineTest, DurationsReadLikeAClock) {
  EXPECT_EQ(FormatDuration(12.4), "12s");
  EXPECT_EQ(FormatDuration(250), "4m 10s");
  EXPECT_EQ(FormatDuration(3720), "1h 02m");
  EXPECT_EQ(FormatDuration(-1), "?");
}

TEST(ProgressLineTest, ALogGetsALineATenthAndAMinuteApartWithRateAndEta) {
  const auto t0 = ProgressLine::Clock::time_point{};
  ProgressLine p(/*tty=*/false, t0);
  EXPECT_EQ(p.Update(1, 100, "a", t0 + seconds(1)), "");  // inside the first tenth
  // 10 of 100 after 5 s: 2 cases/s, 90 left: 45 s.
  EXPECT_EQ(p.Update(10, 100, "b", t0 + seconds(5)),
            "numerics: 10/100 cases (10%), 2.0 cases/s, ETA 45s\n");
  EXPECT_EQ(p.Update(11, 100, "c", t0 + seconds(6)), "");
  // A minute without a new tenth still prints.
  EXPECT_NE(p.Update(12, 100, "d", t0 + seconds(70)), "");
  EXPECT_EQ(p.Update(100, 100, "e", t0 + seconds(80)),
            "numerics: 100/100 cases (100%), 1.2 cases/s, done in 1m 20s\n");
}

TEST(ProgressLineTest, ATerminalLineIsRewrittenAfterEveryCase) {
  const auto t0 = ProgressLine::Clock::time_point{};
  ProgressLine p(/*tty=*/true, t0);
  const std::string line = p.Update(1, 4, "mla.b=2", t0 + seconds(2));
  EXPECT_EQ(line.rfind("\r[1/4] 0.5 cases/s, ETA 6s  mla.b=2", 0), 0u) << line;
  EXPECT_EQ(line.back(), ' ');
  EXPECT_EQ(p.Update(4, 4, "x", t0 + seconds(8)).back(), '\n');
}

}  // namespace
}  // namespace av::cli
