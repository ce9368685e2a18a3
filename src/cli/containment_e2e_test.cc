// The candidate contained, end to end: the real attnverify binary, real candidates (the
// C++ cpu_candidate wrapped in hostile shell scripts) and real signals. Each regression
// is named after what broke in reliability.md: FIFOs and /dev/zero links hung numerics and
// compare (M3); Ctrl-C, SIGTERM and kill -9 left candidates and setsid children running
// (M5); concurrent runs corrupted each other (M8); `ulimit -f` killed numerics (L8); a
// full disk during prepare was blamed on the candidate (L5); the candidate forged another
// stage's evidence (H2). Every command runs under `timeout`, so a regression costs
// seconds, not a hung suite.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/process.h"
#include "core/sandbox.h"
#include "tensor/npy.h"
#include "tensor/tensor.h"
#include "testing/test_util.h"

namespace av {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunShell;
using testing::TempDir;

const std::string kAv = ATTNVERIFY_BINARY;
const std::string kCpu = ATTNVERIFY_CPU_CANDIDATE;

// A package under dir/pkg with one small gemm case whose candidate is the shell script
// dir/cand.sh (`body` after running the correct cpu_candidate on $1, the cases.json);
// `toml_extra` is appended to [candidate].
std::string WritePackage(const TempDir& dir, const std::string& body,
                         const std::string& toml_extra = "") {
  fs::create_directories(dir.File("pkg/config"));
  EXPECT_TRUE(
      WriteFileAtomically(
          dir.File("pkg/config/shapes.json"),
          R"({"version": 1, "sweeps": [{"name": "g", "op": "gemm", "grid": {"m": [3], "n": [16], "k": [8]}, "dtypes": ["f32"], "seeds": [0]}]})")
          .ok());
  EXPECT_TRUE(WriteFileAtomically(dir.File("cand.sh"),
                                  "#!/bin/sh\n\"" + kCpu + "\" \"$1\" || exit 9\n" + body + "\n")
                  .ok());
  fs::permissions(dir.File("cand.sh"), fs::perms::owner_all);
  const std::string toml = dir.File("pkg/attnverify.toml");
  EXPECT_TRUE(WriteFileAtomically(toml,
                                  "[numerics]\nshapes = \"config/shapes.json\"\n"
                                  "tolerances = \"" +
                                      testing::SourceDir() +
                                      "/config/tolerances.json\"\n[candidate]\ncommand = [\"" +
                                      dir.File("cand.sh") + "\", \"{cases}\"]\ntimeout_s = 60\n" +
                                      toml_extra)
                  .ok());
  return toml;
}

json Evidence(const TempDir& dir) {
  Result<std::string> text = ReadFileToString(dir.File("pkg/evidence/numerics.json"));
  if (!text.ok()) return json::object();
  return json::parse(*text, nullptr, false);
}

// Whether a process whose command line contains `marker` is running (zombies aside).
// The pattern's first letter is bracketed ("[s]leep 9") so that the shell running pgrep,
// whose own command line holds the pattern, does not match it.
bool Running(const std::string& marker) {
  const std::string pattern = "[" + marker.substr(0, 1) + "]" + marker.substr(1);
  return RunShell("for p in $(pgrep -f '" + pattern +
                  "'); do grep -q '^State:.*Z' /proc/$p/status 2>/dev/null || echo $p; done | "
                  "grep -q .")
             .exit_code == 0;
}
bool AppearsSoon(const std::string& marker) {
  for (int i = 0; i < 300; ++i) {  // 30 s: a loaded machine starts python slowly
    if (Running(marker)) return true;
    ::usleep(100'000);
  }
  return false;
}
bool GoneSoon(const std::string& marker) {
  for (int i = 0; i < 50 && Running(marker); ++i) ::usleep(100'000);
  return !Running(marker);
}

// Starts argv in its own process group with default signal dispositions (as a shell
// with job control would), output to `log`.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);
  for (int s : {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGXFSZ}) ::signal(s, SIG_DFL);
  FILE* out = std::freopen(log.c_str(), "w", stdout);
  if (out != nullptr) ::dup2(::fileno(stdout), 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

int WaitExit(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 300; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    ::usleep(100'000);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

std::string ReadLog(const std::string& path) {
  Result<std::string> t = ReadFileToString(path);
  return t.ok() ? *t : "";
}

// Regression (M3): a FIFO the candidate leaves at out/outputs.safetensors blocked
// numerics in open() forever.
TEST(NumericsRegression, FifoAtTheOutputsFailsTheCaseAtOnce) {
  for (const char* sandbox : {"none", "bwrap"}) {
    TempDir dir;
    const std::string toml =
        WritePackage(dir,
                     "for d in $(sed -n 's/.*\"out_dir\": \"\\(.*\\)\".*/\\1/p' \"$1\"); do "
                     "rm -f \"$d\"/*; mkfifo \"$d/outputs.safetensors\"; done");
    auto r = RunShell("timeout 60 " + kAv + " numerics --sandbox " + sandbox + " --config " + toml);
    EXPECT_EQ(r.exit_code, 1) << sandbox << ": " << r.output;
    json ev = Evidence(dir);
    ASSERT_TRUE(ev.contains("cases")) << r.output;
    EXPECT_NE(ev["cases"][0]["reason"].get<std::string>().find(
                  "out/outputs.safetensors: is a FIFO, not a regular file"),
              std::string::npos)
        << ev["cases"][0]["reason"];
  }
}

// Regression (M3): inputs.safetensors pointed at /dev/zero was read forever.
TEST(NumericsRegression, DevZeroLinkAtTheInputsFailsTheCaseAtOnce) {
  TempDir dir;
  const std::string toml =
      WritePackage(dir,
                   "for d in $(sed -n 's/.*\"dir\": \"\\(.*\\)\".*/\\1/p' \"$1\"); do "
                   "ln -sf /dev/zero \"$d/inputs.safetensors\"; done");
  auto r = RunShell("timeout 60 " + kAv + " numerics --sandbox none --config " + toml);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  json ev = Evidence(dir);
  ASSERT_TRUE(ev.contains("cases")) << r.output;
  EXPECT_NE(ev["cases"][0]["reason"].get<std::string>().find(
                "the candidate changed inputs.safetensors (sha256 "),
            std::string::npos);
  EXPECT_NE(ev["cases"][0]["reason"].get<std::string>().find("is a symbolic link"),
            std::string::npos)
      << ev["cases"][0]["reason"];
}

// Regression (M3): `attnverify compare fifo.npy ref.npy` hung.
TEST(CompareRegression, AFifoIsAClearErrorNotAHang) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.File("f.npy").c_str(), 0644), 0);
  ASSERT_TRUE(WriteNpy(dir.File("ok.npy"), Tensor::Zeros(DType::kF32, {4})).ok());
  auto r =
      RunShell("timeout 20 " + kAv + " compare " + dir.File("f.npy") + " " + dir.File("ok.npy"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(dir.File("f.npy") + ": is a FIFO, not a regular file"), std::string::npos)
      << r.output;
}

// Regression (H2): the candidate rewrote evidence/resources.json and the report accepted
// it. In the sandbox the write fails; without it, the package snapshot fails every case.
TEST(NumericsRegression, ACandidateCannotForgeAnotherStagesEvidence) {
  for (const char* sandbox : {"none", "bwrap"}) {
    TempDir dir;
    const std::string toml =
        WritePackage(dir, "echo '{\"status\": \"ok\"}' > \"" +
                              dir.File("pkg/evidence/resources.json") + "\"; exit 0");
    fs::create_directories(dir.File("pkg/evidence"));
    ASSERT_TRUE(
        WriteFileAtomically(dir.File("pkg/evidence/resources.json"), "{\"status\": \"fail\"}")
            .ok());
    auto r = RunShell("timeout 60 " + kAv + " numerics --sandbox " + sandbox + " --config " + toml);
    json ev = Evidence(dir);
    ASSERT_TRUE(ev.contains("containment")) << r.output;
    if (ev["containment"]["sandbox"] == "bwrap") {
      EXPECT_EQ(r.exit_code, 0) << r.output;
      EXPECT_EQ(*ReadFileToString(dir.File("pkg/evidence/resources.json")),
                "{\"status\": \"fail\"}");
      EXPECT_TRUE(ev["containment"]["package_changes"].empty());
      continue;
    }
    EXPECT_EQ(std::string(sandbox) == "bwrap", !ev["containment"]["warnings"].empty())
        << "a wanted sandbox that did not work must warn";
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(ev["containment"]["package_changes"],
              json::array({"evidence/resources.json changed"}));
    EXPECT_EQ(ev["cases"][0]["verdict"], "fail");
    EXPECT_NE(r.output.find("the candidate changed a package file: evidence/resources.json "
                            "changed"),
              std::string::npos)
        << r.output;
  }
}

// Regression (M5): SIGTERM or Ctrl-C (SIGINT to the process group, as a terminal sends it)
// on numerics left the candidate, and its setsid child, running with no timeout.
TEST(NumericsRegression, TermAndCtrlCOnNumericsKillTheCandidateAndItsSetsidChild) {
  for (int sig : {SIGTERM, SIGINT}) {
    TempDir dir;
    const std::string tag = sig == SIGTERM ? "987.6011" : "987.6012";
    const std::string toml = WritePackage(
        dir, "setsid sleep " + tag + "1 </dev/null >/dev/null 2>&1 &\nexec sleep " + tag + "2");
    pid_t av = Spawn({kAv, "numerics", "--config", toml}, dir.File("log"));
    ASSERT_TRUE(AppearsSoon("sleep " + tag + "2")) << ReadLog(dir.File("log"));
    ASSERT_TRUE(AppearsSoon("sleep " + tag + "1"));
    ::kill(sig == SIGINT ? -av : av, sig);
    EXPECT_EQ(WaitExit(av), 128 + sig) << ReadLog(dir.File("log"));
    EXPECT_TRUE(GoneSoon("sleep " + tag + "2")) << "the candidate outlived numerics";
    EXPECT_TRUE(GoneSoon("sleep " + tag + "1")) << "its setsid child outlived numerics";
  }
}

// Regression (M5): after kill -9 of `attnverify run` during numerics, the numerics stage
// and its candidate kept running and rewrote numerics.json seconds later.
TEST(RunRegression, KillNineOfRunLeavesNoStageOrCandidateRunning) {
  TempDir dir;
  const std::string toml = WritePackage(dir,
                                        "setsid sleep 987.60211 </dev/null >/dev/null 2>&1 &"
                                        "\nexec sleep 987.60212");
  pid_t run = Spawn({kAv, "run", "--config", toml}, dir.File("log"));
  ASSERT_TRUE(AppearsSoon("sleep 987.60212")) << ReadLog(dir.File("log"));
  ASSERT_TRUE(Running("numerics --config " + toml));
  ::kill(run, SIGKILL);
  EXPECT_EQ(WaitExit(run), 128 + SIGKILL);
  EXPECT_TRUE(GoneSoon("numerics --config " + toml)) << "the numerics stage outlived run";
  EXPECT_TRUE(GoneSoon("sleep 987.60212")) << "the candidate outlived run";
  EXPECT_TRUE(GoneSoon("sleep 987.60211")) << "the candidate's setsid child outlived run";
  EXPECT_FALSE(fs::exists(dir.File("pkg/evidence/numerics.json")));
}

// Regression (M8): concurrent numerics on one package emptied each other's out/ folders
// and failed a correct candidate. The second now exits 2 at once; the first is unharmed.
TEST(NumericsRegression, ASecondNumericsOnThePackageExitsTwoAndTheFirstPasses) {
  TempDir dir;
  const std::string toml = WritePackage(dir, "sleep 3");
  const std::string d = dir.path() + "/";
  auto r =
      RunShell("(timeout 60 " + kAv + " numerics --config " + toml + " > " + d +
               "first.out 2>&1; echo $? > " + d +
               "first.rc) & for i in $(seq 300); do grep -q "
               "'^pid' " +
               dir.File("pkg/.attnverify.lock") +
               " 2>/dev/null && break; sleep 0.1; done; timeout 60 " + kAv + " numerics --config " +
               toml + " > " + d + "second.out 2>&1; echo $? > " + d + "second.rc; wait");
  EXPECT_EQ(ReadLog(dir.File("second.rc")), "2\n") << ReadLog(dir.File("second.out"));
  EXPECT_NE(ReadLog(dir.File("second.out")).find("another attnverify (pid "), std::string::npos)
      << ReadLog(dir.File("second.out"));
  EXPECT_EQ(ReadLog(dir.File("first.rc")), "0\n") << ReadLog(dir.File("first.out"));
  json ev = Evidence(dir);
  ASSERT_TRUE(ev.contains("summary"));
  EXPECT_EQ(ev["summary"]["passed"], 1);
  EXPECT_EQ(ev["summary"]["failed"], 0);
}

// Regression (L8): `ulimit -f` killed numerics with SIGXFSZ (exit 153) and left
// evidence/numerics.json.tmp.*.
TEST(NumericsRegression, UlimitFIsAnIoErrorNamingTheFileWithNoTemporaryLeft) {
  TempDir dir;
  const std::string toml = WritePackage(dir, "exit 0");
  // dash counts ulimit -f in 512-byte blocks: 8 KiB holds the case files, not the evidence.
  auto r = RunShell("ulimit -f 16; timeout 60 " + kAv + " numerics --config " + toml);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("evidence/numerics.json: write failed: File too large"),
            std::string::npos)
      << r.output;
  for (const auto& e : fs::recursive_directory_iterator(dir.File("pkg"))) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
  }
}

// Regression (L5): with the disk full, prepare's failure failed every case and replaced
// the earlier numerics.json. Run in a user+mount namespace on a small tmpfs; skipped
// where unshare(1) cannot make one.
TEST(NumericsRegression, APrepareOnAFullDiskIsAnErrorAndKeepsTheEarlierEvidence) {
  TempDir dir;
  if (RunShell("unshare -Urm true").exit_code != 0) {
    GTEST_SKIP() << "unshare -Urm (user and mount namespaces) is not available here";
  }
  fs::create_directories(dir.File("full"));
  const std::string script = dir.File("l5.sh");
  ASSERT_TRUE(
      WriteFileAtomically(
          script,
          "set -e\nF=" + dir.File("full") +
              "\nmount -t tmpfs -o size=8m tmpfs \"$F\"\nmkdir -p \"$F/pkg/config\" "
              "\"$F/build\"\ncp " +
              dir.File("pkg/config/shapes.json") +
              " \"$F/pkg/config/\"\nsed 's|^timeout_s|prepare = [\"/bin/sh\", \"-c\", \"head -c "
              "2000000 /dev/zero > ../build/blob\"]\\ntimeout_s|' " +
              dir.File("pkg/attnverify.toml") + " > \"$F/pkg/attnverify.toml\"\n" + kAv +
              " numerics --sandbox none --config \"$F/pkg/attnverify.toml\" > " +
              dir.File("first.out") + " 2>&1\nsha256sum \"$F/pkg/evidence/numerics.json\" > " +
              dir.File("before.sha") +
              "\nrm -f \"$F/build/blob\"\nhead -c 100000000 /dev/zero > \"$F/fill\" 2>/dev/null "
              "|| true\ntruncate -s -256K \"$F/fill\"\nset +e\n" +
              kAv + " numerics --sandbox none --config \"$F/pkg/attnverify.toml\" > " +
              dir.File("second.out") + " 2>&1\necho $? > " + dir.File("second.rc") +
              "\nsha256sum \"$F/pkg/evidence/numerics.json\" > " + dir.File("after.sha") + "\n")
          .ok());
  WritePackage(dir, "exit 0");
  auto r = RunShell("timeout 120 unshare -Urm sh " + script);
  ASSERT_EQ(r.exit_code, 0) << r.output << ReadLog(dir.File("first.out"));
  EXPECT_EQ(ReadLog(dir.File("second.rc")), "2\n") << ReadLog(dir.File("second.out"));
  EXPECT_NE(ReadLog(dir.File("second.out")).find("candidate prepare failed for lack of disk space"),
            std::string::npos)
      << ReadLog(dir.File("second.out"));
  EXPECT_FALSE(ReadLog(dir.File("before.sha")).empty());
  EXPECT_EQ(ReadLog(dir.File("before.sha")), ReadLog(dir.File("after.sha")));
}

}  // namespace
}  // namespace av
