#include "report/checklist.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/format.h"
#include "report/checklist_internal.h"

namespace av {

const char* CheckStatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return "PASS";
    case CheckStatus::kFail: return "FAIL";
    case CheckStatus::kMissing: return "MISSING";
  }
  return "?";
}

namespace checklist {
namespace {

std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

const nlohmann::json* Lookup(const NumericsCase& c, const char* key, const nlohmann::json** from_op_params) {
  *from_op_params = nullptr;
  if (c.params.is_object()) {
    auto it = c.params.find(key);
    if (it != c.params.end() && !it->is_null()) return &*it;
  }
  if (c.op_params.is_object()) {
    auto it = c.op_params.find(key);
    if (it != c.op_params.end() && !it->is_null()) return *from_op_params = &*it;
  }
  return nullptr;
}

}  // namespace

std::string QuoteArg(const std::string& s) {
  return s.find_first_of(" \t'\"$") == std::string::npos ? s : "'" + s + "'";
}

Context MakeContext(const Evidence& ev, const ReportConfig& cfg) {
  const std::string c = QuoteArg(cfg.path);
  Context ctx{ev, cfg, "", "", "", "", "", {}};
  ctx.numerics_cmd = "attnverify numerics --config " + c;
  ctx.build_cmd = "attnverify build --config " + c + " --base " + QuoteArg(cfg.base_ref);
  ctx.review_cmd = "attnverify review --config " + c;
  ctx.profile_cmd =
      "on a GPU host, for the base and the head build: ncu --csv --metrics "
      "gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
      "dram__throughput.avg.pct_of_peak_sustained_elapsed <your benchmark> > ncu_head.csv\n"
      "then: attnverify profile --import ncu_head.csv --config " + c + "   # attnverify profile is not implemented yet";
  ctx.bank_conflicts_cmd =
      "on a GPU host: ncu --csv --metrics "
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum <your benchmark> > ncu_smem.csv\n"
      "then: attnverify profile --import ncu_smem.csv --config " + c + "   # attnverify profile is not implemented yet";
  if (ev.numerics) ctx.attribution = AttributeFailures(*ev.numerics);
  return ctx;
}

Citation Cite(const EvidenceFile& f, std::string subject) { return {f.path, f.sha256, f.command, std::move(subject)}; }

Check MakeCheck(std::string id, std::string title, CheckStatus status, std::string summary) {
  Check c;
  c.id = std::move(id);
  c.title = std::move(title);
  c.status = status;
  c.summary = std::move(summary);
  return c;
}

Check Missing(std::string id, std::string title, std::string summary, std::string command) {
  Check c = MakeCheck(std::move(id), std::move(title), CheckStatus::kMissing, std::move(summary));
  c.missing_command = std::move(command);
  return c;
}

std::optional<int64_t> IntParam(const NumericsCase& c, const char* key) {
  const nlohmann::json* from_op = nullptr;
  const nlohmann::json* v = Lookup(c, key, &from_op);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_string()) return ParseInt(v->get<std::string>());
  return std::nullopt;
}

bool BoolParam(const NumericsCase& c, const char* key) {
  const nlohmann::json* from_op = nullptr;
  const nlohmann::json* v = Lookup(c, key, &from_op);
  if (v == nullptr) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string()) return v->get<std::string>() == "true" || v->get<std::string>() == "1";
  if (v->is_number_integer()) return v->get<int64_t>() != 0;
  return false;
}

