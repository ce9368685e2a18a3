#include "sweep/run_salt.h"

#include <sys/random.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <string_view>

namespace av {

// getrandom, else (a kernel without it) the clock and the pid: unpredictable enough for a
// salt, whose job is to differ from every earlier run's.
uint64_t FreshSalt() {
  uint64_t v = 0;
  while (v == 0) {
    if (::getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
      v = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
          (static_cast<uint64_t>(::getpid()) << 32);
    }
  }
  return v;
}

Result<uint64_t> ParseSalt(const std::string& text) {
  std::string_view hex = text;
  if (hex.substr(0, 2) == "0x" || hex.substr(0, 2) == "0X") hex.remove_prefix(2);
  uint64_t v = 0;
  bool ok = !hex.empty() && hex.size() <= 16;
  for (char c : hex) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
    if (d < 0) ok = false;
    v = v << 4 | static_cast<uint64_t>(d < 0 ? 0 : d);
  }
  if (!ok) {
    return InvalidInput("--salt must be 1 to 16 hexadecimal digits (numerics.json config.salt), got \"" +
                        text + "\"");
  }
  return v;
}

std::string SaltHex(uint64_t salt) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(salt));
  return buf;
}

}  // namespace av
