#include "review/rules.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "review/change_blocks.h"
#include "review/code_text.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace {

// Rule ids (stable: [review] disable names them, reports and SARIF key on them).
constexpr std::string_view kSmem = "smem.declaration_changed";
constexpr std::string_view kTile = "tile.constant_changed";
constexpr std::string_view kSplit = "splitk.split_constant_changed";
constexpr std::string_view kGuard = "guard.bound_loosened";
constexpr std::string_view kMask = "mask.expression_changed";
constexpr std::string_view kCombine = "splitk.combine_changed";
constexpr std::string_view kSoftmax = "softmax.stability_changed";
constexpr std::string_view kAtomic = "atomics.introduced";
constexpr std::string_view kBarrier = "sync.barrier_removed";
constexpr std::string_view kAccum = "accum.dtype_narrowed";
constexpr std::string_view kFallback = "fallback.switch_removed";
constexpr std::string_view kInterface = "kernel.interface_changed";

const std::vector<RuleInfo>& Rules() {
  static const std::vector<RuleInfo> kRules = {
      {kSmem,
       Severity::kWarning,
       3,
       {},
       "shared-memory declaration changed",
       VerifyWith::kBuild,
       "__shared__ / extern __shared__ arrays, smem size constants, "
       "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)"},
      {kTile,
       Severity::kWarning,
       4,
       {3},
       "tile or pipeline constant changed",
       VerifyWith::kBuild,
       "kBlockM/N/K, BLOCK_*, kTile*, kStages/kNumStages, num_warps, TileShape values (old -> "
       "new)"},
      {kSplit,
       Severity::kWarning,
       5,
       {4},
       "split-k constant changed",
       VerifyWith::kNumerics,
       "num_splits, kNumSplits, kMaxSplits, SPLIT_K values (old -> new)"},
      {kGuard,
       Severity::kError,
       2,
       {4},
       "boundary guard removed or loosened",
       VerifyWith::kNumerics,
       "if/for/while/ternary comparisons or min/max clamps removed, < turned into <="},
      {kMask,
       Severity::kWarning,
       2,
       {},
       "mask expression changed",
       VerifyWith::kNumerics,
       "lines using causal, window, seqlen, cu_seqlens, block_table, mask, or inside a mask "
       "function"},
      {kCombine,
       Severity::kWarning,
       5,
       {1},
       "split-k combine or accumulation changed",
       VerifyWith::kNumerics,
       "LSE / logsumexp, combine, partial outputs, accumulators, split loops"},
      {kSoftmax,
       Severity::kWarning,
       1,
       {5},
       "softmax stability changed",
       VerifyWith::kNumerics,
       "max subtraction, -INFINITY initialisation, exp/exp2 and log/log2 switches, log2(e) "
       "scaling"},
      {kAtomic,
       Severity::kWarning,
       5,
       {},
       "atomic accumulation introduced",
       VerifyWith::kNumerics,
       "new atomicAdd/atomicMax/..., red./atom. PTX, index_add_/scatter_add_ (order-dependent "
       "results)"},
      {kBarrier,
       Severity::kError,
       4,
       {5},
       "barrier or async-copy wait removed",
       VerifyWith::kNumerics,
       "__syncthreads, __syncwarp, cp.async waits, bar.sync, named barriers, pipeline waits, "
       "fences removed or loosened"},
      {kAccum,
       Severity::kError,
       1,
       {},
       "accumulator dtype narrowed",
       VerifyWith::kNumerics,
       "an accumulator (acc, accum, *_sum, ElementAccumulator) changed from float to "
       "half/bf16/fp8"},
      {kFallback,
       Severity::kWarning,
       7,
       {},
       "fallback switch removed",
       VerifyWith::kNumerics,
       "branches or flags named fallback/legacy/use_*/FLASH_*/getenv removed"},
      {kInterface,
       Severity::kWarning,
       6,
       {},
       "kernel interface or layout changed",
       VerifyWith::kBuild,
       "__global__ signatures, stride parameters, Layout/Shape/make_tensor, "
       ".stride()/.contiguous()"},
  };
  return kRules;
}

// ---- the per-file review ---------------------------------------------------------------

class FileReview {
 public:
  FileReview(const FileDiff& file, std::vector<ChangeBlock> blocks, const std::string& component,
             const ReviewOptions& options, std::vector<Finding>* out)
      : file_(file),
        component_(component),
        options_(options),
        out_(out),
        blocks_(std::move(blocks)) {}

