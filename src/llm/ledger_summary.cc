#include "llm/ledger_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

namespace av {
namespace {

std::string KeyOf(const LedgerRow& r, LedgerGroupBy by) {
  switch (by) {
    case LedgerGroupBy::kStage:
      return r.stage;
    case LedgerGroupBy::kKernel:
      return r.kernel;
    case LedgerGroupBy::kModel:
      return r.model;
    case LedgerGroupBy::kKey:
      return r.key_id;
    case LedgerGroupBy::kRun:
      return r.run_id;
  }
  return "";
}

void AddTo(LedgerGroup& g, const LedgerRow& r) {
  ++g.requests;
  if (!r.error_type.empty()) ++g.failed;
  g.input_tokens += r.input_tokens;
  g.output_tokens += r.output_tokens;
  g.cache_read_tokens += r.cache_read_tokens;
  g.cache_creation_tokens += r.cache_creation_tokens;
  g.total_tokens += r.total_tokens;
  g.latency_ms += r.latency_ms;
  if (r.cost_usd) {
    g.cost_usd += *r.cost_usd;
  } else {
    ++g.unpriced;
  }
  if (!r.key_id.empty() &&
      std::find(g.key_ids.begin(), g.key_ids.end(), r.key_id) == g.key_ids.end()) {
    g.key_ids.push_back(r.key_id);
  }
}

std::string Shown(const std::string& key) { return key.empty() ? "-" : key; }

std::string Seconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(ms) / 1000.0);
  return buf;
}

// "0.012345", or "-" when no row had a price, or "0.0123 (+2 unpriced)".
std::string Cost(const LedgerGroup& g) {
  if (g.unpriced == g.requests) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", g.cost_usd);
  std::string out = buf;
  if (g.unpriced > 0) out += " (+" + std::to_string(g.unpriced) + " unpriced)";
  return out;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  return out;
}

nlohmann::json GroupJson(const LedgerGroup& g, bool with_key) {
  nlohmann::json j;
  if (with_key) j["key"] = g.key;
  j["requests"] = g.requests;
  j["failed"] = g.failed;
  j["input_tokens"] = g.input_tokens;
  j["output_tokens"] = g.output_tokens;
  j["cache_read_tokens"] = g.cache_read_tokens;
  j["cache_creation_tokens"] = g.cache_creation_tokens;
  j["total_tokens"] = g.total_tokens;
  j["latency_ms"] = g.latency_ms;
  j["cost_usd"] = g.unpriced == g.requests ? nlohmann::json(nullptr) : nlohmann::json(g.cost_usd);
  j["unpriced_requests"] = g.unpriced;
  j["key_ids"] = g.key_ids;
  return j;
}

}  // namespace

Result<LedgerGroupBy> ParseLedgerGroupBy(const std::string& name) {
  if (name == "stage") return LedgerGroupBy::kStage;
  if (name == "kernel") return LedgerGroupBy::kKernel;
  if (name == "model") return LedgerGroupBy::kModel;
  if (name == "key") return LedgerGroupBy::kKey;
  if (name == "run") return LedgerGroupBy::kRun;
  return InvalidInput("--by must be stage, kernel, model, key or run, got \"" + name + "\"");
}

std::string LedgerGroupByName(LedgerGroupBy by) {
  switch (by) {
    case LedgerGroupBy::kStage:
      return "stage";
    case LedgerGroupBy::kKernel:
      return "kernel";
    case LedgerGroupBy::kModel:
      return "model";
    case LedgerGroupBy::kKey:
      return "key";
    case LedgerGroupBy::kRun:
      return "run";
  }
  return "stage";
}

LedgerSummarizer::LedgerSummarizer(LedgerGroupBy by, std::optional<int64_t> since,
                                   std::optional<int64_t> until) {
  s_.by = by;
  s_.since = since;
  s_.until = until;
  s_.totals.key = "total";
}

void LedgerSummarizer::Add(const LedgerRow& r) {
  if (s_.since || s_.until) {
    Result<int64_t> t = ParseRfc3339(r.timestamp);
    if (!t.ok() || (s_.since && *t < *s_.since) || (s_.until && *t > *s_.until)) {
      ++s_.outside_window;
      return;
    }
  }
  if (r.error_type == kLedgerInFlight) ++s_.without_outcome;
  std::string key = KeyOf(r, s_.by);
  auto [it, added] = index_.emplace(key, s_.groups.size());
  if (added) {
    s_.groups.push_back(LedgerGroup{});
    s_.groups.back().key = key;
  }
  AddTo(s_.groups[it->second], r);
  AddTo(s_.totals, r);
}

LedgerSummary LedgerSummarizer::Finish(std::vector<std::string> warnings,
                                       int64_t warnings_left_out) {
  s_.warnings = std::move(warnings);
  s_.warnings_left_out = warnings_left_out;
  return std::move(s_);
}