std::string StrParam(const NumericsCase& c, const char* key) {
  const nlohmann::json* from_op = nullptr;
  const nlohmann::json* v = Lookup(c, key, &from_op);
  if (v == nullptr) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

std::vector<std::string> DescribeFailure(const NumericsCase& c) {
  std::vector<std::string> out;
  for (const OutputResult& o : c.outputs) {
    if (o.passed) continue;
    const WorstElement* w = nullptr;
    for (const WorstElement& lw : c.localised_worst) {
      if (lw.output == o.name) w = &lw;
    }
    if (w == nullptr && o.worst) w = &*o.worst;
    std::string line = c.id + ": " + o.name;
    if (w != nullptr) {
      std::string at;
      for (const auto& [k, v] : w->coords) {
        at += (at.empty() ? "" : ", ") + (k.size() > 1 && k[0] == 'i' && std::isdigit(static_cast<unsigned char>(k[1])) ? "" : k + "=") + std::to_string(v);
      }
      line += " worst |err| " + FormatG(w->abs_err, 6) + " at [" + at + "]: candidate " + FormatG(w->candidate, 6) +
              ", reference " + FormatG(w->reference, 6);
    }
    if (!o.rule.empty()) line += "; rule " + o.rule + (o.tolerance.empty() ? "" : " (" + o.tolerance + ")");
    if (!o.failure.empty()) line += ": " + o.failure;
    out.push_back(line);
  }
  if (out.empty()) out.push_back(c.id + ": " + (c.reason.empty() ? c.verdict : c.reason));
  return out;
}

bool IsSoftmaxOp(const std::string& op) {
  return op == "attention" || op == "mla_decode" || op == "sparse_attention";
}

std::vector<const NumericsCase*> BaseCases(const NumericsEvidence& n) {
  std::vector<const NumericsCase*> out;
  for (const NumericsCase& c : n.cases) {
    if (c.is_base()) out.push_back(&c);
  }
  return out;
}

// The largest error among a case's failed outputs; +inf for a case that failed before
// any comparison (crash, timeout, bad output), so those are shown first.
double Severity(const NumericsCase& c) {
  double worst = -1;
  bool compared = false;
  for (const OutputResult& o : c.outputs) {
    if (o.passed || !o.compared) continue;
    compared = true;
    worst = std::max(worst, std::isnan(o.max_abs) ? INFINITY : o.max_abs);
  }
  return compared ? worst : INFINITY;
}

void SortWorstFirst(std::vector<const NumericsCase*>* cases) {
  std::stable_sort(cases->begin(), cases->end(),
                   [](const NumericsCase* a, const NumericsCase* b) { return Severity(*a) > Severity(*b); });
}

// Up to `limit` failing cases: their failure lines, localisation hints and citations.
void AddFailures(const Context& ctx, std::vector<const NumericsCase*> failing, size_t limit, Check* check) {
  SortWorstFirst(&failing);
  for (size_t i = 0; i < failing.size() && i < limit; ++i) {
    const NumericsCase& c = *failing[i];
    check->citations.push_back(Cite(ctx.ev.numerics->file, c.id));
    for (const std::string& line : DescribeFailure(c)) check->details.push_back(line);
    for (const std::string& h : MergedHints(c)) check->details.push_back(c.id + ": hint: " + h);
  }
  if (failing.size() > limit) {
    check->details.push_back("... and " + std::to_string(failing.size() - limit) + " more failing cases in " +
                             ctx.ev.numerics->file.path);
  }
}

std::vector<std::string> MergedHints(const NumericsCase& c) {
  // "o: all 949661 errors in query rows ..." -> output "o", lead "all", text "in query rows ...".
  struct Parsed {
    std::string output, lead, text, original;
  };
  std::vector<Parsed> parsed;
  for (const std::string& h : c.hints) {
    Parsed p{"", "", "", h};
    size_t colon = h.find(": ");
    if (colon != std::string::npos) {
      std::string rest = h.substr(colon + 2);
      size_t end = std::string::npos;
      if (rest.rfind("all ", 0) == 0) {
        size_t e = rest.find(" errors ");
        if (e != std::string::npos) end = e + 8, p.lead = "all errors";
      } else if (rest.rfind("nearly all errors (", 0) == 0) {
        size_t e = rest.find(") ");
        if (e != std::string::npos) end = e + 2, p.lead = "nearly all errors";
      }
      if (end != std::string::npos) p.output = h.substr(0, colon), p.text = rest.substr(end);
    }
    parsed.push_back(std::move(p));
  }
  std::vector<std::string> out;
  std::vector<bool> used(parsed.size(), false);
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (used[i]) continue;
    used[i] = true;
    if (parsed[i].text.empty()) {
      out.push_back(parsed[i].original);
      continue;
    }
    std::string outputs = parsed[i].output;
    bool all = parsed[i].lead == "all errors";
    size_t merged = 1;
    for (size_t j = i + 1; j < parsed.size(); ++j) {
      if (used[j] || parsed[j].text != parsed[i].text || parsed[j].output == parsed[i].output) continue;
      used[j] = true;
      outputs += ", " + parsed[j].output;
      all &= parsed[j].lead == "all errors";
      ++merged;
    }
    // A hint of one output keeps its counts; merged ones drop them (the failure lines have them).
    out.push_back(merged == 1 ? parsed[i].original
                              : outputs + ": " + (all ? "all errors " : "nearly all errors ") + parsed[i].text);
  }
  return out;
}

