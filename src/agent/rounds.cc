#include "agent/rounds.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "agent/perf_context.h"
#include "llm/provider_client.h"

namespace av {
namespace {

// The smallest text budget a plan is cut to; a prompt that leaves less is over budget
// however little is sent (the client then refuses it, naming the limit).
constexpr size_t kMinBudgetBytes = 768;

std::string Num(int64_t n) { return n > 0 ? std::to_string(n) : ""; }

// One diff line as the model sees it: old and new numbers, sign, text.
std::string RenderLine(const DiffLine& l) {
  char sign = l.kind == DiffLineKind::kAdd ? '+' : l.kind == DiffLineKind::kDelete ? '-' : ' ';
  char head[48];
  std::snprintf(head, sizeof(head), "%6s %6s %c", Num(l.old_line).c_str(), Num(l.new_line).c_str(),
                sign);
  return std::string(head) + l.text + "\n";
}

struct HunkRef {
  const FileDiff* file;
  const Hunk* hunk;
};

// Renders hunks (changed lines only when `changed_only`) into `out` and records them in
// `ctx`; stops before passing `budget_bytes`, returning how many lines were cut.
int64_t RenderHunks(const std::vector<HunkRef>& hunks, bool changed_only, size_t budget_bytes,
                    std::string* out, RequestContext* ctx) {
  int64_t cut = 0;
  const FileDiff* current = nullptr;
  for (const HunkRef& h : hunks) {
    const std::string& path = h.file->path();
    std::string head;
    if (h.file != current) {
      head = "=== " + path + " (" + std::string(FileStatusName(h.file->status)) + ")\n";
    }
    head += "@@ -" + std::to_string(h.hunk->old_start) + "," + std::to_string(h.hunk->old_count) +
            " +" + std::to_string(h.hunk->new_start) + "," + std::to_string(h.hunk->new_count) +
            " @@ " + h.hunk->section + "\n";
    if (out->size() + head.size() > budget_bytes) {
      // Not even the hunk's header fits: its lines are cut with it.
      for (const DiffLine& l : h.hunk->lines) cut += !(changed_only && l.kind == DiffLineKind::kContext);
      continue;
    }
    current = h.file;
    *out += head;
    ctx->numbers.Add(h.hunk->section);
    for (const DiffLine& l : h.hunk->lines) {
      if (changed_only && l.kind == DiffLineKind::kContext) continue;
      std::string line = RenderLine(l);
      if (out->size() + line.size() > budget_bytes) {
        ++cut;
        continue;
      }
      *out += line;
      ctx->had_diff = true;
      if (l.new_line > 0) ctx->new_lines[path].insert(l.new_line);
      if (l.old_line > 0) {
        // A deleted or renamed file may be cited by its old path on the old side.
        ctx->old_lines[path].insert(l.old_line);
        if (!h.file->old_path.empty()) ctx->old_lines[h.file->old_path].insert(l.old_line);
      }
      ctx->numbers.Add(l.text);
    }
  }
  return cut;
}

// Consecutive hunks of one file with the same function context stay together.
std::vector<std::vector<HunkRef>> HunkGroups(const Diff& diff) {
  std::vector<std::vector<HunkRef>> groups;
  for (const FileDiff& f : diff.files) {
    const std::string* section = nullptr;
    for (const Hunk& h : f.hunks) {
      if (groups.empty() || section == nullptr || *section != h.section ||
          groups.back().back().file != &f) {
        groups.emplace_back();
      }
      groups.back().push_back({&f, &h});
      section = &h.section;
    }
  }
  return groups;
}

size_t GroupBytes(const std::vector<HunkRef>& g) {
  size_t n = 0;
  for (const HunkRef& h : g) {
    for (const DiffLine& l : h.hunk->lines) n += l.text.size() + 16;
    n += h.hunk->section.size() + 48;
  }
  return n;
}

// The first guess of how many bytes of text fit; PlanStage cuts further until every
// request, measured as sent, fits.
size_t FirstBudgetBytes(const RoundInputs& in) {
  int64_t tokens = in.budget_tokens - kRetryReserveTokens - EstimateTokens(in.system);
  return std::max<size_t>(static_cast<size_t>(std::max<int64_t>(tokens, 0)) * 3, kMinBudgetBytes);
}

// "Not sent: docs/a.svg: drawing (.svg); ..." for a component's files a reviewer does not read.
std::string NotSentNote(const PackageDiff& c) {
  if (c.not_sent.empty()) return "";
  std::string out = "Not sent (not what a kernel reviewer reads; not citable):";
  for (const std::string& n : c.not_sent) out += "\n- " + n;
  return out + "\n";
}

AgentRequest NewRequest(const std::string& stage, const RoundInputs& in) {
  AgentRequest r;
  r.stage = stage;
  r.system = in.system;
  r.context.stage = stage;
  return r;
}

AgentStagePlan PlanDiffReview(const RoundInputs& in, size_t budget) {
  AgentStagePlan plan{"diff_review", {}, ""};
  std::string not_sent_only;
  for (const PackageDiff& c : in.package->components) {
    // Whole hunk groups per request, as many as fit.
    std::vector<std::vector<HunkRef>> parts(1);
    size_t bytes = 0;
    for (auto& g : HunkGroups(c.diff)) {
      size_t gb = GroupBytes(g);
      if (!parts.back().empty() && bytes + gb > budget) {
        parts.emplace_back();
        bytes = 0;
      }
      parts.back().insert(parts.back().end(), g.begin(), g.end());
      bytes += gb;
    }
    if (parts.back().empty()) {
      // Binary, mode-only or only files a reviewer does not read: nothing to review.
      if (!c.not_sent.empty()) not_sent_only += (not_sent_only.empty() ? "" : ", ") + c.name;
      continue;
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      AgentRequest r = NewRequest("diff_review", in);
      r.kernel = c.name;
      r.context.kernel = c.name;
      r.part = parts.size() > 1 ? static_cast<int>(i + 1) : 0;
      std::string body;
      int64_t cut = RenderHunks(parts[i], false, budget, &body, &r.context);
      r.user = "Component: " + c.name + " (" + c.path + ")";
      if (r.part > 0) {
        r.user += ", part " + std::to_string(r.part) + " of " + std::to_string(parts.size());
      }
      r.user += "\nColumns: old line, new line, +/-/space, code.\n" + NotSentNote(c) + "\n" + body;
      if (cut > 0) r.user += "[" + std::to_string(cut) + " lines cut: over the request budget]\n";
      plan.requests.push_back(std::move(r));
    }
  }
  if (plan.requests.empty()) {
    plan.skipped = "no component diff with changed lines in diff/";
    if (!not_sent_only.empty()) {
      plan.skipped += " that a kernel reviewer reads (" + not_sent_only +
                      ": documentation, drawings, binary or generated files only)";
    }
  }
  return plan;
}

bool IsErrorLine(std::string_view line) {
  static const char* kWords[] = {"error",
                                 "Error",
                                 "ERROR",
                                 "FAIL",
                                 "fail",
                                 "Traceback",
                                 "mismatch",
                                 "Mismatch",
                                 "assert",
                                 "Assert",
                                 "too much",
                                 "exceeds",
                                 "out of",
                                 "panic",
                                 "Aborted",
                                 "Segmentation",
                                 "undefined reference",
                                 "warning: "};
  for (const char* w : kWords) {
    if (line.find(w) != std::string_view::npos) return true;
  }
  return false;
}

AgentStagePlan PlanTestLog(const RoundInputs& in, size_t budget) {
  AgentStagePlan plan{"test_log", {}, ""};
  const AgentPackage& p = *in.package;
  AgentRequest r = NewRequest("test_log", in);
  std::string body;
  if (!p.failing_cases.empty()) {
    body += "Failing cases of evidence/numerics.json (cite as evidence/numerics.json#<id>):\n";
    for (const FailingCase& f : p.failing_cases) {
      std::string line = "- " + f.id + ": " + f.verdict + ": " + f.reason + "\n";
      for (const std::string& h : f.hints) line += "    hint: " + h + "\n";
      if (body.size() + line.size() > budget / 2) {
        body += "[more failing cases cut: over the request budget]\n";
        break;
      }
      body += line;
      r.context.numbers.Add(f.id + " " + f.reason);
      for (const std::string& h : f.hints) r.context.numbers.Add(h);
    }
  }
  for (const auto& [rel, text] : p.logs) {
    std::set<int64_t> shown;
    std::string windows = ErrorWindows(rel, text, 200, &shown);
    if (windows.empty()) continue;
    if (body.size() + windows.size() > budget) {
      body += "[" + rel + " cut: over the request budget]\n";
      continue;
    }
    body += "\nError windows of " + rel + " (line numbers are the log's):\n" + windows;
    r.context.file_lines[rel] = shown;
    r.context.numbers.Add(windows);
  }
  if (body.empty()) {
    plan.skipped = p.numerics_text ? "no failing case in evidence/numerics.json and no error line "
                                     "in logs/"
                                   : "no evidence/numerics.json and no error line in logs/";
    return plan;
  }
  r.user = std::move(body);
  plan.requests.push_back(std::move(r));
  return plan;
}

AgentStagePlan PlanPerf(const RoundInputs& in, size_t budget) {
  AgentStagePlan plan{"perf", {}, ""};
  const AgentPackage& p = *in.package;
  if (!p.resources_text && !p.perf_text) {
    plan.skipped =
        "no evidence/resources.json (attnverify build writes it) and no evidence/perf.json "
        "(attnverify profile)";
    return plan;
  }
  AgentRequest r = NewRequest("perf", in);
  bool sent = false;
  if (p.resources_text) {
    const std::string& resources = *p.resources_text;
    if (resources.size() > budget) {
      r.user = "[evidence/resources.json not sent: over the request budget (" +
               std::to_string(EstimateTokens(resources)) + " tokens estimated)]\n";
    } else {
      r.user = "evidence/resources.json:\n" + resources + "\n";
      r.context.numbers.Add(resources);
      sent = true;
    }
  }
  if (p.perf_text) {
    // The gates the report applies, in the tool's words: the regression it computed.
    Result<std::string> gates = PerfGateSummary(*p.perf_text, p.config ? &*p.config : nullptr);
    std::string text = gates.ok()
                           ? "\nevidence/perf.json as attnverify's perf gates judge it (cite as "
                             "evidence/perf.json):\n" +
                                 *gates
                           : "\n[evidence/perf.json not read: " + gates.status().message() + "]\n";
    if (r.user.size() + text.size() <= budget) {
      r.user += text;
      if (gates.ok()) r.context.numbers.Add(*gates);
      sent = sent || gates.ok();
    }
    const std::string raw = "\nevidence/perf.json:\n" + *p.perf_text + "\n";
    if (r.user.size() + raw.size() <= budget) {
      r.user += raw;
      r.context.numbers.Add(*p.perf_text);
      sent = true;
    } else {
      r.user += "[evidence/perf.json itself not sent: over the request budget]\n";
    }
  }
  for (const auto& [rel, text] : p.logs) {
    std::string name = rel.substr(5);
    if (name.rfind("ncu", 0) != 0 && name.rfind("nsys", 0) != 0) continue;
    std::string shown_text;
    std::set<int64_t> shown;
    int64_t n = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string::npos) eol = text.size();
      std::string line =
          rel + ":" + std::to_string(++n) + ": " + text.substr(pos, eol - pos) + "\n";
      if (r.user.size() + shown_text.size() + line.size() > budget) break;
      shown_text += line;
      shown.insert(n);
      pos = eol + 1;
    }
    if (shown.empty()) continue;
    r.user += "\n" + shown_text;
    r.context.file_lines[rel] = shown;
    r.context.numbers.Add(shown_text);
  }
  if (!sent) {
    plan.skipped = "evidence/resources.json and evidence/perf.json are over the request budget";
    return plan;
  }
  plan.requests.push_back(std::move(r));
  return plan;
}