LedgerSummary SummarizeLedger(const Ledger& ledger, LedgerGroupBy by, std::optional<int64_t> since,
                              std::optional<int64_t> until) {
  LedgerSummarizer sum(by, since, until);
  for (const LedgerRow& r : ledger.rows) sum.Add(r);
  return sum.Finish(ledger.warnings);
}

Result<LedgerSummary> SummarizeLedgerFile(const std::string& path, LedgerGroupBy by,
                                          std::optional<int64_t> since,
                                          std::optional<int64_t> until) {
  LedgerSummarizer sum(by, since, until);
  AttemptFolder folder([&](const LedgerRow& row, int64_t, bool) { sum.Add(row); });
  AV_ASSIGN_OR_RETURN(LedgerScanEnd end,
                      ScanLedger(path, LedgerScanOptions{},
                                 [&](const LedgerRow& row, int64_t line) { folder.Add(row, line); }));
  folder.Finish();
  return sum.Finish(std::move(end.warnings), end.warnings_left_out);
}

int64_t TokensSpentByRun(const Ledger& ledger, const std::string& run_id) {
  int64_t total = 0;
  for (const LedgerRow& r : ledger.rows) {
    if (r.run_id == run_id) total += r.total_tokens;
  }
  return total;
}

std::string RenderLedgerMarkdown(const LedgerSummary& s) {
  std::string out = "| " + LedgerGroupByName(s.by) +
                    " | requests | input tokens | output tokens | cache read | cache write | "
                    "total tokens | time (s) | cost (USD) |\n"
                    "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  auto row = [&](const LedgerGroup& g, bool bold) {
    std::string name = bold ? "**total**" : Escape(Shown(g.key));
    std::string requests = std::to_string(g.requests);
    if (g.failed > 0) requests += " (" + std::to_string(g.failed) + " failed)";
    out += "| " + name + " | " + requests + " | " + std::to_string(g.input_tokens) + " | " +
           std::to_string(g.output_tokens) + " | " + std::to_string(g.cache_read_tokens) + " | " +
           std::to_string(g.cache_creation_tokens) + " | " + std::to_string(g.total_tokens) +
           " | " + Seconds(g.latency_ms) + " | " + Cost(g) + " |\n";
  };
  for (const LedgerGroup& g : s.groups) row(g, false);
  row(s.totals, true);
  std::string keys;
  for (const std::string& k : s.totals.key_ids) keys += (keys.empty() ? "" : ", ") + k;
  out += "\nkeys: " + (keys.empty() ? std::string("-") : keys);
  if (s.without_outcome > 0) {
    out += "; " + std::to_string(s.without_outcome) +
           " attempts without an outcome row (the process died in flight; tokens unknown, "
           "counted as 0)";
  }
  if (s.outside_window > 0) {
    out += "; " + std::to_string(s.outside_window) + " rows outside --since/--until";
  }
  return out + "\n";
}

std::string RenderLedgerCsv(const LedgerSummary& s) {
  std::string out = LedgerGroupByName(s.by) +
                    ",requests,failed,input_tokens,output_tokens,cache_read_tokens,"
                    "cache_creation_tokens,total_tokens,latency_ms,cost_usd\n";
  auto row = [&](const LedgerGroup& g) {
    char cost[64] = "";
    if (g.unpriced != g.requests) std::snprintf(cost, sizeof cost, "%.6f", g.cost_usd);
    out += CsvCell(g.key) + "," + std::to_string(g.requests) + "," + std::to_string(g.failed) +
           "," + std::to_string(g.input_tokens) + "," + std::to_string(g.output_tokens) + "," +
           std::to_string(g.cache_read_tokens) + "," + std::to_string(g.cache_creation_tokens) +
           "," + std::to_string(g.total_tokens) + "," + std::to_string(g.latency_ms) + "," + cost +
           "\n";
  };
  for (const LedgerGroup& g : s.groups) row(g);
  row(s.totals);
  return out;
}

std::string RenderLedgerJson(const LedgerSummary& s) {
  nlohmann::json j;
  j["by"] = LedgerGroupByName(s.by);
  j["groups"] = nlohmann::json::array();
  for (const LedgerGroup& g : s.groups) j["groups"].push_back(GroupJson(g, true));
  j["totals"] = GroupJson(s.totals, false);
  j["attempts_without_outcome"] = s.without_outcome;
  j["outside_window"] = s.outside_window;
  j["since"] = s.since ? nlohmann::json(FormatRfc3339Utc(*s.since)) : nlohmann::json(nullptr);
  j["until"] = s.until ? nlohmann::json(FormatRfc3339Utc(*s.until)) : nlohmann::json(nullptr);
  j["warnings"] = s.warnings;
  j["warnings_left_out"] = s.warnings_left_out;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace av