void ListFailures(const Context& ctx, std::vector<const NumericsCase*> failing, Check* check) {
  constexpr size_t kLimit = 5;
  SortWorstFirst(&failing);
  for (size_t i = 0; i < failing.size() && i < kLimit; ++i) {
    const NumericsCase& c = *failing[i];
    check->citations.push_back(Cite(ctx.ev.numerics->file, c.id));
    std::vector<std::string> hints = MergedHints(c);
    if (!hints.empty()) {
      check->details.push_back(c.id + ": " + hints.front());
    } else {
      check->details.push_back(DescribeFailure(c).front());
    }
  }
  if (failing.size() > kLimit) {
    check->details.push_back("... and " + std::to_string(failing.size() - kLimit) + " more in " +
                             ctx.ev.numerics->file.path);
  }
}

const ReportAttribution* AttributionOf(const Context& ctx, const NumericsCase* c) {
  auto it = ctx.attribution.find(c);
  return it == ctx.attribution.end() ? nullptr : &it->second;
}

std::vector<const NumericsCase*> AttributedElsewhere(const Context& ctx, const std::string& self_id,
                                                     const std::vector<const NumericsCase*>& failing) {
  std::vector<const NumericsCase*> out;
  for (const NumericsCase* c : failing) {
    const ReportAttribution* a = AttributionOf(ctx, c);
    if (a != nullptr && a->check_id != self_id) out.push_back(c);
  }
  return out;
}

Check ExplainedElsewhere(const Context& ctx, std::string id, std::string title, const std::string& noun,
                         const std::vector<const NumericsCase*>& passing,
                         const std::vector<const NumericsCase*>& failing, const std::string& how) {
  // Group the failures by the check they are attributed to, in first-seen order.
  std::vector<std::pair<const ReportAttribution*, size_t>> groups;
  for (const NumericsCase* c : failing) {
    const ReportAttribution* a = AttributionOf(ctx, c);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first->check_id == a->check_id; });
    if (it == groups.end()) groups.push_back({a, 1});
    else ++it->second;
  }
  // "causal s_q > 1 cases" -> "causal s_q > 1 case".
  auto singular = [](const std::string& noun) {
    return noun.size() > 1 && noun.back() == 's' ? noun.substr(0, noun.size() - 1) : noun;
  };
  std::string where;
  if (groups.size() == 1) {
    where = (failing.size() == 1 ? "is a " + singular(groups[0].first->cases) : "are all " + groups[0].first->cases) +
            ", see " + groups[0].first->check_id;
  } else {
    where = "are explained elsewhere: ";
    for (size_t i = 0; i < groups.size(); ++i) {
      const std::string& cases = groups[i].first->cases;
      where += (i ? ", " : "") + std::to_string(groups[i].second) + " " +
               (groups[i].second == 1 ? singular(cases) : cases) + " (" + groups[i].first->check_id + ")";
    }
  }
  const std::string failures = failing.size() == 1 ? "its 1 failure " : "its " + std::to_string(failing.size()) + " failures ";
  Check c;
  if (!passing.empty()) {
    c = MakeCheck(std::move(id), std::move(title), CheckStatus::kPass,
                  Plural(passing.size(), singular(noun).c_str(), noun.c_str()) +
                      (passing.size() == 1 ? " passes (e.g. " : " pass (e.g. ") + passing.front()->id + "); " + failures +
                      where);
    c.citations.push_back(Cite(ctx.ev.numerics->file, passing.front()->id));
  } else {
    c = Missing(std::move(id), std::move(title),
                "no " + singular(noun) + " passed: " + failures + where +
                    ", so nothing shows this category works on its own; add " + how + " to shapes.json",
                ctx.numerics_cmd);
  }
  for (const auto& [a, n] : groups) c.attributed_to.push_back(a->check_id);
  return c;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

