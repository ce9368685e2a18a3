// Numbers in messages and reports: printf's %g with `digits` significant digits
// ("0.000123", "1.5e+07", "inf", "nan"). Pure function; any thread.
#pragma once

#include <string>

namespace av {

std::string FormatG(double v, int digits);

}  // namespace av
