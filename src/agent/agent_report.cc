#include "agent/agent_report.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "findings/finding_writers.h"

namespace av {
namespace {

std::string Cell(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '|') c = c == '|' ? '/' : ' ';
  }
  return s;
}

std::string Place(const AgentFinding& f) {
  if (f.file.empty()) return "-";
  std::string s = f.file;
  if (f.line > 0) s += ":" + std::to_string(f.line);
  if (f.end_line > f.line) s += "-" + std::to_string(f.end_line);
  if (f.side == "old") s += " (old side)";
  return s;
}

std::string Fence(const std::string& text) {
  std::string fence = "```";
  while (text.find(fence) != std::string::npos) fence += "`";
  return fence + "text\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + fence + "\n";
}

std::string DroppedTable(const std::vector<AgentFindingRecord>& findings, bool with_report) {
  std::string out =
      with_report ? "| reason | stage | answer | place | claim | why |\n|---|---|---|---|---|---|\n"
                  : "| reason | place | claim | why |\n|---|---|---|---|\n";
  for (const AgentFindingRecord& r : findings) {
    if (r.checked.drop == DropReason::kKept) continue;
    out += "| " + std::string(DropReasonName(r.checked.drop)) + " | ";
    if (with_report) out += r.stage + " | " + r.report_file + " | ";
    out += Cell(Place(r.checked.finding)) + " | " + Cell(r.checked.finding.claim) + " | " +
           Cell(r.checked.why) + " |\n";
  }
  return out;
}

std::string CommandsTable(const std::vector<AgentFindingRecord>& findings) {
  std::string out;
  for (const AgentFindingRecord& r : findings) {
    if (r.checked.command_dropped.empty() || r.checked.drop != DropReason::kKept) continue;
    if (out.empty()) out = "| decision | command | why |\n|---|---|---|\n";
    out += "| " + r.checked.command_decision + " | `" + Cell(r.checked.command_dropped) + "` | " +
           Cell(r.checked.command_reason) + " |\n";
  }
  return out;
}

std::string ChecksTable(const std::vector<AgentCheckRecord>& checks, bool with_stage) {
  std::string out = with_stage
                        ? "| item | status | needs | command | stage |\n|---|---|---|---|---|\n"
                        : "| item | status | needs | command |\n|---|---|---|---|\n";
  for (const AgentCheckRecord& c : checks) {
    out += "| " + std::to_string(c.check.item) + " | " + AgentCheckStatusName(c.check.status) +
           " | " + Cell(c.check.needs) + " | " +
           (c.check.command.empty() ? "" : "`" + Cell(c.check.command) + "`") +
           (with_stage ? " | " + c.stage : "") + " |\n";
  }
  return out;
}

// The suggested command as argv when it is plain words (no quoting, expansion or
// operators: splitting at spaces is then what a shell would do); otherwise it stays a line,
// shown as written and never parsed.
void SetVerify(const std::string& command, Finding* f) {
  if (command.find_first_of("'\"\\$`;|&<>(){}*?[]~#\n\t") != std::string::npos) {
    f->legacy_verify = command;
    return;
  }
  for (size_t i = 0; i < command.size();) {
    size_t j = command.find(' ', i);
    if (j == std::string::npos) j = command.size();
    if (j > i) f->verify.push_back(command.substr(i, j - i));
    i = j + 1;
  }
}

}  // namespace

std::map<std::string, int> FailureClassCounts(const AgentRunOutcome& out) {
  std::map<std::string, int> counts;
  for (const AgentFindingRecord& r : out.findings) {
    if (r.checked.drop != DropReason::kKept || r.stage != "test_log") continue;
    const std::string& c = r.checked.finding.failure_class;
    ++counts[c.empty() ? kUnclassified : c];
  }
  return counts;
}

