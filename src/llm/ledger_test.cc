#include "llm/ledger.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/file.h"
#include "testing/test_util.h"

namespace av {
namespace {

using testing::TempDir;

LedgerRow SampleRow(int n) {
  LedgerRow r;
  r.timestamp = "2026-12-01T09:30:00Z";
  r.stage = "diff_review";
  r.kernel = "flashmla";
  r.model = "claude-test";
  r.input_tokens = 8120;
  r.output_tokens = 940;
  r.total_tokens = 9060;
  r.report_file = "reports/agent_review_01.md";
  r.run_id = "20261201T093000Z-3f9a1c";
  r.request_id = "req_" + std::to_string(n);
  r.provider = "taotoken";
  r.endpoint = "https://taotoken.net/api/v1/messages";
  r.key_id = "0123456789ab";
  r.attempt = 1;
  r.http_status = 200;
  r.latency_ms = 1234;
  r.request_sha256 = std::string(64, 'a');
  r.cost_usd = 0.0123;
  return r;
}

TEST(LedgerTest, HeaderStartsWithTheWorkflowColumns) {
  EXPECT_EQ(LedgerHeaderLine(),
            "timestamp,stage,kernel,model,input_tokens,output_tokens,total_tokens,report_file,"
            "run_id,request_id,provider,endpoint,key_id,attempt,http_status,error_type,latency_ms,"
            "cache_read_tokens,cache_creation_tokens,redactions,request_sha256,cost_usd\n");
}

TEST(LedgerTest, RowsRoundTrip) {
  RedactionContext ctx;
  LedgerRow r = SampleRow(1);
  r.kernel = "flash,mla \"v2\"\nnext";  // quoting and a newline that must not split the line
  std::string text = LedgerHeaderLine() + FormatLedgerLine(r, ctx);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  Result<Ledger> l = ParseLedger(text, "token_ledger.csv");
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->rows.size(), 1u) << (l->warnings.empty() ? "" : l->warnings[0]);
  const LedgerRow& back = l->rows[0];
  EXPECT_EQ(back.kernel, "flash,mla \"v2\" next");
  EXPECT_EQ(back.input_tokens, 8120);
  EXPECT_EQ(back.total_tokens, 9060);
  EXPECT_EQ(back.http_status, 200);
  EXPECT_EQ(back.report_file, "reports/agent_review_01.md");
  ASSERT_TRUE(back.cost_usd.has_value());
  EXPECT_DOUBLE_EQ(*back.cost_usd, 0.0123);
  EXPECT_TRUE(l->warnings.empty());
}

TEST(LedgerTest, TheWorkflowsExampleRowReadsBack) {
  // The first eight columns as the workflow writes them, the rest empty or zero.
  std::string text = LedgerHeaderLine() +
                     "2025-01-01T02:10:00Z,diff_review,flashmla,YOUR_MODEL_NAME,8120,940,9060,"
                     "reports/agent_review_01.md,,,,,,1,,,0,0,0,0,,\n";
  Result<Ledger> l = ParseLedger(text, "l.csv");
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->rows.size(), 1u) << l->warnings[0];
  EXPECT_EQ(l->rows[0].model, "YOUR_MODEL_NAME");
  EXPECT_EQ(l->rows[0].http_status, 0);
  EXPECT_FALSE(l->rows[0].cost_usd.has_value());
}

TEST(LedgerTest, FieldsAreRedacted) {
  RedactionContext ctx;
  ctx.AddLiteral("provider_key", "canary-secret-value-42");
  LedgerRow r = SampleRow(1);
  r.stage = "stage canary-secret-value-42";
  std::string line = FormatLedgerLine(r, ctx);
  EXPECT_EQ(line.find("canary-secret-value-42"), std::string::npos);
  EXPECT_NE(line.find("[REDACTED:provider_key]"), std::string::npos);
}