  void Run() {
    // Whole-file rules first (they count uses across blocks, so moved code is silent),
    // then per-block rules in precedence order; a line is reported by one rule only.
    Barriers();
    Atomics();
    Fallbacks();
    for (ChangeBlock& b : blocks_) {
      Accumulators(b);
      Constants(b);
      Smem(b);
      Guards(b);
      Interface(b);
      Masks(b);
      CombineAndSoftmax(b);
    }
  }

 private:
  bool Enabled(std::string_view rule) const {
    return std::find(options_.disabled_rules.begin(), options_.disabled_rules.end(), rule) ==
           options_.disabled_rules.end();
  }

  // One finding covering `lines` (claimed by it).
  void Report(std::string_view rule_id, std::vector<CodeLine*> lines, const std::string& message) {
    if (lines.empty() || !Enabled(rule_id)) return;
    const RuleInfo* rule = FindRule(rule_id);
    Finding f;
    f.rule = std::string(rule->id);
    f.severity = rule->severity;
    f.component = component_;
    f.file = file_.path();
    f.checklist_item = rule->checklist_item;
    f.related_items = rule->related_items;
    f.title = std::string(rule->title);
    f.message = message;
    f.verify = VerifyCommand(*rule, options_);
    // New-side lines; a pure deletion is placed where it sat.
    const bool any_added =
        std::any_of(lines.begin(), lines.end(), [](const CodeLine* l) { return l->added; });
    f.line = INT64_MAX;
    int old_lines = 0, new_lines = 0;
    for (CodeLine* l : lines) {
      l->claimed = true;
      if (l->added || !any_added) {
        f.line = std::min(f.line, l->line->anchor);
        f.end_line = std::max(f.end_line, l->line->anchor);
      }
      std::string& side = l->added ? f.new_text : f.old_text;
      int& count = l->added ? new_lines : old_lines;
      if (count < 6) {
        if (!side.empty()) side += '\n';
        side += Shorten(l->source, 200);
      }
      ++count;
    }
    out_->push_back(std::move(f));
  }

  std::string Example(const std::vector<CodeLine*>& lines, bool added) {
    for (const CodeLine* l : lines) {
      if (l->added == added) return "`" + Shorten(l->source, 100) + "`";
    }
    return "";
  }

  std::string OldToNew(const std::vector<CodeLine*>& lines) {
    std::string o = Example(lines, false), n = Example(lines, true);
    if (!o.empty() && !n.empty()) return o + " -> " + n;
    if (!o.empty()) return o + " removed";
    return n + " added";
  }

  void Barriers() {
    std::map<std::string, int> removed, added;
    for (ChangeBlock& b : blocks_) {
      for (CodeLine& l : b.removed) {
        for (const BarrierUse& u : BarrierUses(l)) ++removed[u.key];
      }
      for (CodeLine& l : b.added) {
        for (const BarrierUse& u : BarrierUses(l)) ++added[u.key];
      }
    }
    for (ChangeBlock& b : blocks_) {
      std::vector<CodeLine*> lines;
      std::string what;
      for (CodeLine& l : b.removed) {
        for (const BarrierUse& u : BarrierUses(l)) {
          if (removed[u.key] > added[u.key]) {
            lines.push_back(&l);
            if (what.empty()) {
              what = "`" + u.key + "` removed (" + std::to_string(removed[u.key]) + " removed, " +
                     std::to_string(added[u.key]) + " added in this file)";
            }
            break;
          }
        }
      }
      // A wait that now lets more copies stay in flight: cp_async_wait<0> -> <1>.
      for (CodeLine& r : b.removed) {
        if (r.claimed || std::find(lines.begin(), lines.end(), &r) != lines.end()) continue;
        for (const BarrierUse& ru : BarrierUses(r)) {
          if (ru.arg < 0) continue;
          for (CodeLine& a : b.added) {
            for (const BarrierUse& au : BarrierUses(a)) {
              if (au.key == ru.key && au.arg > ru.arg) {
                lines.push_back(&r);
                lines.push_back(&a);
                if (what.empty()) {
                  what = "`" + ru.key + "` now waits for " + std::to_string(au.arg) +
                         " groups in flight instead of " + std::to_string(ru.arg);
                }
              }
            }
          }
        }
      }
      if (!lines.empty()) {
        Report(kBarrier, lines,
               what +
                   ": is every shared-memory write still ordered before its read? "
                   "Races show up as run-to-run differences.");
      }
    }
  }

