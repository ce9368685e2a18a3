#include "compile/nvcc_runner.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "compile/arch_limits.h"

namespace av {
namespace {

// A temporary folder for object files, removed on every path out.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "attnverify-nvcc-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

std::string FindNvcc(const BuildConfig& config, std::string* why) {
  if (!config.nvcc.empty()) {
    std::string found = FindExecutable(config.nvcc);
    if (found.empty() && why) *why = "[build] nvcc = \"" + config.nvcc + "\" is not an executable";
    return found;
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* dir = std::getenv(var);
    if (dir == nullptr || *dir == '\0') continue;
    std::string found = FindExecutable(std::string(dir) + "/bin/nvcc");
    if (!found.empty()) return found;
  }
  std::string found = FindExecutable("nvcc");
  if (found.empty() && why) {
    *why = "nvcc was not found (looked at $CUDA_HOME/bin, $CUDA_PATH/bin and PATH)";
  }
  return found;
}

Result<std::string> GencodeFor(const std::string& target) {
  if (target.rfind("arch=", 0) == 0) {
    if (target.find(",code=") == std::string::npos) {
      return InvalidInput("gencode \"" + target + "\" needs \",code=\"");
    }
    return target;
  }
  std::string sm = NormalizeArch(target);
  if (sm.rfind("sm_", 0) != 0) {
    return InvalidInput("target \"" + target +
                        "\" is neither an arch (sm_90a) nor a gencode "
                        "value (arch=compute_90a,code=sm_90a)");
  }
  return "arch=compute_" + sm.substr(3) + ",code=" + sm;
}

std::vector<std::string> NvccArgv(const std::string& nvcc, const std::string& source,
                                  const std::vector<std::string>& flags, const std::string& gencode,
                                  const std::string& object_path) {
  std::vector<std::string> argv = {nvcc, "-c", "-Xptxas", "-v"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("-gencode");
  argv.push_back(gencode);
  argv.push_back("-o");
  argv.push_back(object_path);
  argv.push_back(source);
  return argv;
}

std::string ParseNvccVersion(const std::string& text) {
  size_t at = text.find(", V");
  if (at == std::string::npos) return "";
  size_t start = at + 3, end = start;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  return text.substr(start, end - start);
}

Result<NvccRun> RunNvcc(ProcessRunner& runner, const std::string& nvcc, const BuildConfig& config,
                        const std::vector<std::string>& targets, const std::string& root) {
  NvccRun run;
  run.nvcc = nvcc;
  ProcessRequest version;
  version.argv = {nvcc, "--version"};
  version.timeout_ms = 60'000;
  AV_ASSIGN_OR_RETURN(ProcessResult v, runner.Run(version));
  run.version = ParseNvccVersion(v.stdout_text);

  ScratchDir scratch;
  if (scratch.path().empty()) return IoError("cannot create a temporary folder for object files");
  int index = 0;
  for (const std::string& source : config.sources) {
    for (const std::string& target : targets) {
      AV_ASSIGN_OR_RETURN(std::string gencode, GencodeFor(target));
      NvccInvocation inv;
      inv.source = source;
      inv.target = target;
      inv.argv = NvccArgv(nvcc, source, config.flags, gencode,
                          scratch.path() + "/" + std::to_string(index++) + ".o");
      ProcessRequest req;
      req.argv = inv.argv;
      req.cwd = root;
      req.timeout_ms = config.timeout_s * 1000;
      AV_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(req));
      inv.outcome = r.Describe();
      inv.exit_code = r.exited ? r.exit_code : -1;
      if (!r.ok()) run.all_succeeded = false;
      run.log += r.stderr_text;
      run.log += r.stdout_text;
      if (r.stderr_truncated || r.stdout_truncated) {
        run.log += "attnverify: output of " + source + " for " + target +
                   " was cut at the capture limit\n";
      }
      if (r.timed_out)
        run.log += "attnverify: nvcc " + source + " for " + target + ": " + inv.outcome + "\n";
      run.invocations.push_back(std::move(inv));
    }
  }
  return run;
}

}  // namespace av
