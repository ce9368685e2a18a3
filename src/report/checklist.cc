#include "report/checklist.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/shell_quote.h"
#include "report/checklist_internal.h"
#include "report/checklist_portable.h"
#include "report/checklist_table.h"

namespace av {

namespace {

using checklist::CheckDef;
using checklist::Context;

void ApplyWaiver(const ReportConfig& cfg, Check* c) {
  auto it = cfg.waivers.find(c->id);
  if (it == cfg.waivers.end()) return;
  if (c->status == CheckStatus::kMissing) {
    c->required = false;
    c->waiver = it->second;
  } else if (c->status == CheckStatus::kFail) {
    c->details.push_back(
        "[policy] waive does not apply: the evidence says FAIL (waivers cover missing evidence "
        "only)");
  }
}

void JudgeItem(ItemResult* item) {
  const Check* fail = nullptr;
  const Check* missing = nullptr;
  const Check* not_applicable = nullptr;
  int passed = 0, waived = 0, na = 0;
  for (const Check& c : item->checks) {
    if (c.status == CheckStatus::kFail && fail == nullptr) fail = &c;
    if (c.status == CheckStatus::kMissing && c.required && missing == nullptr) missing = &c;
    if (c.status == CheckStatus::kNotApplicable && not_applicable == nullptr) not_applicable = &c;
    passed += c.status == CheckStatus::kPass;
    na += c.status == CheckStatus::kNotApplicable;
    waived += !c.waiver.empty();
  }
  if (fail != nullptr) {
    item->status = CheckStatus::kFail;
    item->reason = fail->title + ": " + fail->summary;
  } else if (missing != nullptr) {
    item->status = CheckStatus::kMissing;
    item->reason = missing->title + ": " + missing->summary;
  } else if (passed == 0 && not_applicable != nullptr) {
    // Nothing passed and nothing is lacking: the item does not apply to this change.
    item->status = CheckStatus::kNotApplicable;
    item->reason = "not applicable: " + not_applicable->summary;
  } else {
    item->status = CheckStatus::kPass;
    item->reason = std::to_string(passed) + (passed == 1 ? " check passes" : " checks pass");
    if (na > 0) item->reason += ", " + std::to_string(na) + " not applicable";
    if (waived > 0) item->reason += ", " + std::to_string(waived) + " waived by [policy]";
  }
}

// Every row of the check table for items in [first, last], in table order.
std::vector<Check> JudgeItems(const Context& ctx, int first, int last) {
  std::vector<Check> out;
  for (const CheckDef& def : checklist::Checks()) {
    if (def.item < first || def.item > last) continue;
    if (std::optional<Check> c = def.judge(ctx, def)) out.push_back(std::move(*c));
  }
  return out;
}

// The check a failure is attributed to names the checks it explains.
void LinkAttributions(std::vector<Check>* checks) {
  std::map<std::string, std::vector<std::string>> explains;
  for (const Check& c : *checks) {
    for (const std::string& target : c.attributed_to) explains[target].push_back(c.id);
  }
  for (Check& c : *checks) {
    auto it = explains.find(c.id);
    if (it == explains.end() || c.status != CheckStatus::kFail) continue;
    c.details.insert(c.details.begin(), "explains the failures of " +
                                            checklist::JoinList(it->second) +
                                            " (each is a case of this check)");
  }
}

// Each citation is listed once per check.
void DedupeCitations(std::vector<Check>* checks) {
  for (Check& c : *checks) {
    std::vector<Citation> unique;
    for (const Citation& x : c.citations) {
      bool seen = std::any_of(unique.begin(), unique.end(), [&](const Citation& u) {
        return u.file == x.file && u.sha256 == x.sha256 && u.command == x.command &&
               u.subject == x.subject;
      });
      if (!seen) unique.push_back(x);
    }
    c.citations = std::move(unique);
  }
}

// A conclusion without evidence does not appear: an uncited PASS/FAIL becomes MISSING.
// Returns the ids of the checks it changed (8.conclusions_cited lists them).
std::vector<std::string> DropUncited(std::vector<Check>* checks) {
  std::vector<std::string> uncited;
  for (Check& c : *checks) {
    if (c.status != CheckStatus::kMissing && c.citations.empty()) {
      uncited.push_back(c.id);
      c.status = CheckStatus::kMissing;
      c.summary = "no evidence cited for: " + c.summary;
    }
  }
  return uncited;
}

// The files the checklist judged (bound to their run), then the refused ones, each with
// the command that (re)produces it.
std::vector<EvidenceFile> UsedFiles(const Evidence& ev) {
  std::vector<EvidenceFile> out;
  if (ev.numerics) out.push_back(ev.numerics->file);
  if (ev.resources) out.push_back(ev.resources->file);
  if (ev.review) out.push_back(ev.review->file);
  if (ev.slice) out.push_back(*ev.slice);
  if (ev.perf) out.push_back(*ev.perf);
  if (ev.junit) out.push_back(ev.junit->file);
  if (ev.run) out.push_back(ev.run->file);
  return out;
}

std::vector<EvidenceFile> RefusedFiles(const Evidence& given,
                                       const std::vector<EvidenceBinding>& bindings) {
  std::vector<EvidenceFile> out;
  for (const EvidenceBinding& b : bindings) {
    if (b.used) continue;
    for (const EvidenceFile* f :
         {given.numerics ? &given.numerics->file : nullptr,
          given.resources ? &given.resources->file : nullptr,
          given.review ? &given.review->file : nullptr, given.slice ? &*given.slice : nullptr}) {
      if (f == nullptr || f->path != b.file) continue;
      EvidenceFile copy = *f;
      copy.refused = b.refused;
      copy.command = b.rerun;
      out.push_back(std::move(copy));
    }
  }
  return out;
}

// "evidence from different head commits: evidence/review.json at 1a2b3c4d5e6f, ..." when
// the used files judged different HEADs; empty when they agree (or do not say).
std::string MixedHeads(const std::vector<EvidenceBinding>& bindings) {
  std::set<std::string> heads;
  std::string list;
  for (const EvidenceBinding& b : bindings) {
    if (!b.used || b.head_commit.empty()) continue;
    heads.insert(b.head_commit);
    list += (list.empty() ? "" : ", ") + b.file + " at " + b.head_commit.substr(0, 12);
  }
  return heads.size() > 1 ? "evidence from different head commits: " + list : "";
}

// Per item, the runs its checks' evidence came from.
void NoteEvidenceRuns(const std::vector<EvidenceBinding>& bindings, ItemResult* item) {
  std::set<std::string> files;
  for (const Check& c : item->checks) {
    for (const Citation& x : c.citations) files.insert(x.file);
  }
  for (const EvidenceBinding& b : bindings) {
    if (!b.used || !files.count(b.file)) continue;
    item->evidence_runs.push_back(
        b.file + ": run " + b.run_id + " (" + b.stage + " stage" +
        (b.head_commit.empty() ? "" : ", head " + b.head_commit.substr(0, 12)) + ")");
  }
}

std::vector<Finding> AllFindings(const Evidence& ev) {
  return ev.review ? ev.review->findings : std::vector<Finding>{};
}

// The eight items: their checks (waivers applied), the findings they answer, their status.
void AssembleItems(const Context& ctx, std::vector<Check> checks, ChecklistReport* report) {
  const ReportConfig& cfg = ctx.cfg;
  std::vector<std::vector<Check>> by_item(checklist::kItemCount + 1);
  for (Check& c : checks) {
    ApplyWaiver(cfg, &c);
    by_item[checklist::FindCheckDef(c.id)->item].push_back(std::move(c));
  }
  for (int n = 1; n <= checklist::kItemCount; ++n) {
    ItemResult item;
    item.number = n;
    item.title = std::string(checklist::ItemTitle(n));
    item.required = cfg.required.count(n) > 0;
    item.checks = std::move(by_item[n]);
    for (const Finding& f : report->findings) {
      bool related =
          std::find(f.related_items.begin(), f.related_items.end(), n) != f.related_items.end();
      if (f.checklist_item == n || related) item.findings.push_back(f);
    }
    for (const AgentQuestion& q : ctx.agent_questions) {
      if (checklist::AgentQuestionItem(q) == n) item.agent_findings.push_back(q);
    }
    JudgeItem(&item);
    NoteEvidenceRuns(report->bindings, &item);
    if (n == 1) item.notes = checklist::NumericsNotes(ctx);
    if (n == 3) item.notes = checklist::BuildNotes(ctx);
    if (n == 8) item.notes = checklist::ContainmentNotes(ctx);
    report->items.push_back(std::move(item));
  }
}

std::vector<ResourceBar> ResourceBars(const Evidence& ev) {
  std::vector<ResourceBar> out;
  if (!ev.resources) return out;
  auto smem = [](const ResourcesKernelSide& s) {
    return s.ptxas_overflow ? s.overflow_bytes : s.total_smem_bytes;
  };
  for (const ResourcesKernelRow& k : ev.resources->kernels) {
    ResourceBar bar{k.kernel, k.arch};
    if (k.base) bar.base_smem = smem(*k.base), bar.cap = k.base->smem_cap_bytes;
    if (k.head) {
      bar.head_smem = smem(*k.head);
      bar.cap = k.head->smem_cap_bytes;
      bar.overflow = k.head->ptxas_overflow;
    }
    out.push_back(bar);
  }
  return out;
}

// With [policy] require_agent_review, 8.agent_review when it does not PASS (and is not
// waived), whether or not item 8 is among the required items; else nullptr.
const Check* RequiredAgentReviewMissing(const ReportConfig& cfg, const ChecklistReport& report) {
  if (!cfg.require_agent_review) return nullptr;
  for (const ItemResult& item : report.items) {
    for (const Check& c : item.checks) {
      if (c.id == "8.agent_review" && c.status != CheckStatus::kPass && c.required) return &c;
    }
  }
  return nullptr;
}

// rejected when any item FAILs (required or not); accepted when every required item
// PASSes; otherwise incomplete.
void DecideVerdict(const ReportConfig& cfg, ChecklistReport* report) {
  std::vector<std::string> failed, lacking, not_applicable;
  bool all_required_pass = true;
  int required_passed = 0;
  for (const ItemResult& item : report->items) {
    if (item.status == CheckStatus::kFail) failed.push_back(std::to_string(item.number));
    if (!item.required) continue;
    required_passed += item.status == CheckStatus::kPass;
    // A required item that does not apply to the change (N/A, with cited evidence) is met.
    if (item.status == CheckStatus::kNotApplicable) {
      not_applicable.push_back(std::to_string(item.number));
    } else if (item.status != CheckStatus::kPass) {
      all_required_pass = false;
      if (item.status == CheckStatus::kMissing) lacking.push_back(std::to_string(item.number));
    }
  }
  // Never accepted on nothing: at least one required item must pass on its evidence.
  if (required_passed == 0) all_required_pass = false;
  if (!failed.empty()) {
    report->verdict = ReportVerdict::kRejected;
    report->verdict_reason = "evidence says no: item " + checklist::JoinList(failed) + " FAIL";
  } else if (std::string mixed = MixedHeads(report->bindings);
             all_required_pass && !mixed.empty()) {
    // Bound evidence that judged different HEADs is not one change's acceptance.
    report->verdict = ReportVerdict::kIncomplete;
    report->verdict_reason = mixed + "; re-run the stages on one commit";
  } else if (const Check* agent = RequiredAgentReviewMissing(cfg, *report);
             all_required_pass && agent != nullptr) {
    report->verdict = ReportVerdict::kIncomplete;
    report->verdict_reason =
        "[policy] require_agent_review: the agent review is MISSING (" + agent->summary + ")";
  } else if (all_required_pass) {
    report->verdict = ReportVerdict::kAccepted;
    report->verdict_reason = "every required item passes, each with cited evidence";
    if (!not_applicable.empty()) {
      report->verdict_reason += " (item " + checklist::JoinList(not_applicable) +
                                " not applicable to this change)";
    }
  } else if (lacking.empty()) {
    report->verdict = ReportVerdict::kIncomplete;
    report->verdict_reason = "no required item passes on its evidence";
  } else {
    report->verdict = ReportVerdict::kIncomplete;
    report->verdict_reason =
        "required item " + checklist::JoinList(lacking) + " lack evidence (MISSING)";
  }
}

}  // namespace

ChecklistReport ComputeChecklist(const Evidence& given, const ReportConfig& given_cfg,
                                 const std::string& tool_version) {
  ReportConfig cfg = given_cfg;
  cfg.path = checklist::DisplayConfig(given, given_cfg);
  ChecklistReport report;
  const Evidence ev =
      checklist::BindEvidence(given, checklist::MakeContext(given, cfg), &report.bindings);
  Context ctx = checklist::MakeContext(ev, cfg);
  ctx.bindings = report.bindings;
  checklist::LoadAgentQuestions(&ctx);
  if (ev.numerics) ctx.attribution = checklist::AttributeFailures(*ev.numerics);

  report.title = cfg.title;
  report.tool_version = tool_version;
  report.config = cfg.path;
  report.required.assign(cfg.required.begin(), cfg.required.end());
  report.evidence = UsedFiles(ev);
  if (ev.run) {
    report.evidence.back().command = ShellJoin(ev.run->ledger.argv);
  }
  if (std::string mixed = MixedHeads(report.bindings); !mixed.empty()) {
    report.warnings.push_back(mixed);
  }
  report.findings = AllFindings(ev);
  report.coverage = checklist::ComputeCoverage(ctx);

  std::vector<Check> checks = JudgeItems(ctx, 1, 7);
  checklist::DemoteNarrowedPasses(ctx, &checks, &report.warnings);
  LinkAttributions(&checks);
  DedupeCitations(&checks);
  ctx.uncited = DropUncited(&checks);
  ctx.files = report.evidence;
  for (Check& c : JudgeItems(ctx, 8, 8)) checks.push_back(std::move(c));
  for (EvidenceFile& f : RefusedFiles(given, report.bindings)) {
    report.evidence.push_back(std::move(f));
  }
  AssembleItems(ctx, std::move(checks), &report);

  report.resources = ResourceBars(ev);
  report.perf = checklist::PerfBars(ctx);
  report.heatmaps = ev.heatmaps;
  DecideVerdict(cfg, &report);
  // Named as the reader's machine will name them: the package's paths relative, whatever
  // machine the stages ran on.
  checklist::PortableReport(given_cfg.package_dir,
                            std::filesystem::path(given_cfg.path).filename().string(), cfg.path,
                            &report);
  return report;
}

int VerdictExitCode(const ChecklistReport& report) {
  return report.verdict == ReportVerdict::kAccepted ? 0 : 1;
}

}  // namespace av
