// attnverify ledger: the token ledger (evidence/token_ledger.csv) summed per stage,
// kernel, model, key or run, with totals: requests, input, output, cache and total
// tokens, time, cost (doc/formats/token-ledger-csv.md). Every attempt counts once (its
// in_flight and outcome rows folded into one); the file is streamed, never held whole; a
// torn or malformed row is a warning on stderr, never counted. Exit 0, or 2 when the
// ledger is missing, empty or not a ledger.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/parse.h"
#include "llm/ledger.h"
#include "llm/ledger_summary.h"
#include "llm/redact.h"

namespace av::cli {

int RunLedger(std::vector<std::string> args) {
  CLI::App app(
      "Sum the token ledger, evidence/token_ledger.csv, one row per request attempt to the\n"
      "pinned provider (doc/formats/token-ledger-csv.md). Input and output stay separate\n"
      "columns; every attempt counts once, whatever request_id the provider gave it.",
      "attnverify ledger");
  std::string config_path = "attention-verify/attnverify.toml";
  std::string ledger_path;
  std::string by = "stage";
  std::string format = "md";
  std::string since, until;
  app.add_option("--config", config_path,
                 "attnverify.toml of the package (its folder holds "
                 "evidence/token_ledger.csv)")
      ->capture_default_str();
  app.add_option("--ledger", ledger_path, "read this ledger file instead");
  app.add_option("--by", by, "group by stage, kernel, model, key or run")->capture_default_str();
  app.add_option("--format", format, "md, csv or json")->capture_default_str();
  app.add_option("--since", since, "only rows at or after this time (RFC 3339 or YYYY-MM-DD)");
  app.add_option("--until", until, "only rows at or before this time (RFC 3339 or YYYY-MM-DD)");
  if (auto exit_code = ParseCommandLine(app, args)) return *exit_code;

  Result<LedgerGroupBy> group = ParseLedgerGroupBy(by);
  if (!group.ok()) return ReportError(group.status());
  if (format != "md" && format != "csv" && format != "json") {
    return ReportError(InvalidInput("--format must be md, csv or json, got \"" + format + "\""));
  }
  std::optional<int64_t> from, to;
  if (!since.empty()) {
    Result<int64_t> t = ParseRfc3339(since);
    if (!t.ok()) return ReportError(t.status().WithContext("--since"));
    from = *t;
  }
  if (!until.empty()) {
    Result<int64_t> t = ParseRfc3339(until);
    if (!t.ok()) return ReportError(t.status().WithContext("--until"));
    // A bare date means the whole day.
    to = *t + (until.size() == 10 ? 86'399 : 0);
  }
  if (ledger_path.empty()) {
    namespace fs = std::filesystem;
    ledger_path = (fs::path(config_path).parent_path() / "evidence" / "token_ledger.csv").string();
  }
  Result<LedgerSummary> summarized = SummarizeLedgerFile(ledger_path, *group, from, to);
  if (!summarized.ok()) {
    if (summarized.status().code() == StatusCode::kNotFound) {
      return ReportError(NotFound(ledger_path +
                                  ": no token ledger yet (`attnverify provider check` writes "
                                  "the first row)"));
    }
    return ReportError(summarized.status());
  }
  const LedgerSummary& summary = *summarized;
  RedactionContext ctx = RedactionContext::FromProcessEnvironment();
  for (const std::string& w : summary.warnings) {
    std::fprintf(stderr, "attnverify: warning: %s\n", RedactedText(w, ctx).c_str());
  }
  if (summary.warnings_left_out > 0) {
    std::fprintf(stderr, "attnverify: warning: %lld more warnings like these not shown\n",
                 static_cast<long long>(summary.warnings_left_out));
  }
  std::string out = format == "md"    ? RenderLedgerMarkdown(summary)
                    : format == "csv" ? RenderLedgerCsv(summary)
                                      : RenderLedgerJson(summary);
  out = RedactedText(out, ctx);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace av::cli
