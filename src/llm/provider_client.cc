#include "llm/provider_client.h"

#include <openssl/crypto.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <ctime>
#include <filesystem>
#include <random>
#include <thread>

#include "llm/cassette.h"
#include "llm/ledger.h"
#include "llm/ledger_summary.h"
#include "llm/redact.h"
#include "llm/retry.h"
#include "llm/termination_signals.h"

namespace av {
namespace {

// Overwrites the strings that held the key when the request is over.
struct Cleanser {
  std::vector<std::string*> strings;
  ~Cleanser() {
    for (std::string* s : strings) OPENSSL_cleanse(s->data(), s->size());
  }
};

int64_t NowUnix() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RuleList(const std::map<std::string, int64_t>& by_rule) {
  std::string out;
  for (const auto& [rule, n] : by_rule) {
    out += (out.empty() ? "" : ", ") + rule + " x" + std::to_string(n);
  }
  return out;
}

// The request with its prompt redacted; counts added to `result`.
ChatRequest RedactPrompt(const CompletionRequest& in, const std::string& model,
                         const RedactionContext& ctx, CompletionResult* result) {
  ChatRequest chat;
  chat.model = model;
  chat.max_tokens = in.max_tokens;
  auto scrub = [&](const std::string& text) {
    RedactionResult r = RedactSecrets(text, ctx);
    result->redactions += r.count;
    for (const auto& [rule, n] : r.by_rule) result->redactions_by_rule[rule] += n;
    return std::move(r.text);
  };
  chat.system = scrub(in.system);
  for (const ChatMessage& m : in.messages) chat.messages.push_back({m.role, scrub(m.content)});
  return chat;
}

// Why the exchange failed, in one line (redacted by the caller).
std::string DescribeFailure(const ProviderConfig& config, const HttpResponse& response,
                            const RetryDecision& decision, const std::string& parse_error,
                            int attempt, const std::string& key_id) {
  const std::string attempts =
      attempt > 1 ? " (gave up after " + std::to_string(attempt) + " attempts)" : "";
  switch (response.error) {
    case TransportError::kNone:
      break;
    case TransportError::kTimeout:
      return "no answer within timeout_s = " + std::to_string(config.timeout_s) + " s" + attempts;
    case TransportError::kTls:
      return "TLS verification failed: " + response.error_message +
             "; for a private CA set [provider] ca_bundle";
    case TransportError::kPinMismatch:
      return "the server's public key does not match [provider] pinned_public_key: " +
             response.error_message;
    default:
      return std::string(TransportErrorName(response.error)) + ": " + response.error_message +
             attempts;
  }
  const int s = response.status;
  const std::string detail = DescribeErrorBody(response.body);
  const std::string http =
      "HTTP " + std::to_string(s) + (detail.empty() ? "" : " (" + detail + ")");
  if (decision.success)
    return "HTTP " + std::to_string(s) + " with a malformed body: " + parse_error;
  if (s >= 300 && s < 400) {
    std::string host = UrlHost(response.Header("location"));
    return "HTTP " + std::to_string(s) + " redirect to " +
           (host.empty() ? std::string("an unnamed host") : "host " + host) +
           "; redirects are never followed: check [provider] base_url (" + config.base_url_where +
           ")";
  }
  if (s == 401) {
    return "the provider refused the key: " + http + "; key_id " + key_id + " from $" +
           config.key_env + " (check that variable; the key itself is never printed)";
  }
  if (s == 403) return http + ": the key is not allowed to do this (model, region or quota?)";
  if (s == 413) return http + ": the request is too large for the provider; send a smaller slice";
  if (s == 429 && !decision.retry && decision.error_type == "quota_exceeded") {
    return http + " without retry-after: a spend or quota cap, and retrying would only fail again";
  }
  return http + attempts;
}

}  // namespace

std::string NewLedgerRunId() {
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%06x", static_cast<unsigned>(rd() & 0xffffff));
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return std::string(stamp) + "-" + suffix;
}

int64_t EstimateInputTokens(std::string_view body) {
  return static_cast<int64_t>((body.size() + 2) / 3);
}

std::optional<double> CostUsd(const ProviderConfig& config, const std::string& model,
                              const Usage& usage) {
  auto it = config.prices.find(model);
  if (it == config.prices.end()) return std::nullopt;
  const ModelPrice& p = it->second;
  return (usage.input_tokens * p.input + usage.output_tokens * p.output +
          usage.cache_read_tokens * p.cache_read + usage.cache_creation_tokens * p.cache_write) /
         1e6;
}

ProviderClient::ProviderClient(const ProviderConfig& config, ProviderClientOptions options)
    : config_(config), options_(std::move(options)) {
  if (options_.ledger_path.empty()) {
    options_.ledger_path =
        (std::filesystem::path(config_.package_dir) / "evidence" / "token_ledger.csv").string();
  }
  if (options_.run_id.empty()) {
    const char* env = std::getenv("ATTNVERIFY_RUN_ID");
    options_.run_id = env != nullptr && *env != '\0' ? env : NewLedgerRunId();
  }
  if (!options_.environment) options_.environment = [] { return ProcessEnvironment(); };
  if (!options_.sleep) {
    options_.sleep = [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  }
  if (!options_.jitter) {
    options_.jitter = [] {
      static thread_local std::mt19937_64 rng{std::random_device{}()};
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    };
  }
  // The budget matches rows by run_id as the ledger holds it (a run id starting with '='
  // is written as "'=..."); a round trip through the writer and the reader gives it.
  LedgerRow probe;
  probe.timestamp = "2026-01-01T00:00:00Z";
  probe.run_id = options_.run_id;
  Result<Ledger> back =
      ParseLedger(LedgerHeaderLine() + FormatLedgerLine(probe, RedactionContext()), "probe");
  ledger_run_id_ = back.ok() && back->rows.size() == 1 ? back->rows[0].run_id : options_.run_id;
}

Result<int64_t> ProviderClient::TokensSpentSoFar() {
  std::error_code ec;
  const auto size = std::filesystem::file_size(options_.ledger_path, ec);
  // No ledger yet, or one created by another process that has not written its header:
  // nothing is spent in it.
  if (ec || size == 0) {
    if (ec && std::filesystem::exists(options_.ledger_path)) {
      return InvalidInput(options_.ledger_path + ": " + ec.message());
    }
    budget_ = BudgetCursor{};
    return int64_t{0};
  }
  LedgerScanOptions scan;
  scan.from_offset = budget_.offset;
  scan.from_line = budget_.line;
  scan.must_contain = ledger_run_id_;
  scan.max_warnings = 0;
  int64_t added = 0;
  AV_ASSIGN_OR_RETURN(LedgerScanEnd end,
                      ScanLedger(options_.ledger_path, scan, [&](const LedgerRow& row, int64_t) {
                        if (row.run_id == ledger_run_id_) added += row.total_tokens;
                      }));
  if (end.from_start) budget_.spent = 0;
  budget_.spent += added;
  budget_.offset = end.offset;
  budget_.line = end.line;
  return budget_.spent;
}

Status ProviderClient::CheckBudget(int64_t estimate, int max_tokens) {
  Result<int64_t> spent_so_far = TokensSpentSoFar();
  if (!spent_so_far.ok()) {
    return InvalidInput("cannot enforce the token budget: " + spent_so_far.status().message());
  }
  const int64_t spent = *spent_so_far;
  if (spent + estimate + max_tokens > config_.max_total_tokens_per_run) {
    return InvalidInput("run " + options_.run_id + " has spent " + std::to_string(spent) +
                        " tokens; this request (about " + std::to_string(estimate) + " in, up to " +
                        std::to_string(max_tokens) +
                        " out) would pass [provider] max_total_tokens_per_run = " +
                        std::to_string(config_.max_total_tokens_per_run) + "; nothing was sent");
  }
  return Status::Ok();
}

HttpRequest ProviderClient::MakeHttpRequest(const std::string& body, const std::string& key) const {
  HttpRequest http;
  http.headers.emplace_back("content-type", "application/json");
  if (config_.api == WireApi::kAnthropicMessages) {
    http.headers.emplace_back("anthropic-version", "2023-06-01");
  }
  if (!options_.replay) {
    if (config_.bearer_auth) {
      http.headers.emplace_back("authorization", "Bearer " + key);
    } else {
      http.headers.emplace_back("x-api-key", key);
    }
  }
  http.url = config_.Endpoint();
  http.body = body;
  http.timeout_ms = config_.timeout_s * 1000;
  http.ca_bundle = config_.ca_bundle;
  http.pinned_public_key = config_.pinned_public_key;
  http.proxy = config_.proxy;
  http.allow_loopback_http = config_.base_url.scheme == "http" && config_.base_url.loopback;
  return http;
}

Result<int64_t> ProviderClient::EstimateRequestTokens(const CompletionRequest& request) const {
  std::map<std::string, std::string> env = options_.environment();
  Cleanser cleanser;
  for (auto& [name, value] : env) cleanser.strings.push_back(&value);
  const RedactionContext ctx = RedactionContext::FromEnvironment(env, config_.key_env);
  Result<std::string> model =
      config_.ResolveModel(request.model.empty() ? "default" : request.model);
  if (!model.ok()) return InvalidInput("provider " + config_.name + ": " + model.status().message());
  CompletionResult scratch;
  return EstimateInputTokens(BuildRequestBody(config_.api, RedactPrompt(request, *model, ctx, &scratch)));
}

Result<CompletionResult> ProviderClient::Complete(const CompletionRequest& request) {
  std::map<std::string, std::string> env = options_.environment();
  std::string key;
  Cleanser cleanser;  // declared after env and key: runs before they are destroyed
  cleanser.strings.push_back(&key);
  for (auto& [name, value] : env) cleanser.strings.push_back(&value);
  AV_RETURN_IF_ERROR(CheckProviderEnvironment(config_, env, !options_.replay)
                         .WithContext("provider " + config_.name));
  auto key_it = env.find(config_.key_env);
  if (key_it != env.end()) key = key_it->second;
  const RedactionContext ctx = RedactionContext::FromEnvironment(env, config_.key_env);
  const std::string prefix = "provider " + config_.name + ": ";
  auto fail = [&](const std::string& message) {
    return InvalidInput(RedactedText(prefix + message, ctx));
  };

  CompletionResult result;
  result.endpoint = config_.Endpoint();
  result.key_id = key.empty() ? "" : KeyId(key);
  Result<std::string> model =
      config_.ResolveModel(request.model.empty() ? "default" : request.model);
  if (!model.ok()) return fail(model.status().message());
  result.model = *model;
  ChatRequest chat = RedactPrompt(request, result.model, ctx, &result);
  if (result.redactions > 0 && config_.refuse_on_secret) {
    return fail("refused to send: the prompt holds " + std::to_string(result.redactions) +
                " secret(s) (" + RuleList(result.redactions_by_rule) +
                ") and [provider] on_secret = \"refuse\"; nothing was sent");
  }
  const std::string body = BuildRequestBody(config_.api, chat);
  result.request_sha256 = CassetteKey(body);
  const int64_t estimate = EstimateInputTokens(body);
  if (estimate > config_.max_input_tokens_per_request) {
    return fail("the request is about " + std::to_string(estimate) +
                " input tokens (one per 3 bytes), over [provider] max_input_tokens_per_request = " +
                std::to_string(config_.max_input_tokens_per_request) +
                "; nothing was sent (send a smaller slice)");
  }
  HttpRequest http = MakeHttpRequest(body, key);
  Cleanser header_cleanser;  // declared after http
  for (auto& [name, value] : http.headers) header_cleanser.strings.push_back(&value);
  if (options_.trace) {
    http.trace = [&](std::string_view line) { options_.trace(RedactedText(line, ctx)); };
  }

  RetryPolicy policy;
  policy.max_retries = config_.max_retries;
  for (int attempt = 1;; ++attempt) {
    if (!options_.replay) {
      Status budget = CheckBudget(estimate, request.max_tokens);
      if (!budget.ok()) return fail(budget.message());
    }
    const std::string timestamp = FormatRfc3339Utc(NowUnix());
    // From here to the outcome row, a termination signal stops the transfer and is
    // raised again once the row is written (when `signals` ends, on every path out).
    std::optional<ScopedTerminationSignals> signals;
    HttpResponse response;
    if (!options_.replay) {
      signals.emplace();
      // Before anything is sent: an attempt killed in flight (kill -9) keeps this row.
      LedgerRow in_flight = MakeRow(request, result, HttpResponse{}, RetryDecision{},
                                    InvalidInput("no answer yet"), timestamp, attempt);
      in_flight.error_type = kLedgerInFlight;
      Status st = AppendLedgerRow(options_.ledger_path, in_flight, ctx);
      if (!st.ok()) return fail(st.message() + "; nothing was sent");
    }
    if (int sig = PendingTerminationSignal(); sig != 0) {
      response.error = TransportError::kInterrupted;
      response.error_message = "stopped by signal " + std::to_string(sig) + " before sending";
    } else {
      response = options_.transport->Post(http);
    }
    RetryDecision decision = DecideRetry(response, attempt, policy, options_.jitter(), NowUnix());
    Result<ChatResponse> parsed = InvalidInput("no answer");
    if (decision.success) {
      parsed = ParseResponseBody(config_.api, response.body);
      if (!parsed.ok()) decision.error_type = "malformed_response";
    }
    LedgerRow row = MakeRow(request, result, response, decision, parsed, timestamp, attempt);
    if (!options_.replay) {
      Status st = AppendLedgerRow(options_.ledger_path, row, ctx);
      if (!st.ok()) return fail(st.message());
    }
    result.attempts = attempt;
    if (parsed.ok()) {
      result.response = std::move(parsed).value();
      result.response.text = RedactedText(result.response.text, ctx);
      result.request_id = row.request_id;
      result.latency_ms = response.latency_ms;
      result.cost_usd = row.cost_usd;
      result.replayed = response.replayed;
      return result;
    }
    if (!decision.retry) {
      return fail(DescribeFailure(config_, response, decision,
                                  decision.success ? parsed.status().message() : "", attempt,
                                  result.key_id));
    }
    if (options_.trace) {
      options_.trace("* attempt " + std::to_string(attempt) + ": " + decision.error_type +
                     "; retrying in " + std::to_string(decision.delay_ms) + " ms");
    }
    options_.sleep(decision.delay_ms);
  }
}

LedgerRow ProviderClient::MakeRow(const CompletionRequest& request, const CompletionResult& result,
                                  const HttpResponse& response, const RetryDecision& decision,
                                  const Result<ChatResponse>& parsed, const std::string& timestamp,
                                  int attempt) const {
  LedgerRow row;
  row.timestamp = timestamp;
  row.stage = request.stage;
  row.kernel = request.kernel;
  row.model = result.model;
  row.report_file = request.report_file;
  row.run_id = options_.run_id;
  row.request_id = response.Header("request-id");
  if (row.request_id.empty()) row.request_id = response.Header("x-request-id");
  if (row.request_id.empty() && parsed.ok()) row.request_id = parsed->id;
  row.provider = config_.name;
  row.endpoint = result.endpoint;
  row.key_id = result.key_id;
  row.attempt = attempt;
  row.http_status = response.error == TransportError::kNone ? response.status : 0;
  row.error_type = decision.error_type;
  row.latency_ms = response.latency_ms;
  row.redactions = result.redactions;
  row.request_sha256 = result.request_sha256;
  if (parsed.ok()) {
    const Usage& u = parsed->usage;
    row.input_tokens = u.input_tokens;
    row.output_tokens = u.output_tokens;
    row.cache_read_tokens = u.cache_read_tokens;
    row.cache_creation_tokens = u.cache_creation_tokens;
    row.total_tokens = u.Total();
    row.cost_usd = CostUsd(config_, result.model, u);
  }
  return row;
}

}  // namespace av
