#include "llm/ledger.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/file.h"

namespace av {
namespace {

constexpr size_t kColumns = 22;

std::string CleanField(std::string_view value, const RedactionContext& ctx) {
  return CsvCell(RedactedText(value, ctx));
}

std::string FormatCost(const std::optional<double>& cost) {
  if (!cost) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", *cost);
  return buf;
}

// Splits one CSV line (no newline inside) into fields; false when a quote is unclosed
// or stray.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* fields) {
  fields->clear();
  size_t i = 0;
  while (true) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return false;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      if (i < line.size() && line[i] != ',') return false;
    } else {
      size_t end = line.find(',', i);
      if (end == std::string_view::npos) end = line.size();
      field = std::string(line.substr(i, end - i));
      if (field.find('"') != std::string::npos) return false;
      i = end;
    }
    fields->push_back(std::move(field));
    if (fields->size() > kColumns) return false;
    if (i >= line.size()) return true;
    ++i;  // the comma
  }
}

bool ParseCount(const std::string& text, bool empty_ok, int64_t* out) {
  if (text.empty()) {
    *out = 0;
    return empty_ok;
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && *out >= 0;
}

// The row, or the reason it is not one.
Result<LedgerRow> ParseRow(const std::vector<std::string>& f) {
  if (f.size() != kColumns) {
    return InvalidInput("has " + std::to_string(f.size()) + " fields, not " +
                        std::to_string(kColumns));
  }
  LedgerRow r;
  r.timestamp = f[0];
  if (!ParseRfc3339(r.timestamp).ok()) return InvalidInput("timestamp is not RFC 3339");
  r.stage = f[1];
  r.kernel = f[2];
  r.model = f[3];
  int64_t attempt = 0, status = 0;
  struct {
    const std::string& text;
    int64_t* out;
    const char* name;
    bool empty_ok;
  } counts[] = {{f[4], &r.input_tokens, "input_tokens", false},
                {f[5], &r.output_tokens, "output_tokens", false},
                {f[6], &r.total_tokens, "total_tokens", false},
                {f[13], &attempt, "attempt", false},
                {f[14], &status, "http_status", true},
                {f[16], &r.latency_ms, "latency_ms", false},
                {f[17], &r.cache_read_tokens, "cache_read_tokens", false},
                {f[18], &r.cache_creation_tokens, "cache_creation_tokens", false},
                {f[19], &r.redactions, "redactions", false}};
  for (const auto& c : counts) {
    if (!ParseCount(c.text, c.empty_ok, c.out)) {
      return InvalidInput(std::string(c.name) + " is not a non-negative integer");
    }
  }
  if (attempt < 1 || attempt > 1000) return InvalidInput("attempt is not in 1..1000");
  if (status > 999) return InvalidInput("http_status is not an HTTP status");
  r.attempt = static_cast<int>(attempt);
  r.http_status = static_cast<int>(status);
  r.report_file = f[7];
  r.run_id = f[8];
  r.request_id = f[9];
  r.provider = f[10];
  r.endpoint = f[11];
  r.key_id = f[12];
  r.error_type = f[15];
  r.request_sha256 = f[20];
  if (!f[21].empty()) {
    double cost = 0;
    auto [ptr, ec] = std::from_chars(f[21].data(), f[21].data() + f[21].size(), cost);
    if (ec != std::errc() || ptr != f[21].data() + f[21].size() || !(cost >= 0)) {
      return InvalidInput("cost_usd is not a non-negative number");
    }
    r.cost_usd = cost;
  }
  return r;
}

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string CsvCell(std::string_view value) {
  std::string text(value);
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  // A cell a spreadsheet would evaluate (=cmd|..., +, -, @; tab and CR became blanks
  // above and are skipped here) is kept as text by a leading quote (OWASP's advice).
  size_t first = text.find_first_not_of(' ');
  if (first != std::string::npos && std::string_view("=+-@").find(text[first]) != std::string_view::npos) {
    text.insert(0, "'");
  }
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

const std::vector<std::string>& LedgerColumns() {
  static const std::vector<std::string> kNames = {"timestamp",
                                                  "stage",
                                                  "kernel",
                                                  "model",
                                                  "input_tokens",
                                                  "output_tokens",
                                                  "total_tokens",
                                                  "report_file",
                                                  "run_id",
                                                  "request_id",
                                                  "provider",
                                                  "endpoint",
                                                  "key_id",
                                                  "attempt",
                                                  "http_status",
                                                  "error_type",
                                                  "latency_ms",
                                                  "cache_read_tokens",
                                                  "cache_creation_tokens",
                                                  "redactions",
                                                  "request_sha256",
                                                  "cost_usd"};
  return kNames;
}

std::string LedgerHeaderLine() {
  std::string line;
  for (const std::string& c : LedgerColumns()) line += (line.empty() ? "" : ",") + c;
  return line + "\n";
}

std::string FormatLedgerLine(const LedgerRow& r, const RedactionContext& ctx) {
  const std::string fields[kColumns] = {r.timestamp,
                                        r.stage,
                                        r.kernel,
                                        r.model,
                                        std::to_string(r.input_tokens),
                                        std::to_string(r.output_tokens),
                                        std::to_string(r.total_tokens),
                                        r.report_file,
                                        r.run_id,
                                        r.request_id,
                                        r.provider,
                                        r.endpoint,
                                        r.key_id,
                                        std::to_string(r.attempt),
                                        r.http_status == 0 ? "" : std::to_string(r.http_status),
                                        r.error_type,
                                        std::to_string(r.latency_ms),
                                        std::to_string(r.cache_read_tokens),
                                        std::to_string(r.cache_creation_tokens),
                                        std::to_string(r.redactions),
                                        r.request_sha256,
                                        FormatCost(r.cost_usd)};
  std::string line;
  for (size_t i = 0; i < kColumns; ++i) {
    if (i) line += ',';
    line += CleanField(fields[i], ctx);
  }
  return line + "\n";
}

Status AppendLedgerRow(const std::string& path, const LedgerRow& row, const RedactionContext& ctx) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    if (errno == ELOOP) return IoError(path + ": is a symlink; the token ledger must be a file");
    return IoError(Errno("cannot open the token ledger", path));
  }
  FdCloser closer{fd};
  // One appender at a time: the header and torn-tail checks below must see the file as
  // the write will find it.
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) return IoError(Errno("cannot lock the token ledger", path));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) return IoError(Errno("cannot stat the token ledger", path));
  if (!S_ISREG(st.st_mode)) return IoError(path + ": the token ledger is not a regular file");
  const std::string header = LedgerHeaderLine();
  std::string data;
  if (st.st_size == 0) {
    data = header;
  } else {
    std::string first(header.size(), '\0');
    ssize_t n = ::pread(fd, first.data(), first.size(), 0);
    if (n != static_cast<ssize_t>(first.size()) || first != header) {
      return InvalidInput(path +
                          ":1: not a token ledger (the first line is not the header of "
                          "doc/formats/token-ledger-csv.md); nothing appended");
    }
    char last = '\n';
    if (::pread(fd, &last, 1, st.st_size - 1) != 1) {
      return IoError(Errno("cannot read the token ledger", path));
    }
    if (last != '\n') data = "\n";  // close a torn line; the reader reports it
  }
  data += FormatLedgerLine(row, ctx);
  ssize_t written;
  do {
    written = ::write(fd, data.data(), data.size());
  } while (written < 0 && errno == EINTR);
  if (written < 0) return IoError(Errno("cannot append to the token ledger", path));
  if (static_cast<size_t>(written) != data.size()) {
    return IoError(path + ": short write to the token ledger (" + std::to_string(written) + " of " +
                   std::to_string(data.size()) + " bytes; the disk may be full)");
  }
  if (::fsync(fd) != 0) return IoError(Errno("cannot fsync the token ledger", path));
  return Status::Ok();
}

