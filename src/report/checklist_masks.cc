// Item 2 (masks and boundaries) of the checklist, from evidence/numerics.json: the mask
// categories, the attribution of failing cases to the category that explains them
// (doc/report.md, "Attribution"), the judges of the category rows, and the coverage grid.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "report/checklist_internal.h"

namespace av::checklist {
namespace {

// One mask or boundary category; its check id and title are its row of the check table.
struct Category {
  const char* how;  // what to add to shapes.json
  std::set<std::string> ops;
  bool (*match)(const NumericsCase&);
  const char* cases;  // its cases, in a note elsewhere: "causal s_q > 1 cases"
  // Localisation hint phrases (src/numerics/localise.cc) that point at this category.
  std::vector<const char*> hints;
};

bool OnBlockEdge(int64_t s) { return s >= 63 && (s % 64 == 63 || s % 64 == 1); }

// Indexed by MaskCategory.
const std::vector<Category>& Categories() {
  static const std::vector<Category> kCategories = {
      {"\"causal\": [false, true]",
       {"attention"},
       [](const NumericsCase& c) { return BoolParam(c, "causal"); },
       "causal cases",
       {}},
      {"a causal case with 1 < s_q != s_k, e.g. {\"causal\": true, \"s_q\": 5, \"s_k\": 33}",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) {
         int64_t sq = IntParam(c, "s_q").value_or(1), sk = IntParam(c, "s_k").value_or(0);
         return BoolParam(c, "causal") && sq > 1 && sq != sk;
       },
       "causal s_q > 1 cases",
       {"causal mask is misaligned", "not bottom-right"}},
      {"\"window_left\": [-1, 16] (or window_right >= 0)",
       {"attention"},
       [](const NumericsCase& c) {
         return IntParam(c, "window_left").value_or(-1) >= 0 ||
                IntParam(c, "window_right").value_or(-1) >= 0;
       },
       "sliding-window cases",
       {"window edge", "window is clipped", "right window edge"}},
      {"\"layout\": \"varlen\"",
       {"attention"},
       [](const NumericsCase& c) { return StrParam(c, "layout") == "varlen"; },
       "varlen cases",
       {}},
      {"\"lengths\": \"random\" (or \"edges\", \"half_empty\")",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) {
         std::string l = StrParam(c, "lengths");
         return !l.empty() && l != "full";
       },
       "key-padding cases",
       {"empty sequences (s_k = 0)"}},
      {"\"layout\": \"paged\"",
       {"attention"},
       [](const NumericsCase& c) { return StrParam(c, "layout") == "paged"; },
       "paged cases",
       {}},
      {"an s_k that is not a multiple of 64, e.g. 70",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) { return IntParam(c, "s_k").value_or(0) % 64 != 0; },
       "partial-block cases",
       {"key length is not a multiple of 64", "ends a partial 64-key tile"}},
      {"\"s_k\": [63, 65, 127, 129] or \"lengths\": \"edges\"",
       {"attention", "mla_decode"},
       [](const NumericsCase& c) {
         return OnBlockEdge(IntParam(c, "s_k").value_or(0)) || StrParam(c, "lengths") == "edges";
       },
       "block-edge cases",
       {}},
      {"\"indices\": [\"random\", \"mixed\"]",
       {"sparse_attention"},
       [](const NumericsCase& c) {
         std::string i = StrParam(c, "indices");
         return i == "mixed" || i == "all_invalid";
       },
       "invalid-index cases",
       {}},
  };
  return kCategories;
}

// The table row of category k.
const CheckDef& CategoryDef(size_t k) {
  for (const CheckDef& def : Checks()) {
    if (def.judge == &JudgeMaskCategory && def.arg == static_cast<int>(k)) return def;
  }
  static const CheckDef kNone{};
  return kNone;  // unreachable: every category has a row (checklist_table_test.cc)
}

bool Judged(const NumericsCase& c) { return c.passed() || c.failed(); }

bool InCategory(const Category& cat, const NumericsCase& c) {
  return cat.ops.count(c.op) && cat.match(c);
}

bool HintPointsAt(const Category& cat, const NumericsCase& c) {
  for (const std::string& h : c.hints) {
    for (const char* phrase : cat.hints) {
      if (h.find(phrase) != std::string::npos) return true;
    }
  }
  return false;
}

// The ops of the sweep this category applies to, in the category's order.
std::vector<std::string> ApplicableOps(const Category& cat,
                                       const std::vector<const NumericsCase*>& base) {
  std::set<std::string> swept;
  for (const NumericsCase* c : base) swept.insert(c->op);
  std::vector<std::string> out;
  for (const std::string& op : cat.ops) {
    if (swept.count(op)) out.push_back(op);
  }
  return out;
}

void Split(const Category& cat, const std::vector<const NumericsCase*>& base,
           std::vector<const NumericsCase*>* passing, std::vector<const NumericsCase*>* failing) {
  for (const NumericsCase* c : base) {
    if (!InCategory(cat, *c)) continue;
    if (c->passed())
      passing->push_back(c);
    else if (c->failed())
      failing->push_back(c);
  }
}

}  // namespace