  void Atomics() {
    std::map<std::string, int> removed, added;
    for (ChangeBlock& b : blocks_) {
      for (CodeLine& l : b.removed) {
        for (const std::string& k : AtomicKeys(l)) ++removed[k];
      }
      for (CodeLine& l : b.added) {
        for (const std::string& k : AtomicKeys(l)) ++added[k];
      }
    }
    for (ChangeBlock& b : blocks_) {
      std::vector<CodeLine*> lines;
      std::string what;
      for (CodeLine& l : b.added) {
        for (const std::string& k : AtomicKeys(l)) {
          if (added[k] > removed[k]) {
            lines.push_back(&l);
            if (what.empty()) what = "`" + k + "` introduced";
            break;
          }
        }
      }
      if (!lines.empty()) {
        Report(kAtomic, lines,
               what +
                   ": floating-point results now depend on thread order; check that reruns "
                   "and num_splits variants agree within tolerance.");
      }
    }
  }

  void Fallbacks() {
    std::map<std::string, int> removed, added;
    auto keys = [](const CodeLine& l) {
      std::vector<std::string> k;
      bool pre = !l.code.empty() && l.code[0] == '#';
      for (const Token& t : l.tokens) {
        if (IsFallbackIdentifier(t, pre)) k.push_back(t.text);
      }
      for (std::string& e : EnvReads(l)) k.push_back(std::move(e));
      return k;
    };
    for (ChangeBlock& b : blocks_) {
      for (CodeLine& l : b.removed) {
        for (const std::string& k : keys(l)) ++removed[k];
      }
      for (CodeLine& l : b.added) {
        for (const std::string& k : keys(l)) ++added[k];
      }
    }
    for (ChangeBlock& b : blocks_) {
      std::vector<CodeLine*> lines;
      std::string what;
      for (size_t i = 0; i < b.removed.size(); ++i) {
        CodeLine& l = b.removed[i];
        if (l.claimed || !IsBranchOrFlag(l)) continue;
        bool hit = false;
        for (const std::string& k : keys(l)) {
          if (removed[k] > added[k]) {
            hit = true;
            if (what.empty()) what = "`" + k + "` is gone";
            break;
          }
        }
        if (!hit) continue;
        lines.push_back(&l);
        // The removed branch's body goes with it: the following deleted lines indented
        // deeper, and the closing brace.
        const int indent = IndentOf(l.line->text);
        for (size_t j = i + 1; j < b.removed.size(); ++j) {
          CodeLine& body = b.removed[j];
          if (body.line->old_line != b.removed[j - 1].line->old_line + 1) break;
          bool deeper = IndentOf(body.line->text) > indent;
          bool closing = IndentOf(body.line->text) == indent && body.code.rfind("}", 0) == 0;
          if (!deeper && !closing) break;
          lines.push_back(&body);
          i = j;
          if (closing) break;
        }
      }
      if (!lines.empty()) {
        Report(kFallback, lines,
               what + " (" + Example(lines, false) +
                   "): can the old path still be selected, by shape, dtype or flag?");
      }
    }
  }

  void Accumulators(ChangeBlock& b) {
    std::vector<CodeLine*> lines;
    std::string what;
    for (CodeLine& r : b.removed) {
      if (r.claimed) continue;
      bool wide = std::any_of(r.tokens.begin(), r.tokens.end(), IsWideType);
      if (!wide) continue;
      const CodeLine* a = BestMatch(r, b.added, 0.4);
      if (a == nullptr) continue;
      int old_narrow = 0, new_narrow = 0;
      for (const Token& t : r.tokens) old_narrow += IsNarrowType(t);
      std::string narrow;
      for (const Token& t : a->tokens) {
        if (IsNarrowType(t)) {
          ++new_narrow;
          narrow = t.text;
        }
      }
      if (new_narrow <= old_narrow) continue;
      bool acc = std::any_of(r.tokens.begin(), r.tokens.end(), IsAccumulatorName) ||
                 std::any_of(a->tokens.begin(), a->tokens.end(), IsAccumulatorName);
      if (!acc) continue;
      lines.push_back(&r);
      lines.push_back(const_cast<CodeLine*>(a));
      if (what.empty())
        what =
            "accumulator narrowed to `" + narrow + "`: " + OldToNew({&r, const_cast<CodeLine*>(a)});
    }
    if (!lines.empty()) {
      Report(kAccum, lines,
             what +
                 ". Sums over long sequences lose precision; compare against the "
                 "low-precision reference.");
    }
  }