TEST(LedgerTest, AppendWritesTheHeaderOnceAndRowsInOrder) {
  TempDir dir;
  const std::string path = dir.File("evidence/token_ledger.csv");
  RedactionContext ctx;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(AppendLedgerRow(path, SampleRow(i), ctx).ok());
  Result<Ledger> l = ReadLedger(path);
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->rows.size(), 3u);
  EXPECT_EQ(l->rows[2].request_id, "req_2");
  EXPECT_EQ(l->row_lines[2], 4);
}

TEST(LedgerTest, AppendRefusesAFileThatIsNotALedgerAndASymlink) {
  TempDir dir;
  RedactionContext ctx;
  const std::string other = dir.File("notes.csv");
  ASSERT_TRUE(WriteFileAtomically(other, "a,b,c\n1,2,3\n").ok());
  Status st = AppendLedgerRow(other, SampleRow(1), ctx);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("not a token ledger"), std::string::npos) << st.message();
  EXPECT_EQ(*ReadFileToString(other), "a,b,c\n1,2,3\n");  // nothing appended

  const std::string link = dir.File("token_ledger.csv");
  std::filesystem::create_symlink(other, link);
  st = AppendLedgerRow(link, SampleRow(1), ctx);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("symlink"), std::string::npos) << st.message();
}

TEST(LedgerTest, ATornLastLineIsReportedNotCounted) {
  RedactionContext ctx;
  std::string whole = LedgerHeaderLine() + FormatLedgerLine(SampleRow(1), ctx);
  std::string torn = FormatLedgerLine(SampleRow(2), ctx);
  torn.resize(torn.size() / 2);
  Result<Ledger> l = ParseLedger(whole + torn, "evidence/token_ledger.csv");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->rows.size(), 1u);
  EXPECT_TRUE(l->torn_tail);
  ASSERT_EQ(l->warnings.size(), 1u);
  EXPECT_NE(l->warnings[0].find("evidence/token_ledger.csv:3: torn last line"), std::string::npos)
      << l->warnings[0];
}

TEST(LedgerTest, AnAppendAfterATornLineStartsOnANewLine) {
  TempDir dir;
  const std::string path = dir.File("token_ledger.csv");
  RedactionContext ctx;
  std::string torn = FormatLedgerLine(SampleRow(2), ctx);
  ASSERT_TRUE(WriteFileAtomically(path, LedgerHeaderLine() + FormatLedgerLine(SampleRow(1), ctx) +
                                            torn.substr(0, 40))
                  .ok());
  ASSERT_TRUE(AppendLedgerRow(path, SampleRow(3), ctx).ok());
  Result<Ledger> l = ReadLedger(path);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->rows.size(), 2u);
  EXPECT_EQ(l->rows[0].request_id, "req_1");
  EXPECT_EQ(l->rows[1].request_id, "req_3");
  ASSERT_EQ(l->warnings.size(), 1u);
  EXPECT_NE(l->warnings[0].find(":3: malformed row"), std::string::npos) << l->warnings[0];
  EXPECT_FALSE(l->torn_tail);
}

TEST(LedgerTest, MalformedRowsAreWarningsAndAWrongHeaderIsAnError) {
  std::string text = LedgerHeaderLine() + "x,y\n" +
                     FormatLedgerLine(SampleRow(1), RedactionContext()) +
                     "not-a-time,s,k,m,1,2,3,,,,,,,1,,,0,0,0,0,,\n" +
                     "2026-12-01T09:30:00Z,s,k,m,-1,2,3,,,,,,,1,,,0,0,0,0,,\n" +
                     "2026-12-01T09:30:00Z,s,\"k,m,1,2,3,,,,,,,1,,,0,0,0,0,,\n" +
                     "2026-12-01T09:30:00Z,s\tx,k,m,1,2,3,,,,,,,1,,,0,0,0,0,,\n";
  Result<Ledger> l = ParseLedger(text, "l.csv");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->rows.size(), 1u);
  ASSERT_EQ(l->warnings.size(), 5u);
  EXPECT_NE(l->warnings[0].find("l.csv:2: malformed row (has 2 fields"), std::string::npos);
  EXPECT_NE(l->warnings[1].find("timestamp"), std::string::npos);
  EXPECT_NE(l->warnings[2].find("input_tokens"), std::string::npos);
  EXPECT_NE(l->warnings[3].find("quoting"), std::string::npos);
  EXPECT_NE(l->warnings[4].find("control character"), std::string::npos);
  Result<Ledger> bad = ParseLedger("a,b\n", "l.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("l.csv:1: not a token ledger"), std::string::npos);
  EXPECT_EQ(ReadLedger("/nonexistent/ledger.csv").status().code(), StatusCode::kNotFound);
}

