// acceptance.json (attnverify.acceptance/1, doc/formats/acceptance-json.md).
#include "report/report_writers.h"

#include <nlohmann/json.hpp>

namespace av {
namespace {

using nlohmann::json;

json OrNull(const std::string& s) { return s.empty() ? json() : json(s); }

json CheckJson(const Check& c) {
  json cites = json::array();
  for (const Citation& x : c.citations) {
    cites.push_back({{"file", x.file},
                     {"sha256", x.sha256},
                     {"command", x.command},
                     {"subject", OrNull(x.subject)}});
  }
  return {{"id", c.id},
          {"title", c.title},
          {"status", CheckStatusName(c.status)},
          {"required", c.required},
          {"waiver", OrNull(c.waiver)},
          {"summary", c.summary},
          {"details", c.details},
          {"citations", cites},
          {"missing_command", OrNull(c.missing_command)},
          {"attributed_to", c.attributed_to}};
}

json AgentQuestionJson(const AgentQuestion& q) {
  return {{"id", q.id},
          {"item", q.item},
          {"severity", AgentSeverityWord(q.severity)},
          {"claim", q.claim},
          {"place", OrNull(q.place)},
          {"evidence", OrNull(q.evidence)},
          {"stage", q.stage},
          {"kernel", OrNull(q.kernel)},
          {"model", q.model},
          {"request_id", OrNull(q.request_id)},
          {"report_file", OrNull(q.report_file)},
          {"ledger_row", OrNull(q.ledger_row)},
          {"command", OrNull(q.command)},
          {"command_decision", OrNull(q.command_decision)},
          {"command_reason", OrNull(q.command_reason)},
          {"command_log", OrNull(q.command_log)},
          {"command_status", OrNull(q.command_status)},
          {"open", q.open},
          {"resolution", OrNull(q.resolution)}};
}

}  // namespace

json AcceptanceToJson(const ChecklistReport& r) {
  json items = json::array();
  for (const ItemResult& item : r.items) {
    json checks = json::array();
    for (const Check& c : item.checks) checks.push_back(CheckJson(c));
    json finding_ids = json::array();
    for (const Finding& f : item.findings) finding_ids.push_back(f.id);
    json entry = {{"number", item.number},
                  {"title", item.title},
                  {"status", CheckStatusName(item.status)},
                  {"required", item.required},
                  {"reason", item.reason},
                  {"checks", checks},
                  {"findings", finding_ids},
                  {"evidence_runs", item.evidence_runs},
                  {"notes", item.notes}};
    if (!item.agent_findings.empty()) {
      json agent = json::array();
      for (const AgentQuestion& q : item.agent_findings) agent.push_back(AgentQuestionJson(q));
      entry["agent_findings"] = std::move(agent);
    }
    items.push_back(std::move(entry));
  }
  json findings = json::array();
  for (const Finding& f : r.findings) findings.push_back(FindingToJson(f));  // review.json's shape
  json evidence = json::array();
  for (const EvidenceFile& f : r.evidence) {
    evidence.push_back({{"path", f.path},
                        {"sha256", f.sha256},
                        {"command", f.command},
                        {"tool_version", OrNull(f.tool_version)},
                        {"run_id", OrNull(f.run_id)},
                        {"used", f.refused.empty()},
                        {"refused", OrNull(f.refused)}});
  }
  json coverage = json::array();
  for (const CoverageCell& c : r.coverage) {
    coverage.push_back(
        {{"op", c.op}, {"category", c.category}, {"passed", c.passed}, {"failed", c.failed}});
  }
  auto num = [](int64_t v) { return v < 0 ? json() : json(v); };
  json resources = json::array();
  for (const ResourceBar& b : r.resources) {
    resources.push_back({{"kernel", b.kernel},
                         {"arch", b.arch},
                         {"base_smem_bytes", num(b.base_smem)},
                         {"head_smem_bytes", num(b.head_smem)},
                         {"smem_cap_bytes", num(b.cap)},
                         {"ptxas_overflow", b.overflow}});
  }
  json perf = json::array();
  for (const PerfBar& b : r.perf) {
    perf.push_back({{"kernel", b.kernel},
                    {"shape", b.shape},
                    {"time_gate", GateStatusName(b.status)},
                    {"base",
                     {{"n", b.base_n},
                      {"median_ns", b.base_median_ns},
                      {"min_ns", b.base_min_ns},
                      {"spread", b.base_spread}}},
                    {"head",
                     {{"n", b.head_n},
                      {"median_ns", b.head_median_ns},
                      {"min_ns", b.head_min_ns},
                      {"spread", b.head_spread}}},
                    {"ratio", b.ratio},
                    {"ratio_lo", b.ratio_lo},
                    {"ratio_hi", b.ratio_hi}});
  }
  json bindings = json::array();
  for (const EvidenceBinding& b : r.bindings) {
    bindings.push_back({{"file", b.file},
                        {"stage", b.stage},
                        {"run_id", OrNull(b.run_id)},
                        {"head_commit", OrNull(b.head_commit)},
                        {"used", b.used},
                        {"refused", OrNull(b.refused)}});
  }
  json heatmaps = json::array();
  for (const HeatmapSvg& h : r.heatmaps)
    heatmaps.push_back({{"case", h.case_id}, {"path", h.path}});
  return {{"schema", kAcceptanceJsonSchema},
          {"tool", {{"name", "attnverify"}, {"version", r.tool_version}}},
          {"title", r.title},
          {"config", r.config},
          {"verdict", ReportVerdictName(r.verdict)},
          {"verdict_reason", r.verdict_reason},
          {"warnings", r.warnings},
          {"required", r.required},
          {"items", items},
          {"findings", findings},
          {"evidence", evidence},
          {"bindings", bindings},
          {"coverage", coverage},
          {"resources", resources},
          {"perf", perf},
          {"heatmaps", heatmaps}};
}

}  // namespace av
