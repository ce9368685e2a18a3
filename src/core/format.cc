#include "core/format.h"

#include <cstdio>

namespace av {

std::string FormatG(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace av
