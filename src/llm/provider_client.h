// ProviderClient: the one way attnverify asks the pinned provider anything. Each call
// checks the environment (fail closed), reads the key from key_env at that moment,
// redacts the prompt (or refuses it), refuses locally what the limits and the ledger's
// budget forbid, sends through an HttpTransport, retries by error type, and returns the
// normalised answer. Every attempt appends an in_flight ledger row before it is sent
// and its outcome row after (SIGINT/SIGTERM/SIGHUP stop the transfer and are recorded as
// `interrupted`, then take their course). Nothing it returns or writes holds a secret it
// knows of. One call at a time per object.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "llm/http_transport.h"
#include "llm/ledger.h"
#include "llm/provider_config.h"
#include "llm/retry.h"
#include "llm/wire_format.h"

namespace av {

struct CompletionRequest {
  std::string stage;        // the ledger's stage ("connectivity", "diff_review", ...)
  std::string kernel;       // "" when not about one kernel
  std::string report_file;  // package-relative report the answer goes to, or ""
  std::string model;        // an alias or a configured model name; "" = "default"
  std::string system;
  std::vector<ChatMessage> messages;
  int max_tokens = 1024;
};

struct CompletionResult {
  ChatResponse response;  // text redacted
  std::string model;      // the model name sent
  std::string endpoint;
  std::string key_id;  // "" when replayed without a key
  std::string request_id;
  std::string request_sha256;
  int attempts = 0;
  int64_t latency_ms = 0;  // of the attempt that answered
  int64_t redactions = 0;
  std::map<std::string, int64_t> redactions_by_rule;
  std::optional<double> cost_usd;
  bool replayed = false;
};

struct ProviderClientOptions {
  HttpTransport* transport = nullptr;  // required; not owned
  std::string ledger_path;             // "": {package}/evidence/token_ledger.csv
  std::string run_id;                  // "": $ATTNVERIFY_RUN_ID, else a fresh one
  // Replay from a cassette: no key is needed, and no ledger row is written (nothing is
  // sent, nothing is spent).
  bool replay = false;
  // Seams for tests; the defaults read environ, sleep, and draw from random_device.
  std::function<std::map<std::string, std::string>()> environment;
  std::function<void(int64_t ms)> sleep;
  std::function<double()> jitter;  // in [0, 1)
  // --verbose: each trace line, already redacted.
  std::function<void(std::string_view)> trace;
};

class ProviderClient {
 public:
  ProviderClient(const ProviderConfig& config, ProviderClientOptions options);

  // An error message is one line, redacted, naming the provider and what to do.
  Result<CompletionResult> Complete(const CompletionRequest& request);

  // The estimate Complete() holds against max_input_tokens_per_request, of this request as
  // it would be sent: the model resolved, secrets redacted, the system prompt and every
  // message wrapped in the wire format's JSON body. Callers that cut context to fit (the
  // agent's rounds) size against this, not against their text alone. Sends nothing.
  Result<int64_t> EstimateRequestTokens(const CompletionRequest& request) const;

  const std::string& run_id() const { return options_.run_id; }
  const std::string& ledger_path() const { return options_.ledger_path; }

 private:
  Status CheckBudget(int64_t estimate, int max_tokens);
  // The run's total_tokens in the ledger, reading only what was appended since the last
  // call (the file is append-only; a shorter file is read again from the start).
  Result<int64_t> TokensSpentSoFar();
  HttpRequest MakeHttpRequest(const std::string& body, const std::string& key) const;
  LedgerRow MakeRow(const CompletionRequest& request, const CompletionResult& result,
                    const HttpResponse& response, const RetryDecision& decision,
                    const Result<ChatResponse>& parsed, const std::string& timestamp,
                    int attempt) const;

  const ProviderConfig& config_;
  ProviderClientOptions options_;
  // The budget's place in the ledger: how far it was read, and the run's sum up to there.
  struct BudgetCursor {
    int64_t offset = 0;
    int64_t line = 1;
    int64_t spent = 0;
  } budget_;
  std::string ledger_run_id_;  // run_id as a ledger row reads back (CsvCell may change it)
};

// "20261201T093000Z-3f9a1c": UTC start time and 24 random bits.
std::string NewLedgerRunId();

// The local estimate that max_input_tokens_per_request is checked against before
// anything is sent: one token per 3 bytes of the request body, rounded up (tokenizers
// average 3.5-4 bytes a token on code and English, so this errs towards refusing).
int64_t EstimateInputTokens(std::string_view body);

// USD for `usage` at the model's [provider] prices; nullopt when it has none.
std::optional<double> CostUsd(const ProviderConfig& config, const std::string& model,
                              const Usage& usage);

}  // namespace av