// Attribution (doc/report.md): a failing base case is explained by a mask category that
// holds it and either fails on every one of its cases or is named by the case's hints.
// Among several: hinted and fully failing first, then hinted, then fully failing; ties go
// to the category with more failing cases (fewest explanations for all failures), then
// the smaller one, then the later (narrower) row of the table (causal_alignment over causal).
std::map<const NumericsCase*, ReportAttribution> AttributeFailures(const NumericsEvidence& n) {
  std::map<const NumericsCase*, ReportAttribution> out;
  std::vector<const NumericsCase*> base = BaseCases(n);
  const std::vector<Category>& cats = Categories();
  std::vector<size_t> total(cats.size(), 0), failed(cats.size(), 0);
  for (size_t k = 0; k < cats.size(); ++k) {
    for (const NumericsCase* c : base) {
      if (!Judged(*c) || !InCategory(cats[k], *c)) continue;
      ++total[k];
      failed[k] += c->failed();
    }
  }
  for (const NumericsCase* c : base) {
    if (!c->failed()) continue;
    int best = -1;
    std::tuple<bool, bool, size_t, int64_t, size_t> best_rank{false, false, 0, 0, 0};
    for (size_t k = 0; k < cats.size(); ++k) {
      if (!InCategory(cats[k], *c)) continue;
      const bool full = failed[k] == total[k];
      const bool hinted = HintPointsAt(cats[k], *c);
      if (!full && !hinted) continue;
      std::tuple<bool, bool, size_t, int64_t, size_t> rank{hinted, full, failed[k],
                                                           -static_cast<int64_t>(total[k]), k};
      if (best < 0 || rank > best_rank) best = static_cast<int>(k), best_rank = rank;
    }
    if (best < 0) continue;
    const size_t k = static_cast<size_t>(best);
    std::string why;
    if (failed[k] == total[k])
      why = "every one of its " + Plural(total[k], "case", "cases") + " fails";
    if (HintPointsAt(cats[k], *c))
      why += std::string(why.empty() ? "" : "; ") + "the case's localisation hint names it";
    out[c] = {std::string(CategoryDef(k).id), cats[k].cases, why};
  }
  return out;
}

std::optional<Check> JudgeMaskCategory(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return std::nullopt;
  const Category& cat = Categories().at(static_cast<size_t>(def.arg));
  const std::vector<const NumericsCase*> base = BaseCases(*ctx.ev.numerics);
  const std::vector<std::string> applicable = ApplicableOps(cat, base);
  if (applicable.empty()) return std::nullopt;
  std::vector<const NumericsCase*> passing, failing;
  Split(cat, base, &passing, &failing);
  std::vector<const NumericsCase*> elsewhere = AttributedElsewhere(ctx, def.id, failing), own;
  for (const NumericsCase* c : failing) {
    if (std::find(elsewhere.begin(), elsewhere.end(), c) == elsewhere.end()) own.push_back(c);
  }
  if (!failing.empty() && own.empty()) {
    return ExplainedElsewhere(ctx, def, cat.cases, passing, failing, cat.how);
  }
  if (!failing.empty()) {
    // The item table shows "title: summary": the summary does not repeat the title.
    Check c = MakeCheck(
        def, CheckStatus::kFail,
        passing.empty() ? "all " + Plural(failing.size(), "case", "cases") + " failed"
                        : std::to_string(failing.size()) + " of " +
                              Plural(failing.size() + passing.size(), "case", "cases") + " failed");
    if (!elsewhere.empty()) {
      c.summary += "; " + std::to_string(elsewhere.size()) +
                   " of them attributed to other checks, " + std::to_string(own.size()) + " not";
    }
    ListFailures(ctx, own, &c);
    return c;
  }
  if (passing.empty()) {
    return Missing(def,
                   "no case exercised " + std::string(def.title) + " (" + JoinList(applicable) +
                       "), however many others passed; add " + cat.how + " to shapes.json",
                   ctx.numerics_cmd);
  }
  Check c = MakeCheck(def, CheckStatus::kPass,
                      Plural(passing.size(), "case", "cases") + " exercised it, all passed (e.g. " +
                          passing.front()->id + ")");
  c.citations.push_back(Cite(ctx.ev.numerics->file, passing.front()->id));
  return c;
}

std::optional<Check> JudgeMaskCoverage(const Context& ctx, const CheckDef& def) {
  if (!ctx.ev.numerics) return NoNumerics(ctx, def);
  const std::vector<const NumericsCase*> base = BaseCases(*ctx.ev.numerics);
  for (const Category& cat : Categories()) {
    if (!ApplicableOps(cat, base).empty()) return std::nullopt;  // the category rows judge it
  }
  return Missing(
      def, "no attention, mla_decode or sparse_attention case in " + ctx.ev.numerics->file.path,
      ctx.numerics_cmd);
}

std::vector<CoverageCell> ComputeCoverage(const Context& ctx) {
  std::vector<CoverageCell> out;
  if (!ctx.ev.numerics) return out;
  const std::vector<const NumericsCase*> base = BaseCases(*ctx.ev.numerics);
  const std::vector<Category>& cats = Categories();
  for (size_t k = 0; k < cats.size(); ++k) {
    std::vector<const NumericsCase*> passing, failing;
    Split(cats[k], base, &passing, &failing);
    // The grid's category label is the check's name: "2.causal" -> "causal".
    const std::string_view id = CategoryDef(k).id;
    const std::string label(id.substr(id.find('.') + 1));
    for (const std::string& op : ApplicableOps(cats[k], base)) {
      CoverageCell cell{op, label, 0, 0};
      for (const NumericsCase* c : passing) cell.passed += c->op == op;
      for (const NumericsCase* c : failing) cell.failed += c->op == op;
      out.push_back(cell);
    }
  }
  // Coverage per dtype (item 1 judges it).
  std::map<std::pair<std::string, std::string>, CoverageCell> dtypes;
  for (const NumericsCase* c : base) {
    CoverageCell& cell = dtypes[{c->op, c->dtype}];
    cell.op = c->op;
    cell.category = "dtype " + c->dtype;
    cell.passed += c->passed();
    cell.failed += c->failed();
  }
  for (const auto& [key, cell] : dtypes) out.push_back(cell);
  return out;
}

}  // namespace av::checklist