  void Constants(ChangeBlock& b) {
    for (auto [rule, want] :
         {std::pair<std::string_view, bool (*)(std::string_view)>{kSplit, &IsSplitConstant},
          {kTile, &IsTileConstant}}) {
      std::map<std::string, std::pair<std::string, CodeLine*>> old_defs;
      for (CodeLine& r : b.removed) {
        if (r.claimed) continue;
        for (auto& [name, value] : Definitions(r, want)) {
          if (IsConstantValue(value)) old_defs.emplace(name, std::make_pair(StripValue(value), &r));
        }
      }
      std::vector<CodeLine*> lines;
      std::string what;
      std::set<std::string> seen;
      for (CodeLine& a : b.added) {
        if (a.claimed) continue;
        for (auto& [name, value] : Definitions(a, want)) {
          auto it = old_defs.find(name);
          if (it == old_defs.end() || it->second.first == StripValue(value) ||
              !IsConstantValue(value) || !seen.insert(name).second) {
            continue;
          }
          std::string o = it->second.first, n = StripValue(value);
          std::string change = name + " " + o + " -> " + n;
          long long ov = 0, nv = 0;
          if (ParseIntLiteral(o, &ov) && ParseIntLiteral(n, &nv) && ov > 0) {
            if (nv > ov && nv % ov == 0) change += " (x" + std::to_string(nv / ov) + ")";
            if (nv < ov && ov % (nv == 0 ? 1 : nv) == 0 && nv != 0)
              change += " (/" + std::to_string(ov / nv) + ")";
          }
          what += (what.empty() ? "" : "; ") + change;
          if (std::find(lines.begin(), lines.end(), it->second.second) == lines.end())
            lines.push_back(it->second.second);
          if (std::find(lines.begin(), lines.end(), &a) == lines.end()) lines.push_back(&a);
        }
      }
      if (rule == kTile) TemplateArguments(b, &lines, &what);
      if (lines.empty()) continue;
      std::string why = rule == kSplit ? ": the split count changes the accumulation order and the "
                                         "partial buffers; check the "
                                         "combine at several sequence lengths and num_splits."
                                       : ": shared memory, registers and occupancy scale with the "
                                         "tile; check ptxas against the "
                                         "arch's cap and the boundary tiles.";
      Report(rule, lines, what + why);
    }
  }

  // Tile configs passed as template arguments: Flash_fwd_kernel_traits<D, 128, 64, 4>
  // -> <D, 128, 128, 4>. Only numbers differ, on a line naming traits/config/tile/shape.
  void TemplateArguments(ChangeBlock& b, std::vector<CodeLine*>* lines, std::string* what) {
    for (CodeLine& r : b.removed) {
      if (r.claimed || std::find(lines->begin(), lines->end(), &r) != lines->end()) continue;
      bool config_line = false, has_angle = false;
      for (const Token& t : r.tokens) {
        if (t.text == "<") has_angle = true;
        if (t.kind == TokenKind::kIdentifier &&
            HasWord(t.text, {"traits", "config", "tile", "shape", "cluster"})) {
          config_line = true;
        }
      }
      if (!config_line || !has_angle) continue;
      const CodeLine* a = BestMatch(r, b.added, 0.5);
      if (a == nullptr || a->claimed || a->tokens.size() != r.tokens.size()) continue;
      std::string diffs;
      bool only_numbers = true;
      for (size_t i = 0; i < r.tokens.size(); ++i) {
        if (r.tokens[i].text == a->tokens[i].text) continue;
        if (r.tokens[i].kind != TokenKind::kNumber || a->tokens[i].kind != TokenKind::kNumber) {
          only_numbers = false;
          break;
        }
        diffs += (diffs.empty() ? "" : ", ") + r.tokens[i].text + " -> " + a->tokens[i].text;
      }
      if (!only_numbers || diffs.empty()) continue;
      lines->push_back(&r);
      lines->push_back(const_cast<CodeLine*>(a));
      *what += (what->empty() ? "" : "; ") + std::string("template arguments ") + diffs + " in `" +
               Shorten(a->source, 100) + "`";
    }
  }

