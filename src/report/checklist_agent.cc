// 8.agent_review: whether the agent reviewer ran (evidence/agent_review.json, doc/agent.md)
// and what it left: rounds, findings kept, conclusions dropped per reason. Not required
// unless [policy] require_agent_review = true: the agent raises questions, the other checks
// decide; absent, it is MISSING with the command and (from evidence/run.json) the variable
// to export.
#include <nlohmann/json.hpp>

#include "core/sha256.h"
#include "core/shell_quote.h"
#include "report/checklist_internal.h"

namespace av::checklist {

std::optional<Check> JudgeAgentReview(const Context& ctx, const CheckDef& def) {
  const std::string rel = "evidence/agent_review.json";
  const std::string agent_cmd =
      "attnverify agent --config " + ShellQuote(DisplayConfig(ctx.ev, ctx.cfg));
  const std::optional<std::string>& text = ctx.agent_text;  // LoadAgentQuestions read it
  const bool required = ctx.cfg.require_agent_review;
  const std::string not_required =
      required ? "; required by [policy] require_agent_review" : "; not required";
  Check c;
  if (!text) {
    // run.json says why when the run planned the stage ([review] reviewer = agent | both).
    const bool planned = ctx.ev.run && ctx.ev.run->Stage("agent") != nullptr;
    std::string note = planned ? StageNote(ctx, "agent") : "";
    c = Missing(def,
                "no agent review" +
                    (note.empty() ? std::string(" (evidence/agent_review.json)") : ": " + note) +
                    not_required,
                agent_cmd);
    c.required = required;
    return c;
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "attnverify.agent_review/1") {
    c = Missing(def, rel + " is not an attnverify.agent_review/1 file" + not_required, agent_cmd);
    c.required = required;
    return c;
  }
  EvidenceFile f;
  f.path = rel;
  f.sha256 = Sha256Hex(*text);
  f.command = agent_cmd;
  size_t kept = j.contains("findings") && j["findings"].is_array() ? j["findings"].size() : 0;
  int dropped = 0;
  std::string reasons;
  if (j.contains("dropped_by_reason") && j["dropped_by_reason"].is_object()) {
    for (const auto& [reason, n] : j["dropped_by_reason"].items()) {
      if (!n.is_number_integer()) continue;
      dropped += n.get<int>();
      reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(n.get<int>());
    }
  }
  std::vector<std::string> failed;
  size_t rounds = 0;
  if (j.contains("stages") && j["stages"].is_array()) {
    for (const nlohmann::json& s : j["stages"]) {
      if (!s.is_object()) continue;
      rounds += s.value("n", 0) > 0;
      if (s.value("status", "") == "failed" || s.value("status", "") == "not_run") {
        failed.push_back(s.value("stage", "?") + ": " + s.value("reason", ""));
      }
    }
  }
  std::string summary = "model " + j.value("model", "?") + ", " + std::to_string(rounds) +
                        " requests: " + std::to_string(kept) + " findings held to evidence, " +
                        std::to_string(dropped) + " conclusions dropped" +
                        (reasons.empty() ? "" : " (" + reasons + ")");
  if (!failed.empty()) {
    c = Missing(def,
                "a stage of the agent review failed: " + failed[0] + "; " + summary + not_required,
                agent_cmd);
    c.details = failed;
  } else {
    c = MakeCheck(def, CheckStatus::kPass, summary + " (reports/agent_review.md)");
  }
  c.required = required;
  c.citations.push_back(Cite(f));
  return c;
}

}  // namespace av::checklist
