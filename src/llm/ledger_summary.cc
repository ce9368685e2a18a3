#include "llm/ledger_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

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

void Add(LedgerGroup& g, const LedgerRow& r) {
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

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
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

LedgerSummary SummarizeLedger(const Ledger& ledger, LedgerGroupBy by, std::optional<int64_t> since,
                              std::optional<int64_t> until) {
  LedgerSummary s;
  s.by = by;
  s.since = since;
  s.until = until;
  s.warnings = ledger.warnings;
  s.totals.key = "total";
  std::set<std::string> seen;
  std::map<std::string, size_t> index;
  for (const LedgerRow& r : ledger.rows) {
    if (since || until) {
      Result<int64_t> t = ParseRfc3339(r.timestamp);
      if (!t.ok() || (since && *t < *since) || (until && *t > *until)) {
        ++s.outside_window;
        continue;
      }
    }
    if (!r.request_id.empty() && !seen.insert(r.request_id).second) {
      ++s.duplicates;
      continue;
    }
    std::string key = KeyOf(r, by);
    auto [it, added] = index.emplace(key, s.groups.size());
    if (added) {
      s.groups.push_back(LedgerGroup{});
      s.groups.back().key = key;
    }
    Add(s.groups[it->second], r);
    Add(s.totals, r);
  }
  return s;
}

int64_t TokensSpentByRun(const Ledger& ledger, const std::string& run_id) {
  std::set<std::string> seen;
  int64_t total = 0;
  for (const LedgerRow& r : ledger.rows) {
    if (r.run_id != run_id) continue;
    if (!r.request_id.empty() && !seen.insert(r.request_id).second) continue;
    total += r.total_tokens;
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
  if (s.duplicates > 0) {
    out += "; " + std::to_string(s.duplicates) + " rows with a repeated request_id not counted";
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
    out += CsvField(g.key) + "," + std::to_string(g.requests) + "," + std::to_string(g.failed) +
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
  j["duplicates_not_counted"] = s.duplicates;
  j["outside_window"] = s.outside_window;
  j["since"] = s.since ? nlohmann::json(FormatRfc3339Utc(*s.since)) : nlohmann::json(nullptr);
  j["until"] = s.until ? nlohmann::json(FormatRfc3339Utc(*s.until)) : nlohmann::json(nullptr);
  j["warnings"] = s.warnings;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace av