  void Smem(ChangeBlock& b) {
    std::vector<CodeLine*> lines;
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& l : *side) {
        if (!l.claimed && IsSmemLine(l)) lines.push_back(&l);
      }
    }
    if (!lines.empty()) {
      Report(kSmem, lines,
             "shared-memory declaration changed: " + OldToNew(lines) +
                 ". Does it still fit the arch's cap at the configured block size?");
    }
  }

  void Guards(ChangeBlock& b) {
    std::vector<const CodeLine*> rem, add;
    for (CodeLine& l : b.removed) rem.push_back(&l);
    for (CodeLine& l : b.added) add.push_back(&l);
    std::vector<CodeLine*> lines;
    std::string what;
    const int before = GuardStrength(rem), after = GuardStrength(add);
    for (CodeLine& r : b.removed) {
      if (r.claimed || !IsGuardLine(r) || GuardStrength({&r}) == 0) continue;
      const CodeLine* a = BestMatch(r, b.added, 0.5);
      if (a == nullptr || !IsGuardLine(*a)) {
        if (after < before) {
          lines.push_back(&r);
          if (what.empty()) what = "bounds check " + Example({&r}, false) + " removed";
        }
        continue;
      }
      std::vector<std::string> o = ComparisonOps(r), n = ComparisonOps(*a);
      bool loosened = false;
      if (o.size() == n.size()) {
        for (size_t i = 0; i < o.size(); ++i) {
          if ((o[i] == "<" && n[i] == "<=") || (o[i] == ">" && n[i] == ">=")) loosened = true;
        }
      }
      if (GuardStrength({a}) < GuardStrength({&r})) loosened = true;
      if (loosened) {
        lines.push_back(&r);
        lines.push_back(const_cast<CodeLine*>(a));
        if (what.empty())
          what = "bounds check loosened: " + OldToNew({&r, const_cast<CodeLine*>(a)});
      }
    }
    if (!lines.empty()) {
      Report(kGuard, lines,
             what +
                 ". Shapes at tile edges (1, 63, 64, 65, 127, 128, 129) read or write past the "
                 "end if the bound is off by one.");
    }
  }

  void Interface(ChangeBlock& b) {
    std::vector<CodeLine*> lines;
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& l : *side) {
        if (l.claimed) continue;
        bool hit = l.in_kernel_signature;
        for (size_t i = 0; i < l.tokens.size() && !hit; ++i) {
          const Token& t = l.tokens[i];
          if (t.kind != TokenKind::kIdentifier) continue;
          if (HasWord(t.text, {"stride", "strides", "layout"}) || t.text == "make_tensor" ||
              t.text == "make_shape" || t.text == "Shape" || t.text == "contiguous" ||
              t.text == "transpose" || t.text == "permute") {
            hit = true;
          }
        }
        if (hit) lines.push_back(&l);
      }
    }
    if (!lines.empty()) {
      Report(kInterface, lines,
             "kernel interface or layout changed: " + OldToNew(lines) +
                 ". Do every caller's arguments, strides and dtypes still match the declaration?");
    }
  }

  void Masks(ChangeBlock& b) {
    std::vector<CodeLine*> lines;
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& l : *side) {
        if (l.claimed) continue;
        bool hit = IsMaskFunction(l.function);
        const bool comparing = Compares(l);
        for (const Token& t : l.tokens) {
          if (t.kind == TokenKind::kIdentifier && IsMaskIdentifier(t.text, comparing)) hit = true;
        }
        if (hit) lines.push_back(&l);
      }
    }
    if (!lines.empty()) {
      std::string where;
      for (const CodeLine* l : lines) {
        if (IsMaskFunction(l->function)) {
          where = " in " + l->function + "()";
          break;
        }
      }
      Report(kMask, lines,
             "mask expression changed" + where + ": " + OldToNew(lines) +
                 ". Is the alignment still right for s_q > 1, varlen and block edges?");
    }
  }

  void CombineAndSoftmax(ChangeBlock& b) {
    std::vector<CodeLine*> softmax, combine;
    for (auto* side : {&b.removed, &b.added}) {
      for (CodeLine& l : *side) {
        if (l.claimed) continue;
        bool c = IsCombineLine(l);
        bool s = std::any_of(l.tokens.begin(), l.tokens.end(), IsSoftmaxToken);
        if (c) {
          combine.push_back(&l);
        } else if (s) {
          softmax.push_back(&l);
        }
      }
    }
    // exp -> exp2 (or log -> log2) changes the base of every LSE downstream.
    auto exp_switch = [](const std::vector<CodeLine*>& lines) -> std::string {
      std::vector<const CodeLine*> o, n;
      for (const CodeLine* l : lines) (l->added ? n : o).push_back(l);
      std::set<std::string> fo = ExpLogFunctions(o), fn = ExpLogFunctions(n);
      if (fo.empty() || fn.empty() || fo == fn) return "";
      auto join = [](const std::set<std::string>& s) {
        std::string j;
        for (const std::string& x : s) j += (j.empty() ? "" : "/") + x;
        return j;
      };
      return " exp/log switch " + join(fo) + " -> " + join(fn) +
             ": exp2 needs its argument scaled by log2(e), and the LSE's base must match its "
             "reader's.";
    };
    if (!combine.empty()) {
      Report(kCombine, combine,
             "split-k combine or accumulation changed: " + OldToNew(combine) +
                 ". Do the partial outputs and LSE still combine to the unsplit result?" +
                 exp_switch(combine));
    }
    if (!softmax.empty()) {
      Report(kSoftmax, softmax,
             "softmax max-subtraction or normalisation changed: " + OldToNew(softmax) + "." +
                 exp_switch(softmax));
    }
  }

  const FileDiff& file_;
  const std::string& component_;
  const ReviewOptions& options_;
  std::vector<Finding>* out_;
  std::vector<ChangeBlock> blocks_;
};

