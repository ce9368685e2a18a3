// Helpers for tests only (never linked into the library): temporary folders, running a
// real process and capturing its output, finding a Python interpreter that has numpy
// (Debian's /usr/bin/python3 normally) for cross-checks, and where the checkout and the
// built programs are (test_paths.cc, the only test file that knows the build folder).
#pragma once

// The names the tests have always used, now read at run time.
#define ATTNVERIFY_SOURCE_DIR (::av::testing::SourceDirPath())
#define ATTNVERIFY_BINARY (::av::testing::AttnverifyBinaryPath())
#define ATTNVERIFY_CPU_CANDIDATE (::av::testing::CpuCandidatePath())

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace av::testing {

const char* SourceDirPath();         // the checkout
const char* AttnverifyBinaryPath();  // build/attnverify
const char* CpuCandidatePath();      // build/cpu_candidate

inline std::string SourceDir() { return SourceDirPath(); }

// A fresh folder under $TMPDIR, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "attnverify-test-XXXXXX");
    char* made = ::mkdtemp(pattern.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` with /bin/sh; the caller quotes. Exit code as the shell reports it.
inline CommandResult RunShell(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// $ATTNVERIFY_PYTHON, else /usr/bin/python3, else python3 — the first that imports numpy.
// Empty when none does (tests then GTEST_SKIP with the reason).
inline std::string FindPythonWithNumpy() {
  std::string candidates[3];
  if (const char* env = std::getenv("ATTNVERIFY_PYTHON")) candidates[0] = env;
  candidates[1] = "/usr/bin/python3";
  candidates[2] = "python3";
  for (const auto& py : candidates) {
    if (py.empty()) continue;
    if (RunShell(py + " -c 'import numpy'").exit_code == 0) return py;
  }
  return "";
}

}  // namespace av::testing
