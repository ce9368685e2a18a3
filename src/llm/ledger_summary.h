// The token ledger summed per stage, kernel, model, key or run (the workflow's
// per-stage table: requests, input, output, total tokens, time, cost) with totals, and
// its three renderings (markdown, CSV, JSON). Every attempt counts once: its in_flight
// and outcome rows are folded into one (AttemptFolder), and a request_id a gateway
// repeats merges nothing. The file is streamed: memory is one entry per group, whatever
// the ledger's size. Summaries are plain values; writers never compute. Any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "llm/ledger.h"

namespace av {

enum class LedgerGroupBy { kStage, kKernel, kModel, kKey, kRun };

// "stage" -> kStage, ...; an error naming the choices otherwise.
Result<LedgerGroupBy> ParseLedgerGroupBy(const std::string& name);
std::string LedgerGroupByName(LedgerGroupBy by);

struct LedgerGroup {
  std::string key;       // the stage (or kernel, model, key id, run id); "" shown as "-"
  int64_t requests = 0;  // attempts
  int64_t failed = 0;    // of which had an error_type
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_creation_tokens = 0;
  int64_t total_tokens = 0;
  int64_t latency_ms = 0;
  double cost_usd = 0;
  int64_t unpriced = 0;              // rows without a cost
  std::vector<std::string> key_ids;  // distinct, in order seen
};

struct LedgerSummary {
  LedgerGroupBy by = LedgerGroupBy::kStage;
  std::vector<LedgerGroup> groups;  // in order of first appearance
  LedgerGroup totals;
  // Attempts with an in_flight row and no outcome row: the process died in flight (kill
  // -9). Counted as failed requests with the tokens unknown (0).
  int64_t without_outcome = 0;
  int64_t outside_window = 0;
  std::optional<int64_t> since, until;  // Unix seconds, inclusive
  std::vector<std::string> warnings;    // the ledger's
  int64_t warnings_left_out = 0;
};

// Sums attempts fed one at a time (after an AttemptFolder).
class LedgerSummarizer {
 public:
  LedgerSummarizer(LedgerGroupBy by, std::optional<int64_t> since, std::optional<int64_t> until);
  void Add(const LedgerRow& attempt);
  LedgerSummary Finish(std::vector<std::string> warnings, int64_t warnings_left_out = 0);

 private:
  LedgerSummary s_;
  std::map<std::string, size_t> index_;
};

LedgerSummary SummarizeLedger(const Ledger& ledger, LedgerGroupBy by,
                              std::optional<int64_t> since = std::nullopt,
                              std::optional<int64_t> until = std::nullopt);
// The same, streaming the file (ScanLedger's errors: NotFound, empty, not a ledger).
Result<LedgerSummary> SummarizeLedgerFile(const std::string& path, LedgerGroupBy by,
                                          std::optional<int64_t> since = std::nullopt,
                                          std::optional<int64_t> until = std::nullopt);

// The tokens already spent by `run_id`: total_tokens of every row of the run (in_flight
// rows carry none, so no folding is needed).
int64_t TokensSpentByRun(const Ledger& ledger, const std::string& run_id);

std::string RenderLedgerMarkdown(const LedgerSummary& summary);
std::string RenderLedgerCsv(const LedgerSummary& summary);
std::string RenderLedgerJson(const LedgerSummary& summary);

}  // namespace av
