// End to end: the real attnverify binary runs `provider check` and `ledger` against the
// scripted test provider on loopback, with exit codes and messages; record and replay;
// and the canary scan: a full run with a canary key in the environment, after which no
// byte it wrote (files, stdout, stderr) holds the canary or its base64.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "llm/ledger.h"
#include "llm/provider_config.h"
#include "llm/provider_server_test_util.h"
#include "llm/redact.h"
#include "testing/scoped_env.h"

namespace av {
namespace {

using nlohmann::json;
using testing::Av;
using testing::ProviderServer;
using testing::ReadAll;
using testing::RunShell;
using testing::ScopedEnv;
using testing::TempDir;
using testing::WriteAll;

std::string ProviderToml(const std::string& url, const std::string& extra = "") {
  return "[provider]\nname = \"loopback\"\nbase_url = \"" + url +
         "\"\napi = \"anthropic-messages\"\nkey_env = \"TAOTOKEN_API_KEY\"\n"
         "models = { default = \"model-a\", review = \"model-b\" }\nmax_retries = 1\n"
         "timeout_s = 10\n"
         "prices = { \"model-a\" = { input = 3.0, output = 15.0 } }\n" +
         extra;
}

std::vector<std::string> FindNeedles(const std::string& root,
                                     const std::vector<std::string>& outputs,
                                     const std::vector<std::string>& needles);

class ProviderCliTest : public ::testing::Test {
 protected:
  bool Serve(const json& steps) {
    std::string error = server_.Start(json{{"steps", steps}}.dump());
    if (!error.empty()) skip_ = "the test provider could not start: " + error;
    return error.empty();
  }
  std::string Config() const { return "'" + dir_.File("pkg/attnverify.toml") + "'"; }
  std::string LedgerPath() const { return dir_.File("pkg/evidence/token_ledger.csv"); }