namespace {

constexpr size_t kBlockBytes = 1 << 20;
// No row attnverify writes comes near this; a longer line is not a row, and the reader
// does not hold more of it than this.
constexpr size_t kMaxLineBytes = 1 << 20;

std::string_view HeaderWithoutNewline() {
  static const std::string header = LedgerHeaderLine();
  return std::string_view(header).substr(0, header.size() - 1);
}

Status NotALedger(const std::string& path) {
  return InvalidInput(path +
                      ":1: not a token ledger (the first line is not the header of "
                      "doc/formats/token-ledger-csv.md)");
}

Status EmptyLedger(const std::string& path) {
  return InvalidInput(path +
                      ": empty file, not a token ledger (no header line; "
                      "doc/formats/token-ledger-csv.md)");
}

// Reads lines after the header and turns each into a row or a warning.
class LineParser {
 public:
  LineParser(const std::string& path, const LedgerScanOptions& options, LedgerScanEnd* end,
             const std::function<void(const LedgerRow&, int64_t)>& visit)
      : path_(path), options_(options), end_(end), visit_(visit) {}

  void Warn(std::string message) {
    if (end_->warnings.size() < options_.max_warnings) {
      end_->warnings.push_back(std::move(message));
    } else {
      ++end_->warnings_left_out;
    }
  }

