#include "agent/agent_compare.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "agent/agent_package.h"
#include "core/file.h"
#include "core/sha256.h"
#include "llm/redact.h"

namespace av {
namespace {

std::string SafeName(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    out += ok ? c : '_';
  }
  return out.empty() ? "model" : out.substr(0, 64);
}

std::vector<const AgentFindingRecord*> Kept(const AgentRunOutcome& run) {
  std::vector<const AgentFindingRecord*> out;
  for (const AgentFindingRecord& r : run.findings) {
    if (r.checked.drop == DropReason::kKept) out.push_back(&r);
  }
  return out;
}

// "case X failed", "item 3 is FAIL in reports/acceptance.json", or "" when unconfirmed.
std::string Confirmation(const AgentFinding& f, const AgentPackage& p,
                         const std::map<int, std::string>& item_status) {
  size_t hash = f.evidence.find('#');
  if (hash != std::string::npos) {
    std::string id = f.evidence.substr(hash + 1);
    for (const FailingCase& c : p.failing_cases) {
      if (c.id == id) return "case " + id + " " + c.verdict + "s";
    }
  }
  auto it = item_status.find(f.item);
  if (it != item_status.end() && it->second == "FAIL") {
    return "item " + std::to_string(f.item) + " is FAIL in reports/acceptance.json";
  }
  return "";
}

std::string Cell(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '|') c = ' ';
  }
  return s;
}

std::string Place(const AgentFinding& f) {
  if (f.file.empty()) return "-";
  std::string s = f.file;
  if (f.line > 0) s += ":" + std::to_string(f.line);
  if (f.end_line > f.line) s += "-" + std::to_string(f.end_line);
  return s;
}

std::string Row(const std::string& who, const AgentFindingRecord& r, const std::string& confirmed) {
  const AgentFinding& f = r.checked.finding;
  return "| " + who + " | " + std::to_string(f.item) + " | " + Cell(Place(f)) + " | " +
         Cell(f.claim) + " | " + r.stage + " | " +
         (confirmed.empty() ? "no" : "yes: " + confirmed) + " |\n";
}

// Files a report reads that the agent's own runs rewrite: their digests in acceptance.json
// say nothing about whether its item statuses still hold.
bool AgentOwned(const std::string& path) {
  return path == "evidence/run.json" || path == "evidence/agent_review.json" ||
         path == "evidence/token_ledger.csv";
}

}  // namespace

AcceptanceBinding BindAcceptance(const AgentPackage& package) {
  AcceptanceBinding b;
  const std::string rel = "reports/acceptance.json";
  Result<std::string> acc = ReadPackageFile(package.package_dir, rel);
  if (!acc.ok()) {
    b.note = "no " + rel + ": no finding is confirmed by a checklist item (run attnverify report)";
    return b;
  }
  const std::string short_sha = Sha256Hex(*acc).substr(0, 12);
  nlohmann::json j = nlohmann::json::parse(*acc, nullptr, false);
  if (!j.is_object() || !j.contains("evidence") || !j["evidence"].is_array()) {
    b.note = rel + " (sha256 " + short_sha +
             ") is not a report attnverify wrote (no evidence[] digests): its items confirm "
             "nothing";
    return b;
  }
  std::set<std::string> runs;
  int bound = 0;
  for (const nlohmann::json& e : j["evidence"]) {
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string()) continue;
    if (e.contains("used") && e["used"].is_boolean() && !e["used"].get<bool>()) continue;
    const std::string path = e["path"].get<std::string>();
    if (AgentOwned(path)) continue;
    const std::string want = e.value("sha256", "");
    Result<std::string> now = ReadPackageFile(package.package_dir, path);
    std::string why;
    if (!now.ok()) {
      why = path + " is gone";
    } else if (Sha256Hex(*now) != want) {
      why = path + " changed since (sha256 " + Sha256Hex(*now).substr(0, 12) + " now, " +
            want.substr(0, 12) + " in the report)";
    }
    if (!why.empty()) {
      b.note = rel + " (sha256 " + short_sha + ") is stale: " + why +
               "; its items confirm nothing (run attnverify report, then compare again)";
      return b;
    }
    ++bound;
    if (e.contains("run_id") && e["run_id"].is_string()) runs.insert(e["run_id"].get<std::string>());
  }
  if (bound == 0) {
    b.note = rel + " (sha256 " + short_sha + ") names no evidence file: its items confirm nothing";
    return b;
  }
  b.current = true;
  std::string run_list;
  for (const std::string& r : runs) run_list += (run_list.empty() ? "" : ", ") + r;
  b.note = rel + " (sha256 " + short_sha + ") is current: the " + std::to_string(bound) +
           " evidence file(s) it judged are unchanged" +
           (run_list.empty() ? "" : " (run " + run_list + ")");
  for (const nlohmann::json& it : j.value("items", nlohmann::json::array())) {
    if (it.is_object() && it.contains("number") && it["number"].is_number_integer()) {
      b.item_status[it["number"].get<int>()] = it.value("status", "");
    }
  }
  return b;
}

bool SameFinding(const AgentFinding& a, const AgentFinding& b) {
  if (a.item != b.item || a.file != b.file) return false;
  if (a.line == 0 || b.line == 0) return a.line == b.line;
  return a.line <= b.end_line && b.line <= a.end_line;
}