AgentStagePlan PlanCrossModule(const RoundInputs& in, size_t budget) {
  AgentStagePlan plan{"cross_module", {}, ""};
  const AgentPackage& p = *in.package;
  if (p.components.size() < 2) {
    plan.skipped = "fewer than two component diffs: nothing crosses modules";
    return plan;
  }
  size_t total = 0;
  for (const PackageDiff& c : p.components) {
    for (auto& g : HunkGroups(c.diff)) total += GroupBytes(g);
  }
  const bool summarise = total > budget;
  AgentRequest r = NewRequest("cross_module", in);
  std::string body;
  int64_t cut = 0;
  for (const PackageDiff& c : p.components) {
    std::vector<HunkRef> all;
    for (auto& g : HunkGroups(c.diff)) all.insert(all.end(), g.begin(), g.end());
    body += "\n##### component " + c.name + " (" + c.path + ")\n" + NotSentNote(c);
    cut += RenderHunks(all, summarise, budget, &body, &r.context);
  }
  r.user = std::string("Every component's diff") +
           (summarise ? ", changed lines only (the whole is over the request budget)" : "") +
           ".\nColumns: old line, new line, +/-/space, code.\n" + body;
  if (cut > 0) r.user += "[" + std::to_string(cut) + " lines cut: over the request budget]\n";
  plan.requests.push_back(std::move(r));
  return plan;
}