Check NoNumerics(const Context& ctx, std::string id, std::string title) {
  std::string why = StageNote(ctx, "numerics");
  return Missing(std::move(id), std::move(title),
                 "no " + ctx.cfg.numerics_evidence + " in the package" + (why.empty() ? "" : ": " + why),
                 ctx.numerics_cmd);
}

std::string StageNote(const Context& ctx, const std::string& stage) {
  if (!ctx.ev.run) return "";
  const ReportRunStage* s = ctx.ev.run->Stage(stage);
  const std::string log = s == nullptr || s->log.empty() ? "" : " (log " + s->log + ")";
  if (s == nullptr) return "evidence/run.json has no " + stage + " stage";
  if (s->status == "skipped") return stage + " skipped: " + (s->reason.empty() ? "no reason recorded" : s->reason);
  if (s->status == "error") {
    return "the " + stage + " stage failed" + (s->reason.empty() ? "" : ": " + s->reason) + log;
  }
  if (s->status == "rejected") return "the " + stage + " stage exited 1 but left no evidence" + log;
  return "the " + stage + " stage ended " + s->status + " but left no evidence" + log;
}

std::vector<FindingView> FindingsOf(const Context& ctx, int item) {
  std::vector<FindingView> out;
  if (!ctx.ev.review) return out;
  for (const ReviewFinding& f : ctx.ev.review->findings) {
    if (f.checklist_item == item) {
      out.push_back({f.id, f.rule, f.severity, f.component, f.file, f.title, f.message, f.verify, f.line, f.end_line,
                     f.checklist_item, f.related_items});
    }
  }
  return out;
}

}  // namespace checklist