// kill -9 while another process appends in a loop: every row written before the kill
// is there, in order, and at most the last line is torn.
TEST(LedgerCrashTest, KillDuringAppendsLosesNoEarlierRow) {
  TempDir dir;
  const std::string path = dir.File("evidence/token_ledger.csv");
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RedactionContext ctx;
    for (int i = 0;; ++i) {
      if (!AppendLedgerRow(path, SampleRow(i), ctx).ok()) ::_exit(3);
    }
  }
  // Kill it once it has written a few hundred rows (or after 20 s on a slow machine).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > 300 * 150) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the appender exited by itself: " << status;
  Result<Ledger> l = ReadLedger(path);
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_GT(l->rows.size(), 10u);
  for (size_t i = 0; i < l->rows.size(); ++i) {
    ASSERT_EQ(l->rows[i].request_id, "req_" + std::to_string(i)) << "row " << i;
  }
  EXPECT_LE(l->warnings.size(), 1u);  // the torn tail, if the kill landed mid-write
  // And the ledger takes the next append.
  ASSERT_TRUE(AppendLedgerRow(path, SampleRow(-1), RedactionContext()).ok());
  Result<Ledger> after = ReadLedger(path);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->rows.back().request_id, "req_-1");
  EXPECT_EQ(after->rows.size(), l->rows.size() + 1);
}

TEST(LedgerTest, Rfc3339) {
  EXPECT_EQ(*ParseRfc3339("1970-01-01T00:00:10Z"), 10);
  EXPECT_EQ(*ParseRfc3339("1970-01-01T01:00:10+01:00"), 10);
  EXPECT_EQ(*ParseRfc3339("1970-01-01T00:00:10.250Z"), 10);
  EXPECT_EQ(*ParseRfc3339("1970-01-02"), 86400);
  EXPECT_FALSE(ParseRfc3339("1970-13-01").ok());
  EXPECT_FALSE(ParseRfc3339("1970-01-01T00:00:10").ok());
  EXPECT_FALSE(ParseRfc3339("yesterday").ok());
  EXPECT_EQ(FormatRfc3339Utc(86410), "1970-01-02T00:00:10Z");
}

}  // namespace
}  // namespace av

namespace av {
namespace {

// L1: an empty token_ledger.csv was read as a valid ledger with zero totals.
TEST(LedgerTest, AnEmptyFileIsNotALedger) {
  Result<Ledger> parsed = ParseLedger("", "l.csv");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("l.csv: empty file, not a token ledger"),
            std::string::npos)
      << parsed.status().message();
  TempDir dir;
  const std::string path = dir.File("token_ledger.csv");
  ASSERT_TRUE(WriteFileAtomically(path, "").ok());
  Result<LedgerScanEnd> scanned =
      ScanLedger(path, LedgerScanOptions{}, [](const LedgerRow&, int64_t) {});
  ASSERT_FALSE(scanned.ok());
  EXPECT_EQ(scanned.status().code(), StatusCode::kInvalidInput);
  // The writer still starts a ledger in an empty file (created, header not yet written).
  ASSERT_TRUE(AppendLedgerRow(path, SampleRow(1), RedactionContext()).ok());
  EXPECT_TRUE(ReadLedger(path).ok());
}

// L1: a gateway's request-id "=cmd|' /C calc'!A0" became a formula cell in
// token_ledger.csv.
TEST(LedgerTest, CellsThatASpreadsheetWouldRunAreWrittenAsText) {
  LedgerRow r = SampleRow(1);
  r.request_id = "=cmd|' /C calc'!A0";
  r.stage = "+SUM(A1)";
  r.kernel = "@x";
  r.model = "\t=1";
  r.report_file = "-2+3";
  std::string line = FormatLedgerLine(r, RedactionContext());
  EXPECT_NE(line.find(",'=cmd|' /C calc'!A0,"), std::string::npos) << line;
  EXPECT_NE(line.find(",'+SUM(A1),'@x,' =1,"), std::string::npos) << line;
  EXPECT_NE(line.find(",'-2+3,"), std::string::npos) << line;
  for (size_t at = line.find(','); at != std::string::npos; at = line.find(',', at + 1)) {
    EXPECT_EQ(std::string("=+-@\t\r").find(line[at + 1]), std::string::npos) << line;
  }
  Result<Ledger> back = ParseLedger(LedgerHeaderLine() + line, "l.csv");
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->rows.size(), 1u);
  EXPECT_EQ(back->rows[0].request_id, "'=cmd|' /C calc'!A0");
  EXPECT_EQ(CsvCell("a,=b"), "\"a,=b\"");  // only the first character matters
  EXPECT_EQ(CsvCell("\"=x\""), "\"\"\"=x\"\"\"");  // a value starting with '"' is text
}