// Findings of one rule on touching or adjacent lines become one.
void MergeAdjacent(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    return a.line != b.line ? a.line < b.line : a.rule < b.rule;
  });
  std::vector<Finding> out;
  for (Finding& f : *findings) {
    bool merged = false;
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      if (it->rule == f.rule && f.line <= it->end_line + 1) {
        it->end_line = std::max(it->end_line, f.end_line);
        if (!f.old_text.empty()) it->old_text += (it->old_text.empty() ? "" : "\n") + f.old_text;
        if (!f.new_text.empty()) it->new_text += (it->new_text.empty() ? "" : "\n") + f.new_text;
        if (it->message != f.message && it->message.size() < 600) it->message += " " + f.message;
        merged = true;
        break;
      }
      if (it->end_line + 1 < f.line) break;
    }
    if (!merged) out.push_back(std::move(f));
  }
  *findings = std::move(out);
}

}  // namespace

std::span<const RuleInfo> BuiltinRules() { return Rules(); }

std::vector<std::string> BuiltinRuleIds() {
  std::vector<std::string> ids;
  for (const RuleInfo& r : Rules()) ids.emplace_back(r.id);
  return ids;
}

const RuleInfo* FindRule(std::string_view id) {
  for (const RuleInfo& r : Rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::vector<std::string> VerifyCommand(const RuleInfo& rule, const ReviewOptions& options) {
  if (rule.verify == VerifyWith::kBuild) {
    return {"attnverify", "build", "--config", options.config_path, "--base", options.base};
  }
  return {"attnverify", "numerics", "--config", options.config_path};
}

std::vector<Finding> ReviewDiff(const Diff& diff, const std::string& component,
                                const ReviewOptions& options, int64_t* files_reviewed,
                                int64_t* files_skipped) {
  // Renames are judged across all the diff's code files: a function renamed in its header
  // and at its call sites in a .cu is one rename.
  std::vector<ReviewCodeFile> code_files;
  for (const FileDiff& file : diff.files) {
    SourceLanguage language = LanguageOfPath(file.path());
    if (file.binary || language == SourceLanguage::kOther || IsTestOrDocPath(file.path()) ||
        file.hunks.empty()) {
      if (files_skipped) ++*files_skipped;
      continue;
    }
    if (files_reviewed) ++*files_reviewed;
    code_files.push_back({&file, language});
  }
  std::vector<std::vector<ChangeBlock>> blocks = BuildDiffChangeBlocks(code_files);
  std::vector<Finding> all;
  for (size_t i = 0; i < code_files.size(); ++i) {
    std::vector<Finding> found;
    FileReview(*code_files[i].file, std::move(blocks[i]), component, options, &found).Run();
    MergeAdjacent(&found);
    for (Finding& f : found) all.push_back(std::move(f));
  }
  return all;
}

void NumberFindings(std::vector<Finding>* findings) {
  for (size_t i = 0; i < findings->size(); ++i) {
    char id[32];  // "F" and up to 20 digits
    std::snprintf(id, sizeof(id), "F%03zu", i + 1);
    (*findings)[i].id = id;
  }
}

}  // namespace av
