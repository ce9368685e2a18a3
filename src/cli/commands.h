// The subcommand table (ninja's kTools): each row names a command, says in one line
// what it does, and points at its Run function in cmd_<name>.cc. `help`, the usage
// text and "did you mean" are all derived from this table. Only cli/ prints or exits.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace av::cli {

// Exit codes (doc/architecture.md): 0 accepted/ok, 1 rejected by evidence, 2 usage or input error,
// 3 internal error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;

// args[0] is the command name itself ("compare"), as CLI11 expects argv[0].
using RunFn = int (*)(std::vector<std::string> args);

struct Command {
  std::string_view name;
  std::string_view summary;
  RunFn run;
};

std::span<const Command> Commands();

// Entry point used by main(): dispatches argv to a command.
int Main(int argc, char** argv);

// Prints "attnverify: <message>" to stderr and returns the exit code for the status.
int ReportError(const Status& status);

// The closest command names to a mistyped one (edit distance <= 2, or a prefix).
std::vector<std::string> SuggestCommands(std::string_view typo);

// Per-command entry points (cmd_<name>.cc).
int RunAgent(std::vector<std::string> args);
int RunAgentConfig(std::vector<std::string> args);
int RunBuild(std::vector<std::string> args);
int RunCases(std::vector<std::string> args);
int RunCompare(std::vector<std::string> args);
int RunHelp(std::vector<std::string> args);
int RunInit(std::vector<std::string> args);
int RunJudge(std::vector<std::string> args);
int RunLedger(std::vector<std::string> args);
int RunMerge(std::vector<std::string> args);
int RunNumerics(std::vector<std::string> args);
int RunPolicy(std::vector<std::string> args);
int RunProfile(std::vector<std::string> args);
int RunProvider(std::vector<std::string> args);
int RunRef(std::vector<std::string> args);
int RunReport(std::vector<std::string> args);
int RunReview(std::vector<std::string> args);
int RunRun(std::vector<std::string> args);
int RunSlice(std::vector<std::string> args);
int RunVerifyPackage(std::vector<std::string> args);
int RunVersion(std::vector<std::string> args);

}  // namespace av::cli