AgentStagePlan PlanFinal(const RoundInputs& in, size_t budget) {
  AgentStagePlan plan{"final", {}, ""};
  const AgentPackage& p = *in.package;
  if (!p.checklist_text) {
    plan.skipped = "no acceptance_checklist.md in the package (attnverify init writes it)";
    return plan;
  }
  AgentRequest r = NewRequest("final", in);
  r.user = "acceptance_checklist.md:\n" + *p.checklist_text + "\n";
  if (p.report_text) r.user += "\nreports/acceptance.md (the current state):\n" + *p.report_text;
  r.user += "\nFindings that survived the earlier rounds (JSON):\n" +
            (in.earlier_findings.empty() ? std::string("[]") : in.earlier_findings) + "\n";
  for (const auto& [rel, text] : p.logs) {
    if (rel.rfind("logs/agent-cmd-", 0) != 0) continue;
    std::set<int64_t> shown;
    std::string w = ErrorWindows(rel, text, 80, &shown);
    if (w.empty()) w = rel + ": no error line (" + std::to_string(p.LineCount(rel)) + " lines)\n";
    r.user += "\nCommand log " + rel + ":\n" + w;
    r.context.file_lines[rel] = shown;
  }
  if (r.user.size() > budget) {
    r.user.resize(budget);
    r.user += "\n[cut: over the request budget]\n";
  }
  r.context.numbers.Add(r.user);
  plan.requests.push_back(std::move(r));
  return plan;
}

}  // namespace

