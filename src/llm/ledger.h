// The token ledger, evidence/token_ledger.csv: rows per request attempt, so that "why did
// the agent say yes this time" can be answered later (which provider, model, key id, how
// many tokens, which stage). Each attempt writes an `in_flight` row before it is sent and
// its outcome row after, so an attempt killed in flight (kill -9) still leaves a row;
// readers fold the pair into one attempt (AttemptFolder). Append-only and crash-safe:
// each row is one write(2) of a whole line under O_APPEND and an flock, then fsync; a
// torn last line is reported by the reader, never merged. Readers stream the file
// (ScanLedger): memory does not grow with it. doc/formats/token-ledger-csv.md is the
// format. Appends from several processes are serialised by the lock; any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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
  // The provider's request-id header, else the answer's id: data, never a key (gateways
  // reuse ids; every attempt counts).
  std::string request_id;
  std::string provider;
  std::string endpoint;
  std::string key_id;  // first 12 hex of sha256(key)
  int attempt = 1;
  int http_status = 0;  // 0: no HTTP answer (written empty)
  std::string error_type;  // "" on success; kInFlight before sending; see the format doc
  int64_t latency_ms = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_creation_tokens = 0;
  int64_t redactions = 0;  // secrets replaced in this request's prompt
  std::string request_sha256;
  std::optional<double> cost_usd;  // empty when the model has no price
};

// error_type of the row written before an attempt is sent; its outcome row, written after,
// supersedes it. Alone, it is an attempt whose process died in flight.
inline constexpr const char* kLedgerInFlight = "in_flight";
// error_type of an attempt stopped by SIGINT, SIGTERM or SIGHUP.
inline constexpr const char* kLedgerInterrupted = "interrupted";

// What pairs an in_flight row with its outcome row: run_id, request_sha256, attempt and
// timestamp (the attempt's start, written the same in both).
std::string LedgerAttemptKey(const LedgerRow& row);

// The 22 column names in order; the first eight are the workflow's.
const std::vector<std::string>& LedgerColumns();
// The header line, '\n' included.
std::string LedgerHeaderLine();

// One CSV cell: control characters turned into spaces; a leading ' added when the first
// non-blank character is = + - or @ (a spreadsheet would run it as a formula); quoted
// when it holds ',' or '"'. The ledger and `ledger --format csv` write every cell so.
std::string CsvCell(std::string_view text);

// One physical line, '\n' included: each field redacted with `ctx`, then a CsvCell.
std::string FormatLedgerLine(const LedgerRow& row, const RedactionContext& ctx);

// Appends one row (and the header first when the file is new or empty). Refuses a file
// whose first line is not the header, and a symlink. When the last line was torn it is
// closed first, so the new row starts on a line of its own.
Status AppendLedgerRow(const std::string& path, const LedgerRow& row, const RedactionContext& ctx);

// Folds rows, fed in file order, into attempts: an outcome row is passed on at once (and
// retires one pending in_flight row of the same LedgerAttemptKey); an in_flight row waits
// for its outcome, and Finish() passes on those that never got one (without_outcome).
// So every attempt is counted exactly once, whatever its request_id.
class AttemptFolder {
 public:
  using Emit = std::function<void(const LedgerRow& row, int64_t line, bool without_outcome)>;
  explicit AttemptFolder(Emit emit) : emit_(std::move(emit)) {}
  void Add(const LedgerRow& row, int64_t line);
  void Finish();

 private:
  // Pending rows are those of attempts still in flight (a handful) or killed; past this
  // many (a hostile ledger), all are passed on as without outcome, keeping memory flat.
  static constexpr size_t kMaxPending = 65'536;
  Emit emit_;
  std::map<std::string, std::vector<std::pair<LedgerRow, int64_t>>> pending_;
  size_t pending_count_ = 0;
};

struct LedgerScanOptions {
  int64_t from_offset = 0;   // resume at an offset an earlier scan ended at (0: the start)
  int64_t from_line = 1;     // the line number of the last line before from_offset
  std::string must_contain;  // lines without this text are skipped unparsed (fast filter)
  size_t max_warnings = 100;
};

struct LedgerScanEnd {
  int64_t offset = 0;  // after the last complete line: where a later scan may resume
  int64_t line = 1;    // the number of that last complete line
  bool torn_tail = false;
  bool from_start = false;  // from_offset was past the end (the file was replaced): read all
  std::vector<std::string> warnings;  // "path:17: torn last line ...", "path:9: malformed ..."
  int64_t warnings_left_out = 0;      // past max_warnings
};

// Streams the ledger at `path` in 1 MiB blocks, calling `visit` for every row that parses
// (in file order, with its line number). NotFound when the file does not exist; an error
// naming the file when it is empty, a symlink, not a regular file, or its first line is
// not the header. Rows that do not parse are warnings and are not visited.
Result<LedgerScanEnd> ScanLedger(const std::string& path, const LedgerScanOptions& options,
                                 const std::function<void(const LedgerRow&, int64_t)>& visit);

// A whole ledger in memory, folded into attempts (tests and small ledgers; the CLI and the
// budget stream with ScanLedger).
struct Ledger {
  std::vector<LedgerRow> rows;        // one per attempt, in file order of its last row
  std::vector<int64_t> row_lines;     // the line number of each row
  std::vector<std::string> warnings;  // "path:17: torn last line ...", "path:9: malformed row ..."
  bool torn_tail = false;
  int64_t without_outcome = 0;  // attempts whose in_flight row has no outcome row
};

// Reads a ledger's text; an error when it is empty or the header is wrong. Rows that do
// not parse are warnings and are not counted.
Result<Ledger> ParseLedger(std::string_view text, const std::string& path);
// The same from a file; NotFound when it does not exist.
Result<Ledger> ReadLedger(const std::string& path);

// RFC 3339 ("2026-12-01T09:30:00Z", "...T09:30:00.5+01:00") or a bare date
// ("2026-12-01", midnight UTC) as Unix seconds.
Result<int64_t> ParseRfc3339(std::string_view text);
// Unix seconds as "2026-12-01T09:30:00Z".
std::string FormatRfc3339Utc(int64_t unix_seconds);

}  // namespace av