std::vector<Finding> AgentFindingsAsReview(const AgentRunOutcome& out) {
  std::vector<Finding> findings;
  for (const AgentFindingRecord& r : out.findings) {
    if (r.checked.drop != DropReason::kKept) continue;
    const AgentFinding& a = r.checked.finding;
    Finding f;
    char id[16];
    std::snprintf(id, sizeof(id), "A%03zu", findings.size() + 1);
    f.id = id;
    f.rule = "agent." + r.stage;
    f.severity = a.severity;
    f.component = r.kernel;
    f.file = a.file;
    f.line = a.line;
    f.end_line = a.end_line;
    if (f.file.empty() && a.evidence != "diff") {
      // No place of its own: the evidence it cites is where to look.
      size_t cut = a.evidence.find_first_of("#:");
      f.file = a.evidence.substr(0, cut);
      if (cut != std::string::npos && a.evidence[cut] == ':') {
        f.line = f.end_line = std::atoll(a.evidence.c_str() + cut + 1);
      }
    }
    f.side = a.side == "old" ? "base" : "head";
    f.checklist_item = a.item;
    f.title = a.claim.substr(0, a.claim.find('\n')).substr(0, 120);
    f.message = a.claim + "\n\n" +
                (a.failure_class.empty() ? "" : "failure class: " + a.failure_class + "; ") +
                "evidence: " + a.evidence + "; agent stage " + r.stage + ", model " +
                r.model + ", ledger request " + (r.request_id.empty() ? "-" : r.request_id) + " (" +
                r.report_file + ")";
    if (!r.checked.command_dropped.empty()) {
      // No Verify line then (the writers print one only for a command): say why instead.
      f.message += "\n\nNo verify command: the policy removed the suggested `" +
                   r.checked.command_dropped + "` (" + r.checked.command_decision + ": " +
                   r.checked.command_reason + ")";
    }
    SetVerify(a.command, &f);
    findings.push_back(std::move(f));
  }
  return findings;
}

std::string AnswerMarkdown(const AgentRoundRecord& rec, const std::string& answer_text,
                           const AgentAnswer* parsed,
                           const std::vector<AgentFindingRecord>& findings,
                           const std::vector<AgentCheckRecord>& checks) {
  std::string md = "# Agent review " + std::to_string(rec.n) + ": " + rec.stage;
  if (!rec.kernel.empty()) md += " (" + rec.kernel + ")";
  if (rec.part > 0) md += ", part " + std::to_string(rec.part);
  md += "\n\n";
  md += "- request: " + rec.request_file + " (prompt: " + rec.prompt_source + ")\n";
  md += "- model: " + (rec.model.empty() ? std::string("-") : rec.model) +
        ", request id: " + (rec.request_id.empty() ? std::string("-") : rec.request_id) + "\n";
  md += "- tokens: input " + std::to_string(rec.input_tokens) + ", output " +
        std::to_string(rec.output_tokens) + ", cache read " +
        std::to_string(rec.cache_read_tokens) + "\n";
  md += "- status: " + std::string(AgentRoundStatusName(rec.status)) +
        (rec.reason.empty() ? "" : " (" + rec.reason + ")") + "\n\n";
  md += "The agent raises questions; local commands give the facts; the report decides.\n\n";
  if (parsed != nullptr) {
    AgentRunOutcome view;
    view.findings = findings;
    std::vector<Finding> kept = AgentFindingsAsReview(view);
    md += "## Findings kept (" + std::to_string(kept.size()) + ")\n\n";
    md += kept.empty() ? "None.\n\n" : FindingsToMarkdown(kept) + "\n";
    size_t dropped = findings.size() - kept.size();
    md += "## Findings dropped (" + std::to_string(dropped) + ")\n\n";
    md += dropped == 0 ? "None.\n\n" : DroppedTable(findings, false) + "\n";
    std::string commands = CommandsTable(findings);
    if (!commands.empty()) md += "## Commands not allowed (findings kept)\n\n" + commands + "\n";
    if (!checks.empty()) md += "## Checks\n\n" + ChecksTable(checks, false) + "\n";
  }
  md += "## The answer as received\n\n" + Fence(answer_text);
  return md;
}

nlohmann::json AgentSummaryJson(const AgentRunOutcome& out) {
  nlohmann::json j;
  j["schema"] = "attnverify.agent_review/1";
  j["provider"] = out.provider;
  j["model"] = out.model;
  j["policy"] = out.policy_source;
  j["failed"] = out.failed;
  j["stages"] = nlohmann::json::array();
  for (const AgentRoundRecord& s : out.stages) {
    j["stages"].push_back({{"n", s.n},
                           {"stage", s.stage},
                           {"kernel", s.kernel},
                           {"part", s.part},
                           {"status", AgentRoundStatusName(s.status)},
                           {"reason", s.reason},
                           {"request_file", s.request_file},
                           {"report_file", s.report_file},
                           {"model", s.model},
                           {"request_id", s.request_id},
                           {"input_tokens", s.input_tokens},
                           {"output_tokens", s.output_tokens},
                           {"cache_read_tokens", s.cache_read_tokens},
                           {"kept", s.kept},
                           {"dropped", s.dropped}});
  }
  j["findings"] = nlohmann::json::array();
  j["dropped"] = nlohmann::json::array();
  for (const AgentFindingRecord& r : out.findings) {
    const AgentFinding& f = r.checked.finding;
    nlohmann::json e = {{"stage", r.stage},
                        {"kernel", r.kernel},
                        {"model", r.model},
                        {"request_id", r.request_id},
                        {"report_file", r.report_file},
                        {"file", f.file},
                        {"line", f.line},
                        {"end_line", f.end_line},
                        {"side", f.side},
                        {"item", f.item},
                        {"severity", AgentSeverityName(f.severity)},
                        {"claim", f.claim},
                        {"evidence", f.evidence},
                        {"command", f.command}};
    if (!f.failure_class.empty()) e["failure_class"] = f.failure_class;
    if (!r.checked.command_decision.empty()) e["command_decision"] = r.checked.command_decision;
    if (!r.checked.command_dropped.empty()) {
      e["command_dropped"] = r.checked.command_dropped;
      e["command_reason"] = r.checked.command_reason;
    }
    if (r.checked.drop == DropReason::kKept) {
      j["findings"].push_back(std::move(e));
    } else {
      e["reason"] = std::string(DropReasonName(r.checked.drop));
      e["why"] = r.checked.why;
      j["dropped"].push_back(std::move(e));
    }
  }
  j["dropped_by_reason"] = out.dropped_by_reason;
  j["failure_classes"] = FailureClassCounts(out);
  j["checks"] = nlohmann::json::array();
  for (const AgentCheckRecord& c : out.checks) {
    j["checks"].push_back({{"item", c.check.item},
                           {"status", AgentCheckStatusName(c.check.status)},
                           {"needs", c.check.needs},
                           {"command", c.check.command},
                           {"stage", c.stage},
                           {"report_file", c.report_file}});
  }
  return j;
}

