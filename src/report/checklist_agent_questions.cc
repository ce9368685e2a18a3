// The agent's surviving findings in the checklist: each is listed under the item it names
// (1-7, else 8) with its stage, model, ledger row and command (with the policy's decision
// and, when `attnverify agent run-commands` ran it, its log and exit status). A finding is a
// question: it never makes a check PASS or FAIL. A high-severity one is open until its
// command ran and exited 0; while one is open, N.agent_questions is MISSING (required when
// item N is), so it can hold the verdict at incomplete but never reject (doc/report.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/sha256.h"
#include "core/shell_quote.h"
#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAgentReview = "evidence/agent_review.json";
constexpr const char* kLedger = "evidence/token_ledger.csv";
constexpr size_t kMaxHeader = 64 << 10;  // of a command log: its header is the first lines

// A package file that is a regular file (not a link: the package is hostile), else nullopt.
std::optional<std::string> ReadRegular(const std::string& dir, const std::string& rel, size_t cap) {
  std::error_code ec;
  fs::path p = fs::path(dir) / rel;
  if (!fs::is_regular_file(fs::symlink_status(p, ec))) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(cap, '\0');
  in.read(text.data(), static_cast<std::streamsize>(cap));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// The fields of one CSV line (the ledger quotes fields holding ',' or '"').
std::vector<std::string> CsvFields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// report_file -> "evidence/token_ledger.csv:LINE" of the last row that cites it (the
// attempt that gave the answer; retries by error type come before it).
std::map<std::string, std::string> LedgerRows(const std::string& dir) {
  std::map<std::string, std::string> rows;
  std::optional<std::string> text = ReadRegular(dir, kLedger, 64 << 20);
  if (!text) return rows;
  int column = -1;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text->size();) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    std::vector<std::string> f = CsvFields(std::string_view(*text).substr(pos, end - pos));
    ++line_no;
    pos = end + 1;
    if (line_no == 1) {
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "report_file") column = static_cast<int>(i);
      }
      if (column < 0) return rows;  // not a ledger
      continue;
    }
    if (static_cast<int>(f.size()) > column && !f[column].empty()) {
      rows[f[column]] = std::string(kLedger) + ":" + std::to_string(line_no);
    }
  }
  return rows;
}

struct CommandLog {
  std::string file, status;
};

// command -> the logs/agent-cmd-NN.log run-commands wrote for it (its header's command and
// status lines).
std::map<std::string, CommandLog> CommandLogs(const std::string& dir) {
  std::map<std::string, CommandLog> logs;
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "logs", ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("agent-cmd-", 0) == 0 && e.path().extension() == ".log") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::optional<std::string> text = ReadRegular(dir, "logs/" + name, kMaxHeader);
    if (!text || text->rfind("# attnverify agent run-commands\n", 0) != 0) continue;
    std::string command, status;
    size_t pos = 0;
    for (int line = 0; line < 5 && pos < text->size(); ++line) {
      size_t end = text->find('\n', pos);
      if (end == std::string::npos) break;
      std::string_view l = std::string_view(*text).substr(pos, end - pos);
      if (l.starts_with("# command: ")) command = l.substr(11);
      if (l.starts_with("# status: ")) status = l.substr(10);
      pos = end + 1;
    }
    if (!command.empty() && !status.empty()) logs[command] = {"logs/" + name, status};
  }
  return logs;
}

std::string Str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t Int(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string PlaceOf(const nlohmann::json& f) {
  std::string s = Str(f, "file");
  int64_t line = Int(f, "line"), end = Int(f, "end_line");
  if (s.empty()) return "";
  if (line > 0) s += ":" + std::to_string(line);
  if (end > line && line > 0) s += "-" + std::to_string(end);
  if (Str(f, "side") == "old") s += " (old side)";
  return s;
}

// Open or not, and the line that says why.
void Resolve(const std::string& waive_id, const std::string& run_commands, AgentQuestion* q) {
  const bool ran = !q->command_status.empty();
  if (ran && q->command_status == "exit 0") {
    q->resolution = "answered: its command ran and exited 0 (" + q->command_log + ")";
    return;
  }
  if (q->severity != Severity::kError) return;  // medium and low ones are listed, never held open
  q->open = true;
  std::string how;
  if (ran) {
    how = "its command ran: " + q->command_status + " (" + q->command_log + ")";
  } else if (q->command.empty()) {
    how = "the agent named no command";
  } else if (q->command_decision == "allow" || q->command_decision.empty()) {
    how = "its command has not run yet: " + run_commands;
  } else {
    how = "its command is not allowed (" + q->command_decision +
          (q->command_reason.empty() ? "" : ": " + q->command_reason) + ")";
  }
  q->resolution = "open: " + how + "; answer it with local evidence, or waive " + waive_id +
                  " in [policy] with the reason";
}

}  // namespace