  // One complete line (no '\n'), `line_no` > 1.
  void Line(std::string_view line, int64_t line_no) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return;
    if (!options_.must_contain.empty() &&
        line.find(options_.must_contain) == std::string_view::npos) {
      return;
    }
    const std::string where = path_ + ":" + std::to_string(line_no) + ": ";
    if (std::any_of(line.begin(), line.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
      Warn(where + "malformed row (a control character; attnverify never writes one); " +
           "not counted");
      return;
    }
    if (!SplitCsvLine(line, &fields_)) {
      Warn(where + "malformed row (bad quoting or too many fields; torn by an interrupted " +
           "append?); not counted");
      return;
    }
    Result<LedgerRow> row = ParseRow(fields_);
    if (!row.ok()) {
      Warn(where + "malformed row (" + row.status().message() +
           "; torn by an interrupted append?); not counted");
      return;
    }
    visit_(*row, line_no);
  }

  void TooLong(int64_t line_no) {
    Warn(path_ + ":" + std::to_string(line_no) + ": malformed row (longer than " +
         std::to_string(kMaxLineBytes >> 20) + " MiB); not counted");
  }

  void Torn(int64_t line_no) {
    end_->torn_tail = true;
    Warn(path_ + ":" + std::to_string(line_no) +
         ": torn last line (an append was interrupted, e.g. by kill -9); not counted");
  }

 private:
  const std::string& path_;
  const LedgerScanOptions& options_;
  LedgerScanEnd* end_;
  const std::function<void(const LedgerRow&, int64_t)>& visit_;
  std::vector<std::string> fields_;
};

// The header check on the first bytes of a ledger: Ok, or Ok with a torn header (the
// first append was interrupted), or not a ledger.
Status CheckHeader(std::string_view first_bytes, bool whole_file, const std::string& path,
                   bool* torn_header) {
  *torn_header = false;
  if (first_bytes.empty()) return EmptyLedger(path);
  size_t nl = first_bytes.find('\n');
  if (nl == std::string_view::npos) {
    if (whole_file && HeaderWithoutNewline().starts_with(first_bytes)) {
      *torn_header = true;
      return Status::Ok();
    }
    return NotALedger(path);
  }
  std::string_view first = first_bytes.substr(0, nl);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  return first == HeaderWithoutNewline() ? Status::Ok() : NotALedger(path);
}

}  // namespace

std::string LedgerAttemptKey(const LedgerRow& r) {
  return r.run_id + "\n" + r.request_sha256 + "\n" + std::to_string(r.attempt) + "\n" +
         r.timestamp;
}

void AttemptFolder::Add(const LedgerRow& row, int64_t line) {
  const std::string key = LedgerAttemptKey(row);
  if (row.error_type == kLedgerInFlight) {
    pending_[key].emplace_back(row, line);
    if (++pending_count_ > kMaxPending) Finish();
    return;
  }
  auto it = pending_.find(key);
  if (it != pending_.end()) {
    it->second.erase(it->second.begin());
    --pending_count_;
    if (it->second.empty()) pending_.erase(it);
  }
  emit_(row, line, false);
}

void AttemptFolder::Finish() {
  std::vector<std::pair<LedgerRow, int64_t>> left;
  left.reserve(pending_count_);
  for (auto& [key, rows] : pending_) {
    for (auto& r : rows) left.push_back(std::move(r));
  }
  pending_.clear();
  pending_count_ = 0;
  std::sort(left.begin(), left.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [row, line] : left) emit_(row, line, true);
}

Result<LedgerScanEnd> ScanLedger(const std::string& path, const LedgerScanOptions& options,
                                 const std::function<void(const LedgerRow&, int64_t)>& visit) {
  // O_NONBLOCK: a FIFO in the ledger's place must not hang the open; it is refused below.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound(path + ": no token ledger");
    return IoError(Errno("cannot open the token ledger", path));
  }
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return IoError(Errno("cannot stat the token ledger", path));
  if (!S_ISREG(st.st_mode)) return InvalidInput(path + ": the token ledger is not a regular file");
  LedgerScanEnd end;
  end.offset = options.from_offset;
  end.line = options.from_line;
  if (options.from_offset > st.st_size) {  // replaced or truncated since: start again
    end.offset = 0;
    end.line = 1;
    end.from_start = true;
  }
  {
    std::string first(LedgerHeaderLine().size() + 1, '\0');  // + 1: a CRLF header
    ssize_t n = ::pread(fd, first.data(), first.size(), 0);
    if (n < 0) return IoError(Errno("cannot read the token ledger", path));
    first.resize(static_cast<size_t>(n));
    bool torn_header = false;
    AV_RETURN_IF_ERROR(
        CheckHeader(first, static_cast<int64_t>(n) == st.st_size, path, &torn_header));
    if (torn_header) {
      end.torn_tail = true;
      end.offset = 0;
      end.warnings.push_back(path + ":1: torn header line (the first append was interrupted)");
      return end;
    }
    if (end.offset == 0) {
      end.offset = static_cast<int64_t>(first.find('\n') + 1);
      end.line = 1;
    }
  }
  LineParser parser(path, options, &end, visit);
  std::string carry;  // the start of a line that continues in the next block
  bool skipping = false;  // inside a line longer than kMaxLineBytes
  std::string block(kBlockBytes, '\0');
  int64_t at = end.offset;
  int64_t line_no = end.line;
  while (true) {
    ssize_t n = ::pread(fd, block.data(), block.size(), at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(Errno("cannot read the token ledger", path));
    }
    if (n == 0) break;
    std::string_view data(block.data(), static_cast<size_t>(n));
    size_t start = 0;
    while (start < data.size()) {
      size_t nl = data.find('\n', start);
      if (nl == std::string_view::npos) {
        if (!skipping) {
          carry.append(data.substr(start));
          if (carry.size() > kMaxLineBytes) {
            skipping = true;
            carry.clear();
          }
        }
        break;
      }
      ++line_no;
      if (skipping) {
        parser.TooLong(line_no);
        skipping = false;
      } else if (carry.empty()) {
        parser.Line(data.substr(start, nl - start), line_no);
      } else {
        carry.append(data.substr(start, nl - start));
        parser.Line(carry, line_no);
        carry.clear();
      }
      start = nl + 1;
      end.offset = at + static_cast<int64_t>(start);
      end.line = line_no;
    }
    at += n;
  }
  if (skipping || !carry.empty()) parser.Torn(line_no + 1);
  return end;
}