  TempDir dir_;
  ProviderServer server_;
  std::string skip_;
};

TEST_F(ProviderCliTest, CheckThenLedger) {
  if (!Serve(json::array({{{"reply", "anthropic"}}}))) GTEST_SKIP() << skip_;
  WriteAll(dir_.File("pkg/attnverify.toml"), ProviderToml(server_.Url()));
  ScopedEnv key("TAOTOKEN_API_KEY", std::string("cli-") + "fake-key-" + "77aa");
  auto r = RunShell(Av("provider check --config " + Config()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const std::string& want :
       {"endpoint  " + server_.Url() + "/v1/messages", std::string("model     model-a"),
        std::string("key_id    ") + KeyId(std::string("cli-") + "fake-key-" + "77aa"),
        std::string("usage     input 21, output 17, cache read 0, cache write 0, total 38"),
        std::string("answer    Split-k splits the key sequence"),
        std::string("ledger    evidence/token_ledger.csv (stage connectivity"),
        std::string("warning: ")}) {
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  }
  std::vector<json> got = server_.Requests();
  ASSERT_EQ(got.size(), 1u);
  json body = json::parse(got[0]["body"].get<std::string>());
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["messages"][0]["content"], "In one sentence, what does split-k do in FlashMLA?");

  Result<Ledger> ledger = ReadLedger(LedgerPath());
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  ASSERT_EQ(ledger->rows.size(), 1u);
  EXPECT_EQ(ledger->rows[0].stage, "connectivity");
  EXPECT_EQ(ledger->rows[0].total_tokens, 38);

  auto md = RunShell(Av("ledger --config " + Config()));
  ASSERT_EQ(md.exit_code, 0) << md.output;
  EXPECT_NE(md.output.find("| connectivity | 1 | 21 | 17 | 0 | 0 | 38 |"), std::string::npos)
      << md.output;
  EXPECT_NE(md.output.find("| **total** | 1 | 21 | 17 |"), std::string::npos) << md.output;
  auto js = RunShell(Av("ledger --config " + Config() + " --by model --format json"));
  ASSERT_EQ(js.exit_code, 0) << js.output;
  json j = json::parse(js.output);
  EXPECT_EQ(j["groups"][0]["key"], "model-a");
  EXPECT_NEAR(j["totals"]["cost_usd"].get<double>(), (21 * 3.0 + 17 * 15.0) / 1e6, 1e-12);
  auto csv = RunShell(Av("ledger --config " + Config() + " --format csv --since 2000-01-01"));
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_NE(csv.output.find("connectivity,1,0,21,17,0,0,38,"), std::string::npos) << csv.output;
  auto none = RunShell(Av("ledger --config " + Config() + " --until 2000-01-01 --format csv"));
  EXPECT_NE(none.output.find("total,0,0,0,0,0,0,0,0,"), std::string::npos) << none.output;
}

TEST_F(ProviderCliTest, FailuresExitTwoWithOneLine) {
  if (!Serve(json::array(
          {{{"status", 401},
            {"body",
             {{"type", "error"},
              {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key"}}}}}}})))
    GTEST_SKIP() << skip_;
  WriteAll(dir_.File("pkg/attnverify.toml"), ProviderToml(server_.Url()));
  {  // no key in the environment: nothing is sent
    auto r = RunShell("env -u TAOTOKEN_API_KEY " + Av("provider check --config " + Config()));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("TAOTOKEN_API_KEY named by [provider] key_env"), std::string::npos)
        << r.output;
    EXPECT_TRUE(server_.Requests().empty());
  }
  ScopedEnv key("TAOTOKEN_API_KEY", std::string("cli-") + "refused-key-" + "0042");
  {  // another Base URL in the environment: nothing is sent
    auto r = RunShell("ANTHROPIC_BASE_URL=https://api.anthropic.com '" +
                      std::string(ATTNVERIFY_BINARY) + "' provider check --config " + Config());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("ANTHROPIC_BASE_URL is set"), std::string::npos) << r.output;
    EXPECT_TRUE(server_.Requests().empty());
  }
  {  // the key refused
    auto r = RunShell(Av("provider check --config " + Config()));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("attnverify: provider loopback: the provider refused the key: HTTP "
                            "401 (authentication_error: invalid x-api-key)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("refused-key"), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;  // + warning
    EXPECT_EQ(server_.Requests().size(), 1u);
  }
  {  // a Base URL with UTM parameters never gets as far as the network
    WriteAll(dir_.File("pkg/attnverify.toml"),
             ProviderToml(server_.Url() + "/api?utm_source=guide"));
    auto r = RunShell(Av("provider check --config " + Config()));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("attnverify.toml:3:12: \"base_url\" has a query string"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(server_.Requests().size(), 1u);
  }
  {  // unknown subcommand, no ledger
    EXPECT_EQ(RunShell(Av("provider ping")).exit_code, 2);
    auto r = RunShell(Av("ledger --config '" + dir_.File("empty/attnverify.toml") + "'"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("no token ledger yet"), std::string::npos) << r.output;
  }
}

// Each scripted failure through the real binary: exit 2, one line saying what went
// wrong, as many requests at the server and rows in the ledger as the retry table says.
TEST_F(ProviderCliTest, EveryFailureClassExitsTwoWithItsRows) {
  const json overloaded = {
      {"status", 529},
      {"body",
       {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}}};
  struct Case {
    json steps;
    int requests;  // reaching the server (= ledger rows; max_retries = 1)
    const char* says;
  } cases[] = {
      {json::array({overloaded}), 2, "HTTP 529 (overloaded_error: Overloaded) (gave up after 2"},
      {json::array({{{"status", 429}, {"body", "cap"}}}), 1, "without retry-after"},
      {json::array({{{"status", 413}, {"body", ""}}}), 1, "HTTP 413"},
      {json::array({{{"status", 302},
                     {"headers", {{"location", "https://elsewhere.example/"}}},
                     {"body", ""}}}),
       1, "redirect to host elsewhere.example"},
      {json::array({{{"status", 200}, {"body", "{\"content\": "}}}), 1, "malformed body"},
      {json::array({{{"status", 200}, {"body_size", 20'000'000}}}), 1, "8 MiB cap"},
      {json::array({{{"reset", true}}}), 2, "connection"},
  };
  ScopedEnv key("TAOTOKEN_API_KEY", std::string("cli-") + "matrix-key-" + "0003");
  for (const Case& c : cases) {
    ProviderServer server;
    std::string error = server.Start(json{{"steps", c.steps}}.dump());
    if (!error.empty()) GTEST_SKIP() << error;
    TempDir pkg;
    WriteAll(pkg.File("attnverify.toml"), ProviderToml(server.Url()));
    auto r = RunShell(Av("provider check --config '" + pkg.File("attnverify.toml") + "'"));
    EXPECT_EQ(r.exit_code, 2) << c.steps.dump() << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;  // + warning
    EXPECT_EQ(server.Requests().size(), static_cast<size_t>(c.requests)) << c.steps.dump();
    Result<Ledger> ledger = ReadLedger(pkg.File("evidence/token_ledger.csv"));
    ASSERT_TRUE(ledger.ok()) << ledger.status().message();
    EXPECT_EQ(ledger->rows.size(), static_cast<size_t>(c.requests)) << c.steps.dump();
  }
}

TEST_F(ProviderCliTest, RecordThenReplayWithoutNetworkOrKey) {
  if (!Serve(json::array({{{"reply", "anthropic"}, {"text", "Recorded answer."}}})))
    GTEST_SKIP() << skip_;
  WriteAll(dir_.File("pkg/attnverify.toml"), ProviderToml(server_.Url()));
  const std::string cassette = dir_.File("cassette");
  {
    ScopedEnv key("TAOTOKEN_API_KEY", std::string("cli-") + "record-key-" + "0001");
    auto r = RunShell(Av("provider check --config " + Config() + " --record '" + cassette + "'"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  ASSERT_EQ(std::distance(std::filesystem::directory_iterator(cassette),
                          std::filesystem::directory_iterator()),
            1);
  server_.Stop();
  auto replay = RunShell("env -u TAOTOKEN_API_KEY " + Av("provider check --config " + Config() +
                                                         " --replay '" + cassette + "'"));
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("answer    Recorded answer."), std::string::npos) << replay.output;
  EXPECT_NE(replay.output.find("replayed"), std::string::npos);
  Result<Ledger> ledger = ReadLedger(LedgerPath());
  ASSERT_TRUE(ledger.ok());
  EXPECT_EQ(ledger->rows.size(), 1u);  // the replay wrote none
  auto miss = RunShell(
      Av("provider check --config " + Config() + " --model review --replay '" + cassette + "'"));
  EXPECT_EQ(miss.exit_code, 2) << miss.output;
  EXPECT_NE(miss.output.find("is not in cassette"), std::string::npos) << miss.output;
}

// N7: the row was appended after the attempt, so SIGTERM (exit 143), SIGHUP (129) and
// SIGKILL while a request was in flight left no row although the request, with the key,
// had reached the provider (kill -9 in flight x20: 20 requests, 0 rows). Now each of
// SIGINT, SIGTERM and SIGHUP stops the transfer, writes an `interrupted` row and kills
// the process with the same signal; SIGKILL leaves the in_flight row written before
// sending. Real processes against the loopback provider, which holds every answer 30 s.
TEST_F(ProviderCliTest, AnAttemptEndedByASignalLeavesItsRow) {
  if (!Serve(json::array({{{"reply", "anthropic"}, {"delay_s", 30}}}))) GTEST_SKIP() << skip_;
  // max_retries 1 and timeout_s 10 (ProviderToml): without the signal no row for 10 s.
  WriteAll(dir_.File("pkg/attnverify.toml"), ProviderToml(server_.Url()));
  const std::string key = std::string("sig-") + "fake-key-" + "0b1c2d3e4f";
  ScopedEnv env_key("TAOTOKEN_API_KEY", key);
  const std::string config = dir_.File("pkg/attnverify.toml");
  std::vector<std::string> outputs;
  const int signals[] = {SIGTERM, SIGHUP, SIGINT, SIGKILL};
  for (size_t i = 0; i < std::size(signals); ++i) {
    const int sig = signals[i];
    const std::string out = dir_.File("out" + std::to_string(i) + ".txt");
    std::vector<std::string> args = {"env", "-u", "ANTHROPIC_BASE_URL", "-u", "OPENAI_BASE_URL",
                                     "-u", "SSLKEYLOGFILE", testing::AttnverifyBinaryPath(),
                                     "provider", "check", "--config", config};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&files, 1, 2);
    // The signals at their defaults, whatever this test inherited (a background job
    // starts with SIGINT ignored, and attnverify keeps an ignored signal ignored).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawnp(&pid, argv[0], &files, &attr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    // Wait until the request is at the provider: then it is in flight.
    for (int t = 0; t < 400 && server_.Requests().size() < i + 1; ++t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ASSERT_EQ(server_.Requests().size(), i + 1) << "the request never reached the provider";
    ::kill(pid, sig);
    int status = 0;
    pid_t done = 0;
    for (int t = 0; t < 400 && done == 0; ++t) {
      done = ::waitpid(pid, &status, WNOHANG);
      if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (done == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "signal " << sig << " did not end the request within 10 s";
    }
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
        << "signal " << sig << ": status " << status << "\n" << ReadAll(out);
    outputs.push_back(ReadAll(out));
  }
  // One attempt per request sent: three interrupted, and the killed one's in_flight row.
  Result<Ledger> ledger = ReadLedger(LedgerPath());
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  ASSERT_EQ(ledger->rows.size(), server_.Requests().size());
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(ledger->rows[i].error_type, kLedgerInterrupted) << i;
  EXPECT_EQ(ledger->rows[3].error_type, kLedgerInFlight);
  EXPECT_EQ(ledger->without_outcome, 1);
  auto js = RunShell(Av("ledger --config " + Config() + " --format json"));
  ASSERT_EQ(js.exit_code, 0) << js.output;
  outputs.push_back(js.output);
  json j = json::parse(js.output);
  EXPECT_EQ(j["totals"]["requests"], 4);
  EXPECT_EQ(j["totals"]["failed"], 4);
  EXPECT_EQ(j["attempts_without_outcome"], 1);
  // Nothing the runs wrote holds the key.
  std::vector<std::string> needles = {key, Base64Encode(key, false, false),
                                      Base64Encode(key, true, false)};
  std::vector<std::string> hits = FindNeedles(dir_.path(), outputs, needles);
  EXPECT_TRUE(hits.empty()) << hits.size() << " hits, first: " << hits[0];
}

// Every file under `root` and every captured output, searched for each needle.
std::vector<std::string> FindNeedles(const std::string& root,
                                     const std::vector<std::string>& outputs,
                                     const std::vector<std::string>& needles) {
  std::vector<std::string> hits;
  auto scan = [&](const std::string& what, const std::string& bytes) {
    for (const std::string& n : needles) {
      if (bytes.find(n) != std::string::npos) hits.push_back(what + " holds \"" + n + "\"");
    }
  };
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) scan(e.path().string(), ReadAll(e.path().string()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) scan("output " + std::to_string(i), outputs[i]);
  return hits;
}

TEST_F(ProviderCliTest, CanaryKeyNeverLandsInAnythingARunWrote) {
  // Shaped like a real Anthropic key, assembled here so no scanner flags the repository.
  const std::string canary = std::string("sk-ant-") + "api03-" + std::string(20, 'C') + "anary" +
                             std::string(68, 'Q') + "AA";
  const std::string other = std::string("gh-") + "canary-" + "token-0987654321";
  // The "provider" echoes both in its answers, as a misbehaving gateway might.
  if (!Serve(json::array(
          {{{"reply", "anthropic"}, {"text", "Echo " + canary + " and " + other}},
           {{"status", 401},
            {"body",
             {{"error", {{"type", "authentication_error"}, {"message", "bad " + canary}}}}}},
           {{"reply", "anthropic"}, {"text", "ok"}}})))
    GTEST_SKIP() << skip_;

  // A package from the demo, with [provider] added, run end to end.
  const std::string ex = testing::SourceDir() + "/examples/splitk_decode";
  const std::string repo = dir_.File("repo");
  const std::string git =
      "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "
      "-c core.hooksPath=/dev/null";
  ASSERT_EQ(RunShell("cp -r '" + ex + "/repo' '" + repo + "'").exit_code, 0);
  // One small case of the demo's sweep: the scan is about what the run writes, and a
  // shorter sweep writes the same kinds of files.
  const std::string shapes = repo + "/attention-verify/config/shapes.json";
  json sweep = json::parse(ReadAll(shapes));
  json first = sweep["sweeps"][0];
  first["grid"] = {{"s_q", {1}}, {"s_k", {64}}, {"h_q", {16}}};
  sweep["sweeps"] = json::array({first});
  WriteAll(shapes, sweep.dump(2));
  auto setup = RunShell("cd '" + repo + "' && " + git + " init -q -b main && " + git +
                        " add -A && " + git + " commit -qm before && " + git + " apply '" + ex +
                        "/refactor.patch' && " + git + " commit -qam refactor");
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  const std::string toml = repo + "/attention-verify/attnverify.toml";
  WriteAll(toml, ReadAll(toml) + "\n" + ProviderToml(server_.Url()));
  const std::string config = "--config attention-verify/attnverify.toml";
  const std::string cassette = dir_.File("repo/attention-verify/cassette");

  ScopedEnv key("TAOTOKEN_API_KEY", canary);
  ScopedEnv token("GITHUB_TOKEN", other);
  std::vector<std::string> outputs;
  auto run = [&](const std::string& args) {
    auto r = RunShell("cd '" + repo + "' && " + Av(args));
    outputs.push_back(r.output);
    return r;
  };
  auto full = run("run " + config + " --base HEAD~1");
  EXPECT_TRUE(full.exit_code == 0 || full.exit_code == 1) << full.output;
  EXPECT_EQ(run("provider check " + config + " --verbose --record '" + cassette + "'").exit_code, 0)
      << outputs.back();
  EXPECT_NE(outputs.back().find("[REDACTED:"), std::string::npos) << outputs.back();
  EXPECT_NE(outputs.back().find("> x-api-key: [REDACTED:auth_header]"), std::string::npos)
      << outputs.back();
  EXPECT_EQ(run("provider check " + config + " --model review").exit_code, 2) << outputs.back();
  EXPECT_EQ(run("provider check " + config + " --replay '" + cassette + "'").exit_code, 0)
      << outputs.back();
  for (const char* f : {"md", "csv", "json"}) {
    EXPECT_EQ(run(std::string("ledger ") + config + " --format " + f).exit_code, 0);
  }
  Result<Ledger> ledger = ReadLedger(repo + "/attention-verify/evidence/token_ledger.csv");
  ASSERT_TRUE(ledger.ok());
  EXPECT_EQ(ledger->rows.size(), 2u);
  EXPECT_EQ(server_.Requests().size(), 2u);

  std::vector<std::string> needles;
  for (const std::string& secret : {canary, other}) {
    needles.push_back(secret);
    for (bool url : {false, true}) {
      needles.push_back(Base64Encode(secret, url, false));
      for (const std::string& prefix : {std::string("x"), std::string("xy")}) {
        // What base64 of the secret looks like inside a longer encoded text.
        std::string enc = Base64Encode(prefix + secret, url, false);
        needles.push_back(enc.substr(4, enc.size() - 8));
      }
    }
  }
  std::vector<std::string> hits = FindNeedles(dir_.path(), outputs, needles);
  EXPECT_TRUE(hits.empty()) << hits.size() << " hits, first: " << hits[0];
  // The server saw the key in its header and nowhere else; never the other secret.
  std::string log = server_.RawLog();
  for (const json& req : server_.Requests()) {
    EXPECT_EQ(req["body"].get<std::string>().find(canary), std::string::npos);
  }
  EXPECT_EQ(log.find(other), std::string::npos);
}

}  // namespace
}  // namespace av
