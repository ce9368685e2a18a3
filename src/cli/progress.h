// The progress of a long sweep on stderr: cases done of the total, the rate and the time
// left. On a terminal one line is rewritten after every case; elsewhere (CI logs, a Slurm
// job's output file) a line is printed at every tenth of the sweep and at least once a
// minute, so a log shows the sweep is alive without a line per case. Not thread-safe: the
// sweep calls it serialised.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace av::cli {

// "4m 10s", "1h 02m", "12s".
std::string FormatDuration(double seconds);

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressLine(bool tty, Clock::time_point start = Clock::now())
      : tty_(tty), start_(start), last_print_(start) {}

  // The text for `done` of `total` cases at `now`, or "" when nothing is to be printed.
  std::string Update(int64_t done, int64_t total, const std::string& case_id,
                     Clock::time_point now = Clock::now());

 private:
  bool tty_;
  Clock::time_point start_, last_print_;
  int64_t last_tenth_ = 0;
};

}  // namespace av::cli
