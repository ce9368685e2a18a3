// The helpers checklist_internal.h declares, shared by the item builders
// (checklist_numerics.cc, checklist_kernel.cc) and the engine (checklist.cc).
#include "report/checklist_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/format.h"
#include "core/shell_quote.h"

namespace av {
namespace checklist {
namespace {

std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

const nlohmann::json* Lookup(const NumericsCase& c, const char* key,
                             const nlohmann::json** from_op_params) {
  *from_op_params = nullptr;
  if (c.params->is_object()) {
    auto it = c.params->find(key);
    if (it != c.params->end() && !it->is_null()) return &*it;
  }
  if (c.op_params->is_object()) {
    auto it = c.op_params->find(key);
    if (it != c.op_params->end() && !it->is_null()) return *from_op_params = &*it;
  }
  return nullptr;
}

}  // namespace

Context MakeContext(const Evidence& ev, const ReportConfig& cfg) {
  const std::string c = ShellQuote(cfg.path);
  Context ctx{ev, cfg, "", "", "", "", "", "", "", {}, {}, {}, {}, {}, {}};
  ctx.numerics_cmd = "attnverify numerics --config " + c;
  ctx.build_cmd = "attnverify build --config " + c + " --base " + ShellQuote(cfg.base_ref);
  ctx.review_cmd = "attnverify review --config " + c;
  ctx.run_cmd = "attnverify run --config " + c + " --base " + ShellQuote(cfg.base_ref);
  ctx.slice_cmd = "attnverify slice --config " + c + " --base " + ShellQuote(cfg.base_ref);
  // One command per line, each copy-pastable (prose only before it on its line).
  ctx.profile_cmd =
      "on a GPU host, with [profile] bench, base_dir and head_dir set: attnverify profile --run "
      "--config " +
      c +
      "\n"
      "or export there for each build: ncu --csv --page raw --launch-count 5 --metrics "
      "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
      "launch__registers_per_thread <your benchmark> > ncu_head.csv (and ncu_base.csv), then:\n"
      "attnverify profile --import ncu_base.csv --label base --config " +
      c +
      "\n"
      "attnverify profile --import ncu_head.csv --label head --config " +
      c;
  ctx.bank_conflicts_cmd =
      "on a GPU host for each build: ncu --csv --page raw --launch-count 5 --metrics "
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum <your benchmark> > "
      "ncu_smem_head.csv (and ncu_smem_base.csv), then:\n"
      "attnverify profile --import ncu_smem_base.csv --label base --config " +
      c +
      "\n"
      "attnverify profile --import ncu_smem_head.csv --label head --config " +
      c;
  return ctx;
}

Citation Cite(const EvidenceFile& f, std::string subject) {
  return {f.path, f.sha256, f.command, std::move(subject)};
}

Check MakeCheck(const CheckDef& def, CheckStatus status, std::string summary) {
  Check c;
  c.id = std::string(def.id);
  c.title = std::string(def.title);
  c.status = status;
  c.summary = std::move(summary);
  return c;
}

Check Missing(const CheckDef& def, std::string summary, std::string command) {
  Check c = MakeCheck(def, CheckStatus::kMissing, std::move(summary));
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
  for (const NumericsOutput& o : c.outputs) {
    if (o.passed) continue;
    const LocalisedElement* w = nullptr;
    for (const LocalisedElement& lw : c.localised_worst) {
      if (lw.output == o.name) w = &lw;
    }
    const std::optional<LocalisedElement> compared_worst = o.worst();
    if (w == nullptr && compared_worst) w = &*compared_worst;
    std::string line = c.id + ": " + o.name;
    if (w != nullptr) {
      std::string at;
      for (const auto& [k, v] : w->coords) {
        at += (at.empty() ? "" : ", ") +
              (k.size() > 1 && k[0] == 'i' && std::isdigit(static_cast<unsigned char>(k[1]))
                   ? ""
                   : k + "=") +
              std::to_string(v);
      }
      line += " worst |err| " + FormatG(w->abs_err, 6) + " at [" + at + "]: candidate " +
              FormatG(w->candidate, 6) + ", reference " + FormatG(w->reference, 6);
    }
    if (!o.rule().empty())
      line += "; rule " + o.rule() + (o.tolerance.empty() ? "" : " (" + o.tolerance + ")");
    if (!o.failure().empty()) line += ": " + o.failure();
    out.push_back(line);
  }
  if (out.empty())
    out.push_back(c.id + ": " +
                  (c.reason.empty() ? std::string(CaseVerdictName(c.verdict)) : c.reason));
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
  for (const NumericsOutput& o : c.outputs) {
    if (o.passed || !o.compared()) continue;
    compared = true;
    worst = std::max(worst, std::isnan(o.max_abs()) ? INFINITY : o.max_abs());
  }
  return compared ? worst : INFINITY;
}

void SortWorstFirst(std::vector<const NumericsCase*>* cases) {
  std::stable_sort(cases->begin(), cases->end(), [](const NumericsCase* a, const NumericsCase* b) {
    return Severity(*a) > Severity(*b);
  });
}

// Up to `limit` failing cases: their failure lines, localisation hints and citations.
void AddFailures(const Context& ctx, std::vector<const NumericsCase*> failing, size_t limit,
                 Check* check) {
  SortWorstFirst(&failing);
  for (size_t i = 0; i < failing.size() && i < limit; ++i) {
    const NumericsCase& c = *failing[i];
    check->citations.push_back(Cite(ctx.ev.numerics->file, c.id));
    for (const std::string& line : DescribeFailure(c)) check->details.push_back(line);
    for (const std::string& h : MergedHints(c)) check->details.push_back(c.id + ": hint: " + h);
  }
  if (failing.size() > limit) {
    check->details.push_back("... and " + std::to_string(failing.size() - limit) +
                             " more failing cases in " + ctx.ev.numerics->file.path);
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
      if (used[j] || parsed[j].text != parsed[i].text || parsed[j].output == parsed[i].output)
        continue;
      used[j] = true;
      outputs += ", " + parsed[j].output;
      all &= parsed[j].lead == "all errors";
      ++merged;
    }
    // A hint of one output keeps its counts; merged ones drop them (the failure lines have them).
    out.push_back(merged == 1 ? parsed[i].original
                              : outputs + ": " + (all ? "all errors " : "nearly all errors ") +
                                    parsed[i].text);
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

std::vector<const NumericsCase*> AttributedElsewhere(
    const Context& ctx, std::string_view self_id, const std::vector<const NumericsCase*>& failing) {
  std::vector<const NumericsCase*> out;
  for (const NumericsCase* c : failing) {
    const ReportAttribution* a = AttributionOf(ctx, c);
    if (a != nullptr && a->check_id != self_id) out.push_back(c);
  }
  return out;
}

Check ExplainedElsewhere(const Context& ctx, const CheckDef& def, const std::string& noun,
                         const std::vector<const NumericsCase*>& passing,
                         const std::vector<const NumericsCase*>& failing, const std::string& how) {
  // Group the failures by the check they are attributed to, in first-seen order.
  std::vector<std::pair<const ReportAttribution*, size_t>> groups;
  for (const NumericsCase* c : failing) {
    const ReportAttribution* a = AttributionOf(ctx, c);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first->check_id == a->check_id; });
    if (it == groups.end())
      groups.push_back({a, 1});
    else
      ++it->second;
  }
  // "causal s_q > 1 cases" -> "causal s_q > 1 case".
  auto singular = [](const std::string& noun) {
    return noun.size() > 1 && noun.back() == 's' ? noun.substr(0, noun.size() - 1) : noun;
  };
  std::string where;
  if (groups.size() == 1) {
    where = (failing.size() == 1 ? "is a " + singular(groups[0].first->cases)
                                 : "are all " + groups[0].first->cases) +
            ", see " + groups[0].first->check_id;
  } else {
    where = "are explained elsewhere: ";
    for (size_t i = 0; i < groups.size(); ++i) {
      const std::string& cases = groups[i].first->cases;
      where += (i ? ", " : "") + std::to_string(groups[i].second) + " " +
               (groups[i].second == 1 ? singular(cases) : cases) + " (" +
               groups[i].first->check_id + ")";
    }
  }
  const std::string failures = failing.size() == 1
                                   ? "its 1 failure "
                                   : "its " + std::to_string(failing.size()) + " failures ";
  Check c;
  if (!passing.empty()) {
    c = MakeCheck(def, CheckStatus::kPass,
                  Plural(passing.size(), singular(noun).c_str(), noun.c_str()) +
                      (passing.size() == 1 ? " passes (e.g. " : " pass (e.g. ") +
                      passing.front()->id + "); " + failures + where);
    c.citations.push_back(Cite(ctx.ev.numerics->file, passing.front()->id));
  } else {
    c = Missing(def,
                "no " + singular(noun) + " passed: " + failures + where +
                    ", so nothing shows this category works on its own; add " + how +
                    " to shapes.json",
                ctx.numerics_cmd);
  }
  for (const auto& [a, n] : groups) c.attributed_to.push_back(a->check_id);
  return c;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

Check NoNumerics(const Context& ctx, const CheckDef& def) {
  return Missing(def, AbsentNote(ctx, "numerics", ctx.cfg.numerics_evidence), ctx.numerics_cmd);
}

std::string StageNote(const Context& ctx, const std::string& stage) {
  if (!ctx.ev.run) return "";
  const StageEntry* s = ctx.ev.run->Stage(stage);
  const std::string log = s == nullptr || s->log.empty() ? "" : " (log " + s->log + ")";
  if (s == nullptr) return "evidence/run.json has no " + stage + " stage";
  switch (s->status) {
    case StageStatus::kSkipped:
      return stage + " skipped: " + (s->reason.empty() ? "no reason recorded" : s->reason);
    case StageStatus::kError:
      return "the " + stage + " stage failed" + (s->reason.empty() ? "" : ": " + s->reason) + log;
    case StageStatus::kRejected:
      return "the " + stage + " stage exited 1 but left no evidence" + log;
    case StageStatus::kOk:
      break;
  }
  return "the " + stage + " stage ended ok but left no evidence" + log;
}

std::vector<Finding> FindingsOf(const Context& ctx, int item) {
  std::vector<Finding> out;
  if (!ctx.ev.review) return out;
  for (const Finding& f : ctx.ev.review->findings) {
    if (f.checklist_item == item) out.push_back(f);
  }
  return out;
}

}  // namespace checklist

}  // namespace av