// N8: the budget check and `ledger` read the whole file into memory. The streaming reader
// resumes at the offset it stopped at, skips lines without the filter text unparsed, and
// sees rows appended since.
TEST(LedgerTest, AScanResumesWhereItStoppedAndSkipsOtherRuns) {
  TempDir dir;
  const std::string path = dir.File("token_ledger.csv");
  RedactionContext ctx;
  for (int i = 0; i < 5; ++i) {
    LedgerRow r = SampleRow(i);
    r.run_id = i % 2 == 0 ? "run-even" : "run-odd";
    ASSERT_TRUE(AppendLedgerRow(path, r, ctx).ok());
  }
  LedgerScanOptions options;
  options.must_contain = "run-even";
  std::vector<int64_t> lines;
  auto visit = [&](const LedgerRow& r, int64_t line) {
    EXPECT_EQ(r.run_id, "run-even");
    lines.push_back(line);
  };
  Result<LedgerScanEnd> end = ScanLedger(path, options, visit);
  ASSERT_TRUE(end.ok()) << end.status().message();
  EXPECT_EQ(lines, (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ(end->line, 6);
  LedgerRow later = SampleRow(9);
  later.run_id = "run-even";
  ASSERT_TRUE(AppendLedgerRow(path, later, ctx).ok());
  options.from_offset = end->offset;
  options.from_line = end->line;
  lines.clear();
  Result<LedgerScanEnd> again = ScanLedger(path, options, visit);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(lines, (std::vector<int64_t>{7}));
  EXPECT_FALSE(again->from_start);
}

// A hostile ledger: a 3 MiB line and 1,000 malformed rows. The reader holds at most 1 MiB
// of a line and 100 warnings, counts the rest, and still reads the good row after them.
TEST(LedgerTest, AHostileLedgerCostsBoundedMemory) {
  TempDir dir;
  const std::string path = dir.File("token_ledger.csv");
  std::string text = LedgerHeaderLine() + std::string(3 << 20, 'x') + "\n";
  for (int i = 0; i < 1000; ++i) text += "x,y\n";
  text += FormatLedgerLine(SampleRow(7), RedactionContext());
  ASSERT_TRUE(WriteFileAtomically(path, text).ok());
  int rows = 0;
  Result<LedgerScanEnd> end =
      ScanLedger(path, LedgerScanOptions{}, [&](const LedgerRow&, int64_t) { ++rows; });
  ASSERT_TRUE(end.ok()) << end.status().message();
  EXPECT_EQ(rows, 1);
  ASSERT_EQ(end->warnings.size(), 100u);
  EXPECT_NE(end->warnings[0].find(":2: malformed row (longer than 1 MiB)"), std::string::npos)
      << end->warnings[0];
  EXPECT_EQ(end->warnings_left_out, 901);
}

}  // namespace
}  // namespace av
