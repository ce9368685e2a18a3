#include "cli/progress.h"

#include <cmath>
#include <cstdio>

namespace av::cli {

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  const long long s = std::llround(seconds);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%lldm %02llds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%llds", s);
  }
  return buf;
}

std::string ProgressLine::Update(int64_t done, int64_t total, const std::string& case_id,
                                 Clock::time_point now) {
  if (total <= 0) return "";
  const int64_t tenth = done * 10 / total;
  const bool minute = now - last_print_ >= std::chrono::seconds(60);
  if (!tty_ && tenth == last_tenth_ && !minute && done != total) return "";
  last_tenth_ = tenth;
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string eta = done == total ? "done in " + FormatDuration(elapsed)
                    : rate > 0    ? "ETA " + FormatDuration(static_cast<double>(total - done) / rate)
                                  : "ETA ?";
  char buf[512];
  if (tty_) {
    std::snprintf(buf, sizeof buf, "\r[%lld/%lld] %.1f cases/s, %s  %-48.48s%s",
                  static_cast<long long>(done), static_cast<long long>(total), rate, eta.c_str(),
                  case_id.c_str(), done == total ? "\n" : "");
  } else {
    std::snprintf(buf, sizeof buf, "numerics: %lld/%lld cases (%lld%%), %.1f cases/s, %s\n",
                  static_cast<long long>(done), static_cast<long long>(total),
                  static_cast<long long>(done * 100 / total), rate, eta.c_str());
  }
  return buf;
}

}  // namespace av::cli
