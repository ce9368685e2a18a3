// The token ledger summed per stage, kernel, model, key or run (the workflow's
// per-stage table: requests, input, output, total tokens, time, cost) with totals, and
// its three renderings (markdown, CSV, JSON). Rows that share a request_id are counted
// once. Summaries are plain values; writers never compute. Any thread.
#pragma once

#include <cstdint>
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
  int64_t requests = 0;  // rows (attempts), duplicates not counted
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
  int64_t duplicates = 0;  // rows skipped for a repeated request_id
  int64_t outside_window = 0;
  std::optional<int64_t> since, until;  // Unix seconds, inclusive
  std::vector<std::string> warnings;    // the ledger's
};

LedgerSummary SummarizeLedger(const Ledger& ledger, LedgerGroupBy by,
                              std::optional<int64_t> since = std::nullopt,
                              std::optional<int64_t> until = std::nullopt);

// The tokens already spent by `run_id` (total_tokens, request_id de-duplicated).
int64_t TokensSpentByRun(const Ledger& ledger, const std::string& run_id);

std::string RenderLedgerMarkdown(const LedgerSummary& summary);
std::string RenderLedgerCsv(const LedgerSummary& summary);
std::string RenderLedgerJson(const LedgerSummary& summary);

}  // namespace av
