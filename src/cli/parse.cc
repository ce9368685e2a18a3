#include "cli/parse.h"

#include "cli/commands.h"

namespace av::cli {

std::optional<int> ParseCommandLine(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return std::nullopt;
}

std::vector<std::string> RecordedArgv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"attnverify"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace av::cli
