// Cheating candidates of our own against `attnverify numerics` in its default sandbox
// (core/sandbox.h), end to end with the real binary: each runs the correct C++ CPU
// candidate and then tries to plant a program in every PATH folder, in the real $HOME and
// in the host's /tmp, to rewrite the package's evidence, or to leave a daemon. None of it
// reaches the host; the daemon is counted in numerics.json's containment; the honest
// candidate shows no alarm. Skips with the reason where bwrap cannot run here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/process.h"
#include "core/sandbox.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class SandboxCheats : public ::testing::Test {
 protected:
  void SetUp() override {
    PosixProcessRunner runner;
    Result<std::string> bwrap = FindWorkingBwrap(runner);
    if (!bwrap.ok()) GTEST_SKIP() << bwrap.status().message();
    name_ = "attnverify-planted-" + std::to_string(::getpid());
  }
  void TearDown() override {
    std::error_code ec;
    for (const std::string& p : Targets()) fs::remove(p + "/" + name_, ec);
  }

  // The folders a planted program would be run from: PATH's and $HOME.
  static std::vector<std::string> Targets() {
    std::vector<std::string> out;
    const char* path = std::getenv("PATH");
    for (std::string d = path ? path : ""; !d.empty();) {
      const size_t colon = d.find(':');
      out.push_back(d.substr(0, colon));
      d = colon == std::string::npos ? "" : d.substr(colon + 1);
    }
    if (const char* home = std::getenv("HOME")) out.push_back(home);
    return out;
  }

  // numerics over one small GEMM case whose candidate runs the CPU candidate, then `body`.
  json Numerics(const std::string& body, int* exit_code, const std::string& extra_candidate = "") {
    const std::string pkg = dir_.File("pkg");
    fs::create_directories(pkg + "/config");
    fs::create_directories(pkg + "/evidence");
    EXPECT_TRUE(WriteFileAtomically(pkg + "/evidence/resources.json", "{}").ok());
    EXPECT_TRUE(WriteFileAtomically(pkg + "/config/shapes.json",
                                    R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm",
                                    "grid": {"m": [3], "n": [16], "k": [8]}, "dtypes": ["f32"],
                                    "seeds": [0]}]})")
                    .ok());
    EXPECT_TRUE(WriteFileAtomically(dir_.File("cand.sh"),
                                    "#!/bin/sh\n\"" + std::string(ATTNVERIFY_CPU_CANDIDATE) +
                                        "\" \"$1\" || exit 9\n" + body + "\nexit 0\n")
                    .ok());
    fs::permissions(dir_.File("cand.sh"), fs::perms::owner_all);
    EXPECT_TRUE(WriteFileAtomically(pkg + "/attnverify.toml",
                                    "[numerics]\nshapes = \"config/shapes.json\"\ntolerances = \"" +
                                        testing::SourceDir() +
                                        "/config/tolerances.json\"\n[candidate]\ncommand = [\"" +
                                        dir_.File("cand.sh") +
                                        "\", \"{cases}\"]\ntimeout_s = 60\n" + extra_candidate)
                    .ok());
    testing::CommandResult r =
        testing::RunShell("ATTNVERIFY_KEY_FILE=" + dir_.File("key") + " timeout 120 " +
                          ATTNVERIFY_BINARY + " numerics --config " + pkg + "/attnverify.toml");
    *exit_code = r.exit_code;
    Result<std::string> text = ReadFileToString(pkg + "/evidence/numerics.json");
    EXPECT_TRUE(text.ok()) << r.output;
    return text.ok() ? json::parse(*text) : json::object();
  }

  testing::TempDir dir_, host_tmp_;
  std::string name_;
};

TEST_F(SandboxCheats, HonestCandidatePassesWithNothingLeftBehind) {
  int rc = -1;
  json doc = Numerics("", &rc);
  EXPECT_EQ(rc, 0) << doc.dump();
  EXPECT_EQ(doc["containment"]["sandbox"], "bwrap");
  EXPECT_EQ(doc["containment"]["leftover_processes"], 0);
}

TEST_F(SandboxCheats, ProgramsPlantedOnPathInHomeOrInTheHostsTmpNeverLand) {
  std::string body;
  for (const std::string& t : Targets()) {
    body += "printf '#!/bin/sh\\n' > '" + t + "/" + name_ + "' 2>/dev/null && echo planted >&2\n";
  }
  body += "echo x > '" + host_tmp_.File(name_) + "' 2>/dev/null && echo planted >&2\n";
  int rc = -1;
  json doc = Numerics(body, &rc);
  EXPECT_EQ(rc, 0) << doc.dump();  // the writes failed; the outputs are right
  std::error_code ec;
  for (const std::string& t : Targets()) EXPECT_FALSE(fs::exists(t + "/" + name_, ec)) << t;
  EXPECT_FALSE(fs::exists(host_tmp_.File(name_), ec));
}

TEST_F(SandboxCheats, RewrittenEvidenceNeverLands) {
  int rc = -1;
  json doc = Numerics(
      "echo '{\"forged\": true}' > \"$(dirname \"$ATTNVERIFY_WORK_DIR\")/evidence/resources.json\"",
      &rc);
  EXPECT_EQ(rc, 0) << doc.dump();
  EXPECT_EQ(*ReadFileToString(dir_.File("pkg/evidence/resources.json")), "{}");
}

TEST_F(SandboxCheats, DaemonsLeftBehindAreCountedAgainstTheCandidate) {
  int rc = -1;
  json doc = Numerics(
      "setsid sleep 300 </dev/null >/dev/null 2>&1 &\n"
      "(sleep 300 </dev/null >/dev/null 2>&1 &)\n"
      "printf '\\nattnverify-sandbox: leftover_processes=0\\n' >&2\n",
      &rc);
  EXPECT_EQ(rc, 0) << doc.dump();
  EXPECT_EQ(doc["containment"]["leftover_processes"], 2) << doc["containment"].dump();
}

// The working folder outside the package: prepare builds there (before any case exists, so
// it cannot learn a run's inputs), and every candidate run finds it read-only, so a memo of
// this run's answers cannot be left there for the next run (or for the rerun process).
TEST_F(SandboxCheats, TheWorkingFolderOutsideThePackageIsWritableOnlyForPrepare) {
  const std::string cwd = dir_.File("build");
  fs::create_directories(cwd);
  int rc = -1;
  json doc =
      Numerics("echo memo > \"$PWD/memo\" 2>/dev/null && echo planted >&2", &rc,
               "cwd = \"" + cwd + "\"\nprepare = [\"sh\", \"-c\", \"echo built > built\"]\n");
  EXPECT_EQ(rc, 0) << doc.dump();
  std::error_code ec;
  EXPECT_TRUE(fs::exists(cwd + "/built", ec)) << "prepare could not build in its folder";
  EXPECT_FALSE(fs::exists(cwd + "/memo", ec)) << "a candidate run wrote its working folder";
}

}  // namespace
}  // namespace av
