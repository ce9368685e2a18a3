// The token ledger, evidence/token_ledger.csv: one CSV row per request attempt, so that
// "why did the agent say yes this time" can be answered later (which provider, model,
// key id, how many tokens, which stage). Append-only and crash-safe: each row is one
// write(2) of a whole line under O_APPEND and an flock, then fsync; a torn last line is
// reported by the reader, never merged. doc/formats/token-ledger-csv.md is the format.
// Appends from several processes are serialised by the lock; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "llm/redact.h"

namespace av {

struct LedgerRow {
  std::string timestamp;  // UTC RFC 3339, "2026-12-01T09:30:00Z"
  std::string stage;      // "connectivity", "diff_review", ...
  std::string kernel;     // "flashmla", ... or ""
  std::string model;
  int64_t input_tokens = 0;  // input not read from a cache
  int64_t output_tokens = 0;
  int64_t total_tokens = 0;  // input + cache_read + cache_creation + output
  std::string report_file;   // package-relative, or ""
  std::string run_id;
  std::string request_id;  // the provider's request-id header, else the answer's id
  std::string provider;
  std::string endpoint;
  std::string key_id;  // first 12 hex of sha256(key)
  int attempt = 1;
  int http_status = 0;  // 0: no HTTP answer (written empty)
  std::string error_type;
  int64_t latency_ms = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_creation_tokens = 0;
  int64_t redactions = 0;  // secrets replaced in this request's prompt
  std::string request_sha256;
  std::optional<double> cost_usd;  // empty when the model has no price
};

// The 22 column names in order; the first eight are the workflow's.
const std::vector<std::string>& LedgerColumns();
// The header line, '\n' included.
std::string LedgerHeaderLine();

// One physical line, '\n' included: fields quoted when they hold ',' or '"', control
// characters turned into spaces, each field redacted with `ctx`.
std::string FormatLedgerLine(const LedgerRow& row, const RedactionContext& ctx);

// Appends one row (and the header first when the file is new or empty). Refuses a file
// whose first line is not the header, and a symlink. When the last line was torn it is
// closed first, so the new row starts on a line of its own.
Status AppendLedgerRow(const std::string& path, const LedgerRow& row, const RedactionContext& ctx);

struct Ledger {
  std::vector<LedgerRow> rows;
  std::vector<int64_t> row_lines;     // the line number of each row
  std::vector<std::string> warnings;  // "path:17: torn last line ...", "path:9: malformed row ..."
  bool torn_tail = false;
};

// Reads a ledger's text; an error only when the header is wrong. Rows that do not parse
// are warnings and are not counted.
Result<Ledger> ParseLedger(std::string_view text, const std::string& path);
// The same from a file; NotFound when it does not exist.
Result<Ledger> ReadLedger(const std::string& path);

// RFC 3339 ("2026-12-01T09:30:00Z", "...T09:30:00.5+01:00") or a bare date
// ("2026-12-01", midnight UTC) as Unix seconds.
Result<int64_t> ParseRfc3339(std::string_view text);
// Unix seconds as "2026-12-01T09:30:00Z".
std::string FormatRfc3339Utc(int64_t unix_seconds);

}  // namespace av
