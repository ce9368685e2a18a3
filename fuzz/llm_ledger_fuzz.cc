// libFuzzer target for the token ledger reader: any bytes after the header either read
// as rows and warnings or fail on the header (never a crash). Every row read formats
// back to a line that reads as the same row, and the summaries of every grouping render
// in all three formats with totals equal to the sum of their groups.
// Seeds: fuzz/corpus/llm_ledger/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/ledger.h"
#include "llm/ledger_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // Half the inputs get the header for free, so the fuzzer reaches the row parser.
  std::string text = (size > 0 && data[0] % 2 == 0) ? av::LedgerHeaderLine() + std::string(input)
                                                    : std::string(input);
  av::Result<av::Ledger> ledger = av::ParseLedger(text, "fuzz.csv");
  if (!ledger.ok()) return 0;
  if (ledger->rows.size() != ledger->row_lines.size()) __builtin_trap();
  av::RedactionContext none;
  none.set_patterns(false);
  for (const av::LedgerRow& row : ledger->rows) {
    std::string again = av::LedgerHeaderLine() + av::FormatLedgerLine(row, none);
    av::Result<av::Ledger> back = av::ParseLedger(again, "again.csv");
    if (!back.ok() || back->rows.size() != 1) __builtin_trap();
    const av::LedgerRow& b = back->rows[0];
    if (b.input_tokens != row.input_tokens || b.total_tokens != row.total_tokens ||
        b.request_id != row.request_id || b.attempt != row.attempt) {
      __builtin_trap();
    }
  }
  for (av::LedgerGroupBy by :
       {av::LedgerGroupBy::kStage, av::LedgerGroupBy::kKernel, av::LedgerGroupBy::kModel,
        av::LedgerGroupBy::kKey, av::LedgerGroupBy::kRun}) {
    av::LedgerSummary s = av::SummarizeLedger(*ledger, by);
    int64_t requests = 0;
    for (const av::LedgerGroup& g : s.groups) requests += g.requests;
    if (requests != s.totals.requests) __builtin_trap();
    if (av::RenderLedgerMarkdown(s).empty() || av::RenderLedgerCsv(s).empty() ||
        av::RenderLedgerJson(s).empty()) {
      __builtin_trap();
    }
  }
  return 0;
}
