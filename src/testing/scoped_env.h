// For end-to-end tests of commands that read the environment (provider keys, base
// URLs): ScopedEnv sets a variable for the life of the object, so no secret is ever put
// on a command line, not even the test's own; Av() is the shell line that runs the real
// attnverify binary with no provider URL variables from the developer's shell. Test-only;
// the environment is process-wide, so tests using it run one at a time (gtest's default).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "testing/test_util.h"

namespace av::testing {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = std::string(old);
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  // Puts back what was there: the value before, or no variable at all.
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// `attnverify ARGS` for RunShell: ARGS is shell text the test wrote.
inline std::string Av(const std::string& args) {
  return "env -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL -u SSLKEYLOGFILE '" +
         std::string(ATTNVERIFY_BINARY) + "' " + args;
}

}  // namespace av::testing
