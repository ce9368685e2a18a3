// The command policy's regression rows, shared by command_policy_test.cc (bypasses of deny
// rules, over-granting allow rules, bash's rules) and tool_options_test.cc (what an allowed
// tool's own options do): the row type, the rule lists the rows use, and the fixture that
// decides each row in a scratch package folder. Test code only.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "policy/command_policy.h"
#include "testing/test_util.h"

namespace av::policy_test {

// The allow and deny lists `attnverify agent-config emit` writes.
inline const std::vector<std::string> kWorkflowAllow = {
    "Read",         "Bash(git diff:*)",         "Bash(git status:*)",
    "Bash(nvcc:*)", "Bash(python -m pytest:*)", "Bash(pytest:*)",
    "Bash(ncu:*)",  "Bash(attnverify:*)"};
inline const std::vector<std::string> kWorkflowDeny = {
    "Bash(git push:*)", "Bash(rm:*)", "Bash(curl:*)", "Bash(wget:*)",
    "Bash(ssh:*)",      "Edit",       "Write"};
// The workflow's how-to, as written there.
inline const std::vector<std::string> kHowToAllow = {
    "Read",           "Bash(git diff:*)", "Bash(git status:*)", "Bash(nvcc:*)",
    "Bash(python:*)", "Bash(pytest:*)",   "Bash(ncu:*)"};
inline const std::vector<std::string> kHowToDeny = {"Bash(git push:*)", "Bash(rm:*)",
                                                    "Bash(curl:*production*)"};

struct Case {
  const char* name;
  std::vector<std::string> allow, deny, ask;
  const char* command;
  Verdict expected;
};

// gtest prints a failing row by its name rather than as bytes.
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class CommandPolicyRegression : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    std::filesystem::create_directories(dir_->File("attention-verify/logs"));
    ::symlink("/etc", dir_->File("attention-verify/link").c_str());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static inline testing::TempDir* dir_ = nullptr;
};

inline std::vector<PermissionRule> Rules(const std::vector<std::string>& texts) {
  std::vector<PermissionRule> out;
  for (const std::string& t : texts) {
    Result<PermissionRule> r = ParsePermissionRule(t);
    EXPECT_TRUE(r.ok()) << t;
    if (r.ok()) out.push_back(*r);
  }
  return out;
}

}  // namespace av::policy_test
