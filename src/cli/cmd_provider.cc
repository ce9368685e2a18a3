// attnverify provider check: the workflow's minimal connectivity check against the
// pinned [provider] — one short request (max_tokens 64: "in one sentence, what does
// split-k do in FlashMLA?"), then endpoint, model, key id, latency, usage and the first
// line of the answer; each attempt in the ledger (an in_flight row before sending, its
// outcome row after) with stage "connectivity". Exit 0 when
// the provider answered, 2 with one clear line otherwise (doc/provider.md).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "cli/parse.h"
#include "llm/cassette.h"
#include "llm/curl_transport.h"
#include "llm/provider_client.h"
#include "llm/redact.h"

namespace av::cli {
namespace {

constexpr const char* kProviderHelp =
    "The pinned agent provider of attnverify.toml's [provider] table\n"
    "(doc/formats/attnverify-toml-provider.md). `provider check` sends one short request\n"
    "and prints endpoint, model, latency, usage and the answer's first line; the key comes\n"
    "only from the environment variable named by key_env and is never printed. Each attempt\n"
    "is a row of evidence/token_ledger.csv (stage connectivity); `attnverify ledger` sums it.";

constexpr const char* kCheckQuestion = "In one sentence, what does split-k do in FlashMLA?";

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// Errors are redacted once more with the whole environment before they are printed.
int Fail(const Status& status, const std::string& key_env) {
  RedactionContext ctx = RedactionContext::FromProcessEnvironment(key_env);
  return ReportError(Status(status.code(), RedactedText(status.message(), ctx)));
}

struct CheckOptions {
  std::string config_path = "attention-verify/attnverify.toml";
  std::string model = "default";
  std::string record_dir;
  std::string replay_dir;
  bool verbose = false;
};

int RunCheck(const CheckOptions& o) {
  if (!o.record_dir.empty() && !o.replay_dir.empty()) {
    return ReportError(InvalidInput("provider check: --record and --replay exclude each other"));
  }
  Result<ProviderConfig> config = LoadProviderConfig(o.config_path);
  if (!config.ok()) return Fail(config.status(), "");
  for (const std::string& w : config->warnings)
    std::fprintf(stderr, "attnverify: warning: %s\n", w.c_str());

  CurlHttpTransport curl;
  std::unique_ptr<HttpTransport> wrapper;
  HttpTransport* transport = &curl;
  RedactionContext record_ctx = RedactionContext::FromProcessEnvironment(config->key_env);
  if (!o.replay_dir.empty()) {
    wrapper = std::make_unique<ReplayTransport>(o.replay_dir);
    transport = wrapper.get();
  } else if (!o.record_dir.empty()) {
    wrapper = std::make_unique<RecordingTransport>(&curl, o.record_dir, &record_ctx);
    transport = wrapper.get();
  }
  ProviderClientOptions options;
  options.transport = transport;
  options.replay = !o.replay_dir.empty();
  if (o.verbose) {
    options.trace = [](std::string_view line) {
      std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
    };
  }
  ProviderClient client(*config, options);
  CompletionRequest request;
  request.stage = "connectivity";
  request.model = o.model;
  request.max_tokens = 64;
  request.messages.push_back({"user", kCheckQuestion});
  Result<CompletionResult> answer = client.Complete(request);
  if (!answer.ok()) return Fail(answer.status(), config->key_env);

  const CompletionResult& r = *answer;
  const Usage& u = r.response.usage;
  std::string ledger =
      std::filesystem::path(client.ledger_path()).lexically_relative(config->package_dir).string();
  std::printf("provider  %s (%s)\n", config->name.c_str(),
              std::string(WireApiName(config->api)).c_str());
  std::printf("endpoint  %s\n", r.endpoint.c_str());
  std::printf("model     %s\n", r.model.c_str());
  if (!r.key_id.empty()) {
    std::printf("key_id    %s (from $%s)\n", r.key_id.c_str(), config->key_env.c_str());
  }
  std::printf("latency   %lld ms (%d attempt%s)%s\n", static_cast<long long>(r.latency_ms),
              r.attempts, r.attempts == 1 ? "" : "s", r.replayed ? ", replayed" : "");
  std::printf("usage     input %lld, output %lld, cache read %lld, cache write %lld, total %lld\n",
              static_cast<long long>(u.input_tokens), static_cast<long long>(u.output_tokens),
              static_cast<long long>(u.cache_read_tokens),
              static_cast<long long>(u.cache_creation_tokens), static_cast<long long>(u.Total()));
  std::printf("answer    %s\n", FirstLine(r.response.text).c_str());
  if (r.redactions > 0)
    std::printf("redacted  %lld secret(s) in the prompt\n", static_cast<long long>(r.redactions));
  if (options.replay) {
    std::printf("ledger    not written (replayed from %s: nothing was sent)\n",
                o.replay_dir.c_str());
  } else {
    std::printf("ledger    %s (stage connectivity, run %s)\n", ledger.c_str(),
                client.run_id().c_str());
  }
  return kExitOk;
}

}  // namespace

int RunProvider(std::vector<std::string> args) {
  CLI::App app(kProviderHelp, "attnverify provider");
  app.require_subcommand(1);
  CheckOptions o;
  CLI::App* check = app.add_subcommand("check", "one short request: key, Base URL and model work");
  check->add_option("--config", o.config_path, "attnverify.toml holding [provider]")
      ->capture_default_str();
  check->add_option("--model", o.model, "a [provider] models alias or model name")
      ->capture_default_str();
  check->add_option("--record", o.record_dir, "store the exchange in this cassette folder");
  check->add_option("--replay", o.replay_dir,
                    "answer from this cassette folder; no network, no key, no ledger row");
  check->add_flag("--verbose", o.verbose, "trace the connection and headers (redacted) to stderr");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;
  return RunCheck(o);
}

}  // namespace av::cli