int AgentQuestionItem(const AgentQuestion& q) { return q.item >= 1 && q.item <= 7 ? q.item : 8; }

void LoadAgentQuestions(Context* ctx) {
  const std::string& dir = ctx->cfg.package_dir;
  if (dir.empty()) return;
  Result<std::string> text = ReadFileToString(dir + "/" + kAgentReview);
  if (!text.ok()) return;
  ctx->agent_text = *text;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "attnverify.agent_review/1" ||
      !j.contains("findings") || !j["findings"].is_array()) {
    return;
  }
  const std::map<std::string, std::string> ledger = LedgerRows(dir);
  const std::map<std::string, CommandLog> logs = CommandLogs(dir);
  const std::string run_commands =
      "attnverify agent run-commands --config " + ShellQuote(ctx->cfg.path) + " --yes";
  for (const nlohmann::json& f : j["findings"]) {
    if (!f.is_object()) continue;
    AgentQuestion q;
    char id[16];
    std::snprintf(id, sizeof(id), "A%03zu", ctx->agent_questions.size() + 1);
    q.id = id;
    q.item = static_cast<int>(std::clamp<int64_t>(Int(f, "item"), 0, 99));
    q.severity = ParseAgentSeverity(Str(f, "severity"));
    q.claim = Str(f, "claim");
    q.place = PlaceOf(f);
    q.evidence = Str(f, "evidence");
    q.stage = Str(f, "stage");
    q.kernel = Str(f, "kernel");
    q.model = Str(f, "model");
    q.request_id = Str(f, "request_id");
    q.report_file = Str(f, "report_file");
    if (auto it = ledger.find(q.report_file); !q.report_file.empty() && it != ledger.end())
      q.ledger_row = it->second;
    q.command = Str(f, "command");
    if (q.command.empty()) q.command = Str(f, "command_dropped");
    q.command_decision = Str(f, "command_decision");
    q.command_reason = Str(f, "command_reason");
    // Only an allowed command runs (run-commands decides again); a log of it answers.
    if (auto it = logs.find(q.command); !q.command.empty() && it != logs.end()) {
      q.command_log = it->second.file;
      q.command_status = it->second.status;
    }
    const std::string waive_id = std::to_string(AgentQuestionItem(q)) + ".agent_questions";
    Resolve(waive_id, run_commands, &q);
    ctx->agent_questions.push_back(std::move(q));
  }
}

std::optional<Check> JudgeAgentQuestions(const Context& ctx, const CheckDef& def) {
  std::vector<const AgentQuestion*> open;
  for (const AgentQuestion& q : ctx.agent_questions) {
    if (q.open && AgentQuestionItem(q) == def.item) open.push_back(&q);
  }
  if (open.empty()) return std::nullopt;  // nothing held open: the item's checks decide
  std::string ids;
  for (const AgentQuestion* q : open) ids += (ids.empty() ? "" : ", ") + q->id;
  Check c =
      Missing(def,
              Plural(open.size(), "high-severity agent question",
                     "high-severity agent "
                     "questions") +
                  " on this item " + (open.size() == 1 ? "is" : "are") + " open (" + ids +
                  "): a question is not evidence either way; the local command it names "
                  "answers it",
              "attnverify agent run-commands --config " + ShellQuote(ctx.cfg.path) + " --yes");
  for (const AgentQuestion* q : open) {
    c.details.push_back(q->id + " " + (q->place.empty() ? "(no place)" : q->place) + ": " +
                        q->claim.substr(0, q->claim.find('\n')) + " — " + q->resolution);
  }
  if (ctx.agent_text) {
    EvidenceFile f;
    f.path = kAgentReview;
    f.sha256 = Sha256Hex(*ctx.agent_text);
    f.command = "attnverify agent --config " + ShellQuote(ctx.cfg.path);
    for (const AgentQuestion* q : open) c.citations.push_back(Cite(f, q->id));
  }
  return c;
}

}  // namespace av::checklist
