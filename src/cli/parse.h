// The one way a subcommand parses its argv with CLI11: usage errors and --help end
// the command with the right exit code, and CLI11 exceptions never leave cli/.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace av::cli {

// nullopt: parsed, go on. Otherwise the exit code to return at once (0 after --help,
// 2 after a usage error), CLI11 having printed the help or the error.
std::optional<int> ParseCommandLine(CLI::App& app, const std::vector<std::string>& args);

// The argv evidence records for a command: {"attnverify", args...} (args[0] is the
// command's name). Never joined into a line; core/shell_quote.h renders it.
std::vector<std::string> RecordedArgv(const std::vector<std::string>& args);

}  // namespace av::cli