const std::vector<std::string>& AgentStages() {
  static const std::vector<std::string> stages = {"diff_review", "test_log", "perf", "cross_module",
                                                  "final"};
  return stages;
}

bool IsAgentStage(std::string_view name) {
  for (const std::string& s : AgentStages()) {
    if (s == name) return true;
  }
  return false;
}

int64_t EstimateTokens(std::string_view text) { return EstimateInputTokens(text); }

std::string ErrorWindows(const std::string& rel, const std::string& text, size_t max_lines,
                         std::set<int64_t>* shown) {
  std::vector<std::string_view> lines;
  std::string_view t = text;
  while (!t.empty()) {
    size_t eol = t.find('\n');
    lines.push_back(t.substr(0, eol));
    t = eol == std::string_view::npos ? std::string_view() : t.substr(eol + 1);
  }
  std::vector<bool> keep(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!IsErrorLine(lines[i])) continue;
    for (size_t k = i >= 3 ? i - 3 : 0; k <= std::min(lines.size() - 1, i + 3); ++k) keep[k] = true;
  }
  std::string out;
  size_t count = 0;
  bool gap = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!keep[i]) {
      gap = !out.empty();
      continue;
    }
    if (count == max_lines) {
      out += "[more error lines cut]\n";
      break;
    }
    if (gap) out += "...\n";
    gap = false;
    out += rel + ":" + std::to_string(i + 1) + ": " + std::string(lines[i]) + "\n";
    shown->insert(static_cast<int64_t>(i + 1));
    ++count;
  }
  return out;
}

int64_t RequestTokens(const RoundInputs& in, const std::string& system, const std::string& user) {
  if (in.request_tokens) return in.request_tokens(system, user);
  nlohmann::json j = {{"system", system}, {"messages", {{{"role", "user"}, {"content", user}}}}};
  return EstimateTokens(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
         kWireMarginTokens;
}

namespace {

AgentStagePlan PlanWithin(const std::string& stage, const RoundInputs& in, size_t budget) {
  if (stage == "diff_review") return PlanDiffReview(in, budget);
  if (stage == "test_log") return PlanTestLog(in, budget);
  if (stage == "perf") return PlanPerf(in, budget);
  if (stage == "cross_module") return PlanCrossModule(in, budget);
  return PlanFinal(in, budget);
}

}  // namespace

AgentStagePlan PlanStage(const std::string& stage, const RoundInputs& in) {
  // The text's bytes are a guess at its size on the wire (JSON escapes, the prompt, the
  // format's keys): measure every request as it will be sent and cut until each fits.
  const int64_t limit = in.budget_tokens - kRetryReserveTokens;
  size_t budget = FirstBudgetBytes(in);
  for (int attempt = 0;; ++attempt) {
    AgentStagePlan plan = PlanWithin(stage, in, budget);
    int64_t over = 0;
    for (const AgentRequest& r : plan.requests) {
      over = std::max(over, RequestTokens(in, r.system, r.user) - limit);
    }
    // A prompt that alone leaves no room: sent as it is, and the client refuses it.
    if (over <= 0 || budget <= kMinBudgetBytes || attempt == 64) return plan;
    const size_t cut = std::max<size_t>(static_cast<size_t>(over) * 4, budget / 32);
    budget = cut >= budget - kMinBudgetBytes ? kMinBudgetBytes : budget - cut;
  }
}

}  // namespace av
