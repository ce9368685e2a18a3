// Runs nvcc with `-Xptxas -v` over the configured sources, once per (source, target):
// one failing target (say, static shared memory over sm_80's 48 KiB) does not hide the
// evidence for the others, which a single multi-gencode call would. Objects go to a
// temporary folder that is removed. All process work goes through a ProcessRunner, so
// tests use a fake. Not thread-safe per runner call; distinct calls are independent.
#pragma once

#include <string>
#include <vector>

#include "core/process.h"
#include "core/status.h"
#include "compile/build_config.h"

namespace av {

struct NvccInvocation {
  std::vector<std::string> argv;
  std::string source;
  std::string target;   // as configured: "sm_90a" or "arch=compute_90a,code=sm_90a"
  std::string outcome;  // ProcessResult::Describe()
  int exit_code = -1;
};

struct NvccRun {
  std::string nvcc;     // the program run (path)
  std::string version;  // "13.0.88" from `nvcc --version`, or empty
  std::vector<NvccInvocation> invocations;
  std::string log;  // stderr then stdout of every invocation, in order: logs/build.log
  bool all_succeeded = true;
};

// The nvcc to run: config.nvcc, else $CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc, else PATH.
// Empty when none is found; `why` then says where we looked.
std::string FindNvcc(const BuildConfig& config, std::string* why);

// "-gencode" value for a target: "sm_90a" -> "arch=compute_90a,code=sm_90a"; a value
// that already starts with "arch=" is kept. InvalidInput for anything else.
Result<std::string> GencodeFor(const std::string& target);

// The argv of one compile (tests check it; no shell is ever involved).
std::vector<std::string> NvccArgv(const std::string& nvcc, const std::string& source,
                                  const std::vector<std::string>& flags, const std::string& gencode,
                                  const std::string& object_path);

// "13.0.88" from nvcc --version's "Cuda compilation tools, release 13.0, V13.0.88".
std::string ParseNvccVersion(const std::string& text);

// Compiles every source for every target with cwd = `root` (a checkout). Fails only when
// nvcc cannot be started; compile failures are in the log and the invocations.
Result<NvccRun> RunNvcc(ProcessRunner& runner, const std::string& nvcc, const BuildConfig& config,
                        const std::vector<std::string>& targets, const std::string& root);

}  // namespace av