namespace {

using checklist::Cite;
using checklist::MakeCheck;
using checklist::Missing;

constexpr const char* kItemTitles[8] = {
    "Numerical correctness", "Masks and boundaries",  "Shared memory and registers",
    "GEMM tile scheduling",  "Split-k",               "Attention interface",
    "Fallback",              "Evidence",
};

std::vector<Check> EvidenceChecks(const checklist::Context& ctx, const std::vector<EvidenceFile>& files) {
  std::vector<Check> out;
  const Evidence& ev = ctx.ev;
  {
    const char* title = "cited files exist and match their sha256";
    std::vector<std::string> bad;
    for (const ReferencedFile& r : ev.referenced) {
      if (!r.exists) bad.push_back(r.path + " (cited by " + r.cited_by + ") does not exist");
      else if (!r.expected_sha256.empty() && r.expected_sha256 != r.actual_sha256) {
        bad.push_back(r.path + " (cited by " + r.cited_by + ") has sha256 " + r.actual_sha256.substr(0, 12) +
                      ", the evidence recorded " + r.expected_sha256.substr(0, 12));
      }
    }
    if (files.empty()) {
      out.push_back(Missing("8.files", title, "the package holds no evidence files", ctx.numerics_cmd));
    } else {
      Check c = MakeCheck("8.files", title, bad.empty() ? CheckStatus::kPass : CheckStatus::kFail,
                          bad.empty() ? std::to_string(files.size()) + " evidence files read; " +
                                            std::to_string(ev.referenced.size()) + " files they cite exist and match"
                                      : std::to_string(bad.size()) + " cited files are missing or changed since the evidence was written");
      c.details = bad;
      for (const EvidenceFile& f : files) c.citations.push_back(Cite(f));
      out.push_back(std::move(c));
    }
  }
  if (!ev.review) {
    std::string why = StageNote(ctx, "review");
    out.push_back(Missing("8.review", "the diff was reviewed",
                          "no evidence/review.json in the package" + (why.empty() ? "" : ": " + why), ctx.review_cmd));
    return out;
  }
  const ReviewEvidence& r = *ev.review;
  Check reviewed = MakeCheck("8.review", "the diff was reviewed", CheckStatus::kPass,
                             "reviewer " + (r.reviewer.empty() ? std::string("?") : r.reviewer) + " over " +
                                 std::to_string(r.diffs.size()) + " diffs: " + std::to_string(r.findings.size()) + " findings");
  reviewed.citations.push_back(Cite(r.file));
  out.push_back(std::move(reviewed));
  std::vector<std::string> unverifiable;
  for (const ReviewFinding& f : r.findings) {
    if (f.verify.empty()) unverifiable.push_back(f.id + " (" + f.rule + ", " + f.file + ":" + std::to_string(f.line) + ")");
  }
  Check verifiable = MakeCheck("8.findings_verifiable", "every finding names the command that verifies it",
                               unverifiable.empty() ? CheckStatus::kPass : CheckStatus::kFail,
                               unverifiable.empty() ? "all " + std::to_string(r.findings.size()) + " findings name a verify command"
                                                    : std::to_string(unverifiable.size()) +
                                                          (unverifiable.size() == 1 ? " finding names" : " findings name") +
                                                          " no verify command");
  verifiable.details = unverifiable;
  verifiable.citations.push_back(Cite(r.file));
  out.push_back(std::move(verifiable));
  return out;
}

// The config path commands in the report name (doc/report.md, "Commands"): as the user gave
// it to `attnverify report` when relative; else, when evidence/run.json records that
// `attnverify run` was given a relative --config for this same file, that one (the stages
// ran in the run's folder); else the absolute path, all we know.
std::string DisplayConfig(const Evidence& ev, const ReportConfig& cfg, std::vector<std::string>* absolutes) {
  namespace fs = std::filesystem;
  auto norm = [](const std::string& p) { return fs::path(p).lexically_normal().string(); };
  if (fs::path(cfg.path).is_absolute()) absolutes->push_back(cfg.path);
  if (!cfg.package_dir.empty()) absolutes->push_back(norm(cfg.package_dir + "/attnverify.toml"));
  if (!cfg.path.empty() && !fs::path(cfg.path).is_absolute()) return cfg.path;
  if (ev.run && !ev.run->user_config.empty() && !fs::path(ev.run->user_config).is_absolute() &&
      fs::path(ev.run->config).is_absolute()) {
    const std::string recorded = norm(ev.run->config);
    for (const std::string& a : *absolutes) {
      if (norm(a) == recorded) {
        absolutes->push_back(ev.run->config);
        return ev.run->user_config;
      }
    }
  }
  return cfg.path;
}

void RewriteConfig(const std::vector<std::string>& absolutes, const std::string& display, std::string* command) {
  for (const std::string& a : absolutes) {
    if (a == display) continue;
    for (const std::string& from : {"--config " + checklist::QuoteArg(a), "--config " + a}) {
      for (size_t at = command->find(from); at != std::string::npos; at = command->find(from, at + 1)) {
        const size_t end = at + from.size();
        if (end < command->size() && (*command)[end] != ' ' && (*command)[end] != '\n') continue;
        command->replace(at, from.size(), "--config " + checklist::QuoteArg(display));
      }
    }
  }
}

void ApplyWaiver(const ReportConfig& cfg, Check* c) {
  auto it = cfg.waivers.find(c->id);
  if (it == cfg.waivers.end()) return;
  if (c->status == CheckStatus::kMissing) {
    c->required = false;
    c->waiver = it->second;
  } else if (c->status == CheckStatus::kFail) {
    c->details.push_back("[policy] waive does not apply: the evidence says FAIL (waivers cover missing evidence only)");
  }
}

void JudgeItem(ItemResult* item) {
  const Check* fail = nullptr;
  const Check* missing = nullptr;
  int passed = 0, waived = 0;
  for (const Check& c : item->checks) {
    if (c.status == CheckStatus::kFail && fail == nullptr) fail = &c;
    if (c.status == CheckStatus::kMissing && c.required && missing == nullptr) missing = &c;
    passed += c.status == CheckStatus::kPass;
    waived += !c.waiver.empty();
  }
  if (fail != nullptr) {
    item->status = CheckStatus::kFail;
    item->reason = fail->title + ": " + fail->summary;
  } else if (missing != nullptr) {
    item->status = CheckStatus::kMissing;
    item->reason = missing->title + ": " + missing->summary;
  } else {
    item->status = CheckStatus::kPass;
    item->reason = std::to_string(passed) + (passed == 1 ? " check passes" : " checks pass");
    if (waived > 0) item->reason += ", " + std::to_string(waived) + " waived by [policy]";
  }
}

}  // namespace

