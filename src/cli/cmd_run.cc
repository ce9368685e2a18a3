// attnverify run: placeholder until its issue lands; says so and exits 2.
#include "cli/commands.h"

namespace av::cli {

int RunRun(std::vector<std::string> args) {
  return ReportError(InvalidInput(args[0] + ": not implemented yet"));
}

}  // namespace av::cli
