// A stage command (slice, review, build, numerics, merge) run on its own records its own
// entry in the package's evidence/run.json (pipeline/stage_ledger.h): "started, not
// finished" first, then how it ended and the sha256 of what it wrote. Under `attnverify
// run` it records nothing (the run does). A ledger that cannot be written is a warning:
// the stage's own result stands, and the report will not use its evidence.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "pipeline/stage_ledger.h"

namespace av::cli {

class RecordedStage {
 public:
  // `args` as the command got them (args[0] is the command's name).
  RecordedStage(const std::string& package_dir, const std::string& stage,
                const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"attnverify"};
    argv.insert(argv.end(), args.begin(), args.end());
    Result<StandaloneStage> s = StandaloneStage::Begin(package_dir, stage, std::move(argv));
    if (!s.ok()) {
      Warn(s.status().message());
      return;
    }
    stage_ = std::move(*s);
    if (!stage_.warning().empty()) Warn(stage_.warning());
  }
  RecordedStage(const RecordedStage&) = delete;
  RecordedStage& operator=(const RecordedStage&) = delete;
  // A path out of the command that forgot Finish: recorded as an error, never as ok.
  ~RecordedStage() {
    if (stage_.active()) Finish(kExitInternal, "ended without recording how");
  }

  // Records how the stage ended; returns `exit_code`.
  int Finish(int exit_code, const std::string& reason = "") {
    Status st = stage_.Finish(exit_code, reason);
    if (!st.ok()) Warn(st.message());
    return exit_code;
  }
  // The stage's evidence carries the run id of its entry: a provenance block started
  // before the entry (whose NewRunId saw no ATTNVERIFY_RUN_ID yet) takes the entry's id.
  // Under `attnverify run` both already have the run's id.
  void Bind(Provenance* provenance) const {
    if (stage_.active()) provenance->run_id = stage_.run_id();
  }
  // ReportError(status), recorded with its message.
  int Fail(const Status& status) { return Finish(ReportError(status), status.message()); }

 private:
  static void Warn(const std::string& what) {
    std::fprintf(stderr, "attnverify: warning: evidence/run.json: %s\n", what.c_str());
  }
  StandaloneStage stage_;
};

}  // namespace av::cli
