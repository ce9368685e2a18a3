#include "core/check.h"

#include <cstdio>
#include <cstdlib>

namespace av::internal {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << "attnverify internal error: " << file << ":" << line << ": CHECK(" << condition
          << ") failed: ";
}

CheckFailure::~CheckFailure() {
  stream_ << "\n";
  const std::string text = stream_.str();
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  // Exit code 3 is "internal error" (cli/commands.h); _Exit skips destructors of a broken state.
  std::_Exit(3);
}

}  // namespace av::internal