std::string AgentSummaryMarkdown(const AgentRunOutcome& out) {
  std::string md = "# Agent review\n\n";
  md += "Provider " + out.provider + ", model " + out.model + ". Suggested commands decided by " +
        out.policy_source + ".\n";
  md += out.failed ? "\n**A stage failed**: its findings are missing from this review.\n" : "";
  md += "\nThe agent raises questions; local commands give the facts; the report decides.\n\n";
  md +=
      "## Rounds\n\n| # | stage | kernel | status | kept | dropped | input | output | answer |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const AgentRoundRecord& s : out.stages) {
    std::string status = AgentRoundStatusName(s.status) + (s.reason.empty() ? "" : ": " + s.reason);
    md += "| " + (s.n > 0 ? std::to_string(s.n) : std::string("-")) + " | " + s.stage + " | " +
          (s.kernel.empty() ? "-" : s.kernel + (s.part > 0 ? "." + std::to_string(s.part) : "")) +
          " | " + Cell(status) + " | " + std::to_string(s.kept) + " | " +
          std::to_string(s.dropped) + " | " + std::to_string(s.input_tokens) + " | " +
          std::to_string(s.output_tokens) + " | " + (s.report_file.empty() ? "-" : s.report_file) +
          " |\n";
  }
  std::vector<Finding> kept = AgentFindingsAsReview(out);
  md += "\n## Findings (" + std::to_string(kept.size()) + ", held to evidence)\n\n";
  md += kept.empty() ? "None.\n" : FindingsToMarkdown(kept);
  if (std::map<std::string, int> classes = FailureClassCounts(out); !classes.empty()) {
    md += "\n## Failures by class (test_log findings kept)\n\n| class | findings |\n|---|---|\n";
    for (const auto& [c, n] : classes) md += "| " + c + " | " + std::to_string(n) + " |\n";
  }
  std::string commands = CommandsTable(out.findings);
  if (!commands.empty()) md += "\n## Commands not allowed (findings kept)\n\n" + commands;
  if (!out.checks.empty()) md += "\n## Checks\n\n" + ChecksTable(out.checks, true);
  int dropped = 0;
  for (const auto& [reason, n] : out.dropped_by_reason) dropped += n;
  md += "\n## Appendix: conclusions dropped (" + std::to_string(dropped) + ")\n\n";
  if (dropped == 0) {
    md += "None.\n";
  } else {
    for (const auto& [reason, n] : out.dropped_by_reason) {
      md += "- " + reason + ": " + std::to_string(n) + "\n";
    }
    md += "\n" + DroppedTable(out.findings, true);
  }
  return md;
}

Status WriteAgentSummary(const std::string& package_dir, const std::string& reports_dir,
                         const std::string& summary_json, const AgentRunOutcome& out,
                         const RedactionContext& ctx) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const std::string& rel : {reports_dir + "/agent_review.md", summary_json}) {
    fs::create_directories(fs::path(package_dir + "/" + rel).parent_path(), ec);
  }
  AV_RETURN_IF_ERROR(WriteFileAtomically(package_dir + "/" + reports_dir + "/agent_review.md",
                                         RedactedText(AgentSummaryMarkdown(out), ctx)));
  return WriteFileAtomically(
      package_dir + "/" + summary_json,
      RedactedText(
          AgentSummaryJson(out).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
              "\n",
          ctx));
}

}  // namespace av