ChecklistReport ComputeChecklist(const Evidence& given, const ReportConfig& given_cfg,
                                 const std::string& tool_version) {
  std::vector<std::string> absolutes;
  ReportConfig cfg = given_cfg;
  cfg.path = DisplayConfig(given, given_cfg, &absolutes);
  Evidence ev = given;
  for (std::string* cmd : {ev.numerics ? &ev.numerics->file.command : nullptr,
                           ev.resources ? &ev.resources->file.command : nullptr,
                           ev.review ? &ev.review->file.command : nullptr, ev.slice ? &ev.slice->command : nullptr,
                           ev.perf ? &ev.perf->command : nullptr, ev.run ? &ev.run->file.command : nullptr}) {
    if (cmd != nullptr) RewriteConfig(absolutes, cfg.path, cmd);
  }
  if (ev.review) {
    for (ReviewFinding& f : ev.review->findings) RewriteConfig(absolutes, cfg.path, &f.verify);
  }
  checklist::Context ctx = checklist::MakeContext(ev, cfg);
  ChecklistReport report;
  report.title = cfg.title;
  report.tool_version = tool_version;
  report.config = cfg.path;
  report.required.assign(cfg.required.begin(), cfg.required.end());
  if (ev.numerics) report.evidence.push_back(ev.numerics->file);
  if (ev.resources) report.evidence.push_back(ev.resources->file);
  if (ev.review) report.evidence.push_back(ev.review->file);
  if (ev.slice) report.evidence.push_back(*ev.slice);
  if (ev.perf) report.evidence.push_back(*ev.perf);
  if (ev.run) report.evidence.push_back(ev.run->file);
  if (ev.review) {
    for (const ReviewFinding& f : ev.review->findings) {
      report.findings.push_back({f.id, f.rule, f.severity, f.component, f.file, f.title, f.message, f.verify, f.line,
                                 f.end_line, f.checklist_item, f.related_items});
    }
  }
  std::vector<std::vector<Check>> checks(8);
  checks[0] = checklist::NumericsChecks(ctx);
  checks[1] = checklist::MaskChecks(ctx, &report.coverage);
  checks[2] = checklist::ResourceChecks(ctx);
  checks[3] = checklist::GemmChecks(ctx);
  checks[4] = checklist::SplitKChecks(ctx);
  checks[5] = checklist::InterfaceChecks(ctx);
  checks[6] = checklist::FallbackChecks(ctx);
  // The check a failure is attributed to names the checks it explains; citations are
  // listed once.
  {
    std::map<std::string, std::vector<std::string>> explains;
    for (const auto& list : checks) {
      for (const Check& c : list) {
        for (const std::string& target : c.attributed_to) explains[target].push_back(c.id);
      }
    }
    for (auto& list : checks) {
      for (Check& c : list) {
        if (auto it = explains.find(c.id); it != explains.end() && c.status == CheckStatus::kFail) {
          std::string ids;
          for (const std::string& id : it->second) ids += (ids.empty() ? "" : ", ") + id;
          c.details.insert(c.details.begin(), "explains the failures of " + ids + " (each is a case of this check)");
        }
        std::vector<Citation> unique;
        for (const Citation& x : c.citations) {
          bool seen = std::any_of(unique.begin(), unique.end(), [&](const Citation& u) {
            return u.file == x.file && u.sha256 == x.sha256 && u.command == x.command && u.subject == x.subject;
          });
          if (!seen) unique.push_back(x);
        }
        c.citations = std::move(unique);
      }
    }
  }
  // A conclusion without evidence does not appear: an uncited PASS/FAIL becomes MISSING.
  std::vector<std::string> uncited;
  for (auto& list : checks) {
    for (Check& c : list) {
      if (c.status != CheckStatus::kMissing && c.citations.empty()) {
        uncited.push_back(c.id);
        c.status = CheckStatus::kMissing;
        c.summary = "no evidence cited for: " + c.summary;
      }
    }
  }
  checks[7] = EvidenceChecks(ctx, report.evidence);
  {
    const char* title = "every conclusion cites evidence";
    if (report.evidence.empty()) {
      checks[7].push_back(Missing("8.conclusions_cited", title, "no evidence to cite", ctx.numerics_cmd));
    } else if (!uncited.empty()) {
      std::string ids;
      for (const std::string& id : uncited) ids += (ids.empty() ? "" : ", ") + id;
      checks[7].push_back(Missing("8.conclusions_cited", title, "left out as uncited: " + ids, ctx.numerics_cmd));
    } else {
      Check c = MakeCheck("8.conclusions_cited", title, CheckStatus::kPass,
                          "every PASS and FAIL above cites a file, its sha256 and the command that wrote it");
      for (const EvidenceFile& f : report.evidence) c.citations.push_back(Cite(f));
      checks[7].push_back(std::move(c));
    }
  }
  for (int i = 0; i < 8; ++i) {
    ItemResult item;
    item.number = i + 1;
    item.title = kItemTitles[i];
    item.required = cfg.required.count(i + 1) > 0;
    item.checks = std::move(checks[i]);
    for (Check& c : item.checks) ApplyWaiver(cfg, &c);
    for (const FindingView& f : report.findings) {
      bool related = std::find(f.related_items.begin(), f.related_items.end(), i + 1) != f.related_items.end();
      if (f.checklist_item == i + 1 || related) item.findings.push_back(f);
    }
    JudgeItem(&item);
    report.items.push_back(std::move(item));
  }
  if (ev.resources) {
    for (const KernelResourceRow& k : ev.resources->kernels) {
      ResourceBar bar{k.kernel, k.arch};
      auto smem = [](const KernelSide& s) { return s.ptxas_overflow ? s.overflow_bytes : s.total_smem_bytes; };
      if (k.base) bar.base_smem = smem(*k.base), bar.cap = k.base->smem_cap_bytes;
      if (k.head) bar.head_smem = smem(*k.head), bar.cap = k.head->smem_cap_bytes, bar.overflow = k.head->ptxas_overflow;
      report.resources.push_back(bar);
    }
  }
  report.heatmaps = ev.heatmaps;

  std::string failed, lacking;
  bool all_required_pass = true;
  for (const ItemResult& item : report.items) {
    if (item.status == CheckStatus::kFail) failed += (failed.empty() ? "" : ", ") + std::to_string(item.number);
    if (item.required && item.status != CheckStatus::kPass) {
      all_required_pass = false;
      if (item.status == CheckStatus::kMissing) lacking += (lacking.empty() ? "" : ", ") + std::to_string(item.number);
    }
  }
  if (!failed.empty()) {
    report.verdict = "rejected";
    report.verdict_reason = "evidence says no: item " + failed + " FAIL";
  } else if (all_required_pass) {
    report.verdict = "accepted";
    report.verdict_reason = "every required item passes, each with cited evidence";
  } else {
    report.verdict = "incomplete";
    report.verdict_reason = "required item " + lacking + " lack evidence (MISSING)";
  }
  return report;
}

int VerdictExitCode(const ChecklistReport& report) { return report.verdict == "accepted" ? 0 : 1; }

}  // namespace av