Result<Ledger> ParseLedger(std::string_view text, const std::string& path) {
  Ledger ledger;
  bool torn_header = false;
  AV_RETURN_IF_ERROR(CheckHeader(text, true, path, &torn_header));
  if (torn_header) {
    ledger.torn_tail = true;
    ledger.warnings.push_back(path + ":1: torn header line (the first append was interrupted)");
    return ledger;
  }
  std::vector<std::pair<LedgerRow, int64_t>> attempts;
  AttemptFolder folder([&](const LedgerRow& row, int64_t line, bool without_outcome) {
    attempts.emplace_back(row, line);
    ledger.without_outcome += without_outcome;
  });
  LedgerScanOptions options;
  options.max_warnings = SIZE_MAX;
  LedgerScanEnd end;
  std::function<void(const LedgerRow&, int64_t)> visit = [&](const LedgerRow& r, int64_t line) {
    folder.Add(r, line);
  };
  LineParser parser(path, options, &end, visit);
  int64_t line_no = 1;
  size_t start = text.find('\n') + 1;
  while (start < text.size()) {
    ++line_no;
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      parser.Torn(line_no);
      break;
    }
    parser.Line(text.substr(start, nl - start), line_no);
    start = nl + 1;
  }
  folder.Finish();
  std::stable_sort(attempts.begin(), attempts.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  for (auto& [row, line] : attempts) {
    ledger.rows.push_back(std::move(row));
    ledger.row_lines.push_back(line);
  }
  ledger.warnings = std::move(end.warnings);
  ledger.torn_tail = end.torn_tail;
  return ledger;
}

Result<Ledger> ReadLedger(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + ": no token ledger");
  AV_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseLedger(text, path);
}

Result<int64_t> ParseRfc3339(std::string_view text) {
  auto digits = [&](size_t at, size_t n, int* out) {
    if (at + n > text.size()) return false;
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return true;
  };
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  const Status bad =
      InvalidInput(std::string("\"").append(text.substr(0, 40)).append(
          "\" is not an RFC 3339 time (2026-12-01T09:30:00Z) or a date"));
  if (!digits(0, 4, &year) || text.size() < 10 || text[4] != '-' || !digits(5, 2, &month) ||
      text[7] != '-' || !digits(8, 2, &day)) {
    return bad;
  }
  int64_t offset_s = 0;
  if (text.size() > 10) {
    if ((text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !digits(11, 2, &hour) ||
        text.size() < 19 || text[13] != ':' || !digits(14, 2, &minute) || text[16] != ':' ||
        !digits(17, 2, &second)) {
      return bad;
    }
    size_t i = 19;
    if (i < text.size() && text[i] == '.') {
      ++i;
      size_t frac = i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      if (i == frac) return bad;
    }
    if (i >= text.size()) return bad;
    if (text[i] == 'Z' || text[i] == 'z') {
      if (i + 1 != text.size()) return bad;
    } else if (text[i] == '+' || text[i] == '-') {
      int oh = 0, om = 0;
      if (i + 6 != text.size() || !digits(i + 1, 2, &oh) || text[i + 3] != ':' ||
          !digits(i + 4, 2, &om) || oh > 23 || om > 59) {
        return bad;
      }
      offset_s = (text[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    } else {
      return bad;
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return bad;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) - offset_s;
}

std::string FormatRfc3339Utc(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace av
