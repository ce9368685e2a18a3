// acceptance.md: verdict line, the eight-item table, then per item its checks with
// citations, the reviewer's findings and, for MISSING checks, the command in a code block.
#include "report/report_writers.h"

#include "core/markup.h"
#include "core/utf8.h"

namespace av {
namespace {

std::string Cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string Short(const std::string& sha) { return sha.size() > 12 ? sha.substr(0, 12) : sha; }

std::string StatusWord(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass:
      return "PASS";
    case CheckStatus::kFail:
      return "**FAIL**";
    case CheckStatus::kMissing:
      return "*MISSING*";
    case CheckStatus::kNotApplicable:
      return "N/A";
  }
  return "?";
}

std::string Location(const Finding& f) {
  std::string loc = f.file.empty() ? "(no file)" : f.file;
  if (f.line > 0) {
    loc += ':';
    loc += std::to_string(f.line);
    if (f.end_line > f.line) {
      loc += '-';
      loc += std::to_string(f.end_line);
    }
  }
  return loc;
}

}  // namespace

std::string AgentSource(const AgentQuestion& q) {
  std::string s = "agent stage " + (q.stage.empty() ? "?" : q.stage);
  if (!q.kernel.empty()) s += " (" + q.kernel + ")";
  s += ", model " + (q.model.empty() ? std::string("?") : q.model) + ", ledger row " +
       (q.ledger_row.empty() ? std::string("(not found)") : q.ledger_row) + " (request " +
       (q.request_id.empty() ? std::string("-") : q.request_id) + ", " +
       (q.report_file.empty() ? std::string("-") : q.report_file) + ")";
  if (!q.evidence.empty()) s += ", cites " + q.evidence;
  return s;
}

std::string AgentVerify(const AgentQuestion& q, const std::string& quote) {
  if (q.command.empty()) return "(none given)";
  std::string s = quote + q.command + quote + " (policy: " +
                  (q.command_decision.empty() ? std::string("not decided") : q.command_decision);
  if (!q.command_reason.empty() && q.command_decision != "allow") s += ", " + q.command_reason;
  s += q.command_status.empty() ? "; not run" : "; ran: " + q.command_status + ", " + q.command_log;
  return s + ")";
}