Result<AgentCompareOutcome> RunAgentCompare(const AgentCompareOptions& o) {
  if (o.models.size() != 2) return InvalidInput("agent compare: --models takes two models: A,B");
  if (o.models[0] == o.models[1]) {
    return InvalidInput("agent compare: the two models are the same (" + o.models[0] + ")");
  }
  AgentCompareOutcome out;
  for (const std::string& model : o.models) {
    AgentRunOptions ro;
    ro.config_path = o.config_path;
    ro.stages = o.stages;
    ro.model = model;
    ro.transport = o.transport;
    ro.replay = o.replay;
    ro.environment = o.environment;
    ro.sleep = o.sleep;
    ro.reports_dir = "reports/agent_compare/" + SafeName(model);
    ro.summary_json = ro.reports_dir + "/agent_review.json";
    AV_ASSIGN_OR_RETURN(AgentRunOutcome run, RunAgentReview(ro));
    out.runs.push_back(std::move(run));
  }
  AV_ASSIGN_OR_RETURN(AgentPackage package, LoadAgentPackage(o.config_path));
  AcceptanceBinding binding = BindAcceptance(package);
  out.acceptance = binding.note;
  out.acceptance_current = binding.current;
  const std::map<int, std::string>& item_status = binding.item_status;
  const AgentRunOutcome& a = out.runs[0];
  const AgentRunOutcome& b = out.runs[1];
  std::vector<const AgentFindingRecord*> ka = Kept(a), kb = Kept(b);
  std::vector<bool> b_matched(kb.size(), false);
  std::string both, only_a, only_b;
  int confirmed_a = 0, confirmed_b = 0;
  for (const AgentFindingRecord* fa : ka) {
    std::string conf = Confirmation(fa->checked.finding, package, item_status);
    confirmed_a += !conf.empty();
    bool found = false;
    for (size_t i = 0; i < kb.size(); ++i) {
      if (!b_matched[i] && SameFinding(fa->checked.finding, kb[i]->checked.finding)) {
        b_matched[i] = true;
        found = true;
        confirmed_b += !conf.empty();
        both += Row(o.models[0] + " + " + o.models[1], *fa, conf);
        ++out.matched;
        break;
      }
    }
    if (!found) {
      only_a += Row(o.models[0], *fa, conf);
      ++out.only_a;
    }
  }
  for (size_t i = 0; i < kb.size(); ++i) {
    if (b_matched[i]) continue;
    std::string conf = Confirmation(kb[i]->checked.finding, package, item_status);
    confirmed_b += !conf.empty();
    only_b += Row(o.models[1], *kb[i], conf);
    ++out.only_b;
  }
  std::string md = "# Agent compare: " + o.models[0] + " against " + o.models[1] + "\n\n";
  md +=
      "The same rounds over the same package. Findings held to evidence first; matched by "
      "file, overlapping lines and item; \"confirmed\" when the package's evidence agrees (the "
      "failing case cited, or a FAIL item in reports/acceptance.json). Detection power, not "
      "length.\n\n";
  md += "Checklist items read from " + out.acceptance + ".\n\n";
  md +=
      "| model | kept | dropped | confirmed | requests | input tokens | output tokens | failed |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (size_t m = 0; m < 2; ++m) {
    const AgentRunOutcome& run = out.runs[m];
    int64_t in = 0, outt = 0;
    int requests = 0, dropped = 0;
    for (const AgentRoundRecord& s : run.stages) {
      in += s.input_tokens;
      outt += s.output_tokens;
      requests += s.n > 0;
    }
    for (const auto& [reason, n] : run.dropped_by_reason) dropped += n;
    md += "| " + o.models[m] + " (" + run.model + ") | " +
          std::to_string(m == 0 ? ka.size() : kb.size()) + " | " + std::to_string(dropped) + " | " +
          std::to_string(m == 0 ? confirmed_a : confirmed_b) + " | " + std::to_string(requests) +
          " | " + std::to_string(in) + " | " + std::to_string(outt) + " | " +
          (run.failed ? "yes" : "no") + " |\n";
  }
  const std::string header =
      "| found by | item | place | claim | stage | confirmed |\n"
      "|---|---|---|---|---|---|\n";
  md += "\n## Found by both (" + std::to_string(out.matched) + ")\n\n" +
        (both.empty() ? "None.\n" : header + both);
  md += "\n## Only " + o.models[0] + " (" + std::to_string(out.only_a) + ")\n\n" +
        (only_a.empty() ? "None.\n" : header + only_a);
  md += "\n## Only " + o.models[1] + " (" + std::to_string(out.only_b) + ")\n\n" +
        (only_b.empty() ? "None.\n" : header + only_b);
  md +=
      "\nEach run's rounds, answers and dropped conclusions: reports/agent_compare/<model>/"
      "agent_review.md. Tokens and cost per request: evidence/token_ledger.csv "
      "(`attnverify ledger --by model`).\n";
  out.report_file = "reports/agent_compare.md";
  RedactionContext ctx = RedactionContext::FromProcessEnvironment();
  AV_RETURN_IF_ERROR(
      WriteFileAtomically(package.package_dir + "/" + out.report_file, RedactedText(md, ctx)));
  return out;
}

}  // namespace av