std::string WriteAcceptanceMarkdown(const ChecklistReport& r) {
  // The [report] title comes from a file the reviewed repository may have written: text,
  // never HTML a Markdown renderer would pass through (its control characters shown first,
  // which EscapeMarkup would turn into '?').
  std::string out = "# " + EscapeMarkup(ShowControlCharacters(r.title)) + "\n\n";
  std::string verdict = ReportVerdictName(r.verdict);
  for (char& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out += "**Verdict: " + verdict + "** — " + r.verdict_reason + "\n\n";
  for (const std::string& w : r.warnings) out += "> warning: " + w + "\n\n";
  std::string required;
  for (int n : r.required) required += (required.empty() ? "" : ", ") + std::to_string(n);
  out += "Config `" + r.config + "` · attnverify " + r.tool_version +
         " · required items: " + required + "\n\n";
  out += "| # | item | status | reason |\n|---|---|---|---|\n";
  for (const ItemResult& item : r.items) {
    out += "| " + std::to_string(item.number) + " | " + item.title +
           (item.required ? "" : " (not required)") + " | " + StatusWord(item.status) + " | " +
           Cell(item.reason) + " |\n";
  }
  out += PerfTableMarkdown(r);
  for (const ItemResult& item : r.items) {
    out += "\n## " + std::to_string(item.number) + ". " + item.title + " — " +
           CheckStatusName(item.status) + (item.required ? "" : " (not required)") + "\n\n";
    for (const std::string& run : item.evidence_runs) out += "Evidence from " + run + "\n\n";
    for (const std::string& note : item.notes) out += "> " + note + "\n\n";
    for (const Check& c : item.checks) {
      out += "- " + StatusWord(c.status) + " `" + c.id + "` " + c.title;
      if (!c.waiver.empty())
        out += " (waived: " + c.waiver + ")";
      else if (!c.required)
        out += " (optional)";
      out += ": " + c.summary + "\n";
      for (const std::string& d : c.details) out += "  - " + d + "\n";
      // Citations of one file (same digest and command) share a line: "evidence: `f`
      // (sha256 `...`), from `cmd`: `case a`, `case b`".
      for (size_t i = 0; i < c.citations.size();) {
        const Citation& cite = c.citations[i];
        std::string subjects;
        size_t j = i;
        for (; j < c.citations.size() && c.citations[j].file == cite.file &&
               c.citations[j].sha256 == cite.sha256 && c.citations[j].command == cite.command;
             ++j) {
          if (!c.citations[j].subject.empty())
            subjects += (subjects.empty() ? "`" : ", `") + c.citations[j].subject + "`";
        }
        out += "  - evidence: `";
        out += cite.file;
        out += "` (sha256 `";
        out += Short(cite.sha256);
        out += "`)";
        if (!cite.command.empty()) out += ", from `" + cite.command + "`";
        if (!subjects.empty()) out += ": " + subjects;
        out += "\n";
        i = j;
      }
      if (!c.missing_command.empty())
        out += "\n  ```\n  " + [&] {
          std::string cmd;
          for (char ch : c.missing_command)
            cmd += ch == '\n' ? std::string("\n  ") : std::string(1, ch);
          return cmd;
        }() + "\n  ```\n\n";
    }
    if (!item.findings.empty()) {
      out += "\nReview findings (questions this item answers):\n\n";
      for (const Finding& f : item.findings) {
        out += "- `" + f.id + "` " + SeverityName(f.severity) + " `" + f.rule + "` " + Location(f) +
               " — " + (f.title.empty() ? "" : f.title + ": ") + f.message + "\n";
        out += "  verify: ";
        if (f.has_verify()) {
          out += '`';
          out += f.VerifyLine();
          out += '`';
        } else {
          out += "(none given)";
        }
        out += '\n';
      }
    }
    if (!item.agent_findings.empty()) {
      out +=
          "\nAgent findings (the agent reviewer's questions on this item; they pass and fail "
          "nothing):\n\n";
      for (const AgentQuestion& q : item.agent_findings) {
        out += "- `" + q.id + "` " + AgentSeverityWord(q.severity) + (q.open ? " **open**" : "") +
               " " + (q.place.empty() ? std::string("(no place)") : q.place) + " — " +
               Cell(q.claim) + "\n  from: " + AgentSource(q) +
               "\n  verify: " + AgentVerify(q, "`") + "\n";
        if (!q.resolution.empty()) out += "  " + Cell(q.resolution) + "\n";
      }
    }
  }
  out += "\n## Evidence files\n\n| file | sha256 | run | command |\n|---|---|---|---|\n";
  for (const EvidenceFile& f : r.evidence) {
    std::string run = f.run_id;
    if (!f.refused.empty()) run = std::string("**not used**: ").append(f.refused);
    out += "| `" + f.path + "` | `" + Short(f.sha256) + "` | " + Cell(run) + " | ";
    if (!f.command.empty()) {
      out += '`';
      out += Cell(f.command);
      out += '`';
    }
    out += " |\n";
  }
  if (r.evidence.empty()) out += "| (none) | | | |\n";
  // Kernel names, case ids, messages and the title come from files under review.
  return ShowControlCharacters(out);
}

std::string FormatVerdictTable(const ChecklistReport& r) {
  std::string out;
  for (const ItemResult& item : r.items) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%d %-28s %-8s", item.number, item.title.c_str(),
                  CheckStatusName(item.status));
    std::string reason =
        item.reason.size() > 110 ? item.reason.substr(0, 107) + "..." : item.reason;
    out += std::string(buf) + (item.required ? "" : "(not required) ") + reason + "\n";
  }
  std::string verdict = ReportVerdictName(r.verdict);
  for (char& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out += "\nverdict: " + verdict + " (" + r.verdict_reason + ")\n";
  return ShowControlCharacters(out);
}

}  // namespace av
