// Attention rules: masks and lengths, the split-k combine, softmax stability. GEMM code
// gets none of the mask or softmax questions (component_kind.h).
#include <algorithm>
#include <functional>
#include <set>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT

// Input validation on a host API (TORCH_CHECK(x.dtype() == ...), CHECK_DEVICE(block_table)):
// it names tensors, it computes no mask.
bool IsCheckMacro(const CodeLine& l) {
  if (l.tokens.empty() || l.tokens[0].kind != TokenKind::kIdentifier) return false;
  const std::string& x = l.tokens[0].text;
  return x == "TORCH_CHECK" || x == "assert" || x == "AT_ASSERT" || x.rfind("CHECK_", 0) == 0 ||
         x.rfind("DG_HOST_ASSERT", 0) == 0 || x == "TORCH_INTERNAL_ASSERT";
}

// LSE, combine and partial outputs always; accumulators where they accumulate; split
// counts only inside a combine (a read of `num_splits_ptr[b]` elsewhere is indexing).
bool IsCombine(const CodeLine& l, bool splits_count, bool attention) {
  bool accumulates = false;
  for (const Token& t : l.tokens) {
    if (t.text == "+=" || t.text == "fma" || t.text == "fmaf" || t.text == "__fmaf_rn")
      accumulates = true;
  }
  for (const Token& t : l.tokens) {
    if (t.kind != TokenKind::kIdentifier) continue;
    const std::vector<std::string> w = IdentifierWords(t.text);
    const bool pointer = !w.empty() && (w.back() == "ptr" || w.back() == "ptrs");
    for (const std::string& x : w) {
      if (attention && (x == "lse" || x == "logsumexp" || x == "oaccum")) return true;
      if (x == "combine") return true;
      // "partial" is a combine word only inside a combine (a partial warp is not a split).
      if ((x == "partial" || x == "partials") && splits_count) return true;
      if (x == "splits" && splits_count && !pointer) return true;
      if (accumulates && (x == "acc" || x == "accum")) return true;
    }
  }
  return false;
}

// A line that is a combine line only because it accumulates (`acc += ...`).
bool AccumulatesOnly(const CodeLine& l) {
  for (const Token& t : l.tokens) {
    if (t.kind != TokenKind::kIdentifier) continue;
    for (const std::string& x : IdentifierWords(t.text)) {
      if (x == "lse" || x == "logsumexp" || x == "oaccum" || x == "combine" || x == "partial" ||
          x == "partials" || x == "splits") {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

namespace {

// Some token that differs between two versions of a line (after their common prefix and
// suffix) is one `want` accepts: the change itself touches it, not only the line.
bool ChangeHas(const CodeLine& a, const CodeLine& b, const std::function<bool(const Token&)>& want) {
  const auto& x = a.tokens;
  const auto& y = b.tokens;
  const auto [pre, suf] = CommonTokenEnds(x, y);
  for (const auto* t : {&x, &y}) {
    for (size_t i = pre; i + suf < t->size(); ++i) {
      if (want((*t)[i])) return true;
    }
  }
  return false;
}

// The tokens that differ between two versions of a line (after their common prefix and
// suffix) name a mask or length, or the line sets a mask-named value (`causal = ...`).
bool MaskInChange(const CodeLine& a, const CodeLine& b) {
  auto mask_word = [](const Token& t) {
    return t.kind == TokenKind::kIdentifier && IsMaskIdentifier(t.text, true);
  };
  if (ChangeHas(a, b, mask_word)) return true;
  for (const auto* t : {&a.tokens, &b.tokens}) {
    for (size_t i = 0; i < t->size(); ++i) {
      if ((*t)[i].text == "=" || (*t)[i].text == "(") break;
      if ((*t)[i].kind == TokenKind::kIdentifier && IsMaskIdentifier((*t)[i].text, false)) return true;
    }
  }
  return false;
}

// A comparison of values, not a null test (`p == nullptr`, `x is None`): testing whether an
// optional input was passed selects a path, it does not compare a position with a bound.
bool ComparesValues(const CodeLine& l) {
  const auto& t = l.tokens;
  auto null = [&](size_t j) {
    return j < t.size() && (t[j].text == "nullptr" || t[j].text == "NULL" || t[j].text == "None" ||
                            t[j].text == "nullopt");
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (IsComparisonAt(t, i) && !null(i + 1) && !(i > 0 && null(i - 1))) return true;
    if (t[i].text == "min" || t[i].text == "max" || t[i].text == "minimum" ||
        t[i].text == "maximum" || t[i].text == "where" || t[i].text == "clamp" ||
        t[i].text == "fminf" || t[i].text == "fmaxf") {
      return true;
    }
    // `mask=` as a keyword argument of a load or store applies a mask.
    if (t[i].kind == TokenKind::kIdentifier && i + 1 < t.size() && t[i + 1].text == "=" &&
        (t[i].text == "mask" || t[i].text == "other") && i > 0 &&
        (t[i - 1].text == "," || t[i - 1].text == "(")) {
      return true;
    }
  }
  return false;
}

// The line computes or applies something (round 11): a value comparison, a clamp or select,
// arithmetic, a logical combination, a branch, or an assignment to a mask-named value. A
// declaration, a keyword argument set to a literal (`causal=True,`), a call wrapped in
// another helper, a kernel pointer taken or its type, a log string or a pragma compute none:
// a mask word on such a line is a name, not a mask that changed.
bool ComputesOnLine(const CodeLine& l) {
  if (!l.code.empty() && l.code[0] == '#') return false;
  const auto& t = l.tokens;
  // A tile or stage heuristic (`num_stages = 1 if D <= 64 else 2 if not causal else 1`)
  // picks a configuration; the mask names it reads are inputs to the choice.
  if (t.size() >= 2 && t[1].text == "=" && t[0].kind == TokenKind::kIdentifier &&
      IsTileConstant(t[0].text)) {
    return false;
  }
  // A choice made on whether an optional input was passed (`x if x is not None else y`)
  // computes nothing with it.
  const bool presence_only =
      std::any_of(t.begin(), t.end(), [](const Token& x) { return x.text == "None"; }) &&
      std::none_of(t.begin(), t.end(), [](const Token& x) {
        return x.kind == TokenKind::kOperator && x.text != "." && x.text != "(" &&
               x.text != ")" && x.text != "," && x.text != ":" && x.text != "=" &&
               x.text != "[" && x.text != "]";
      });
  if (presence_only) return false;
  if (ComparesValues(l)) return true;
  if (t.empty()) return false;
  const std::string& first = t[0].text;
  if (first == "if" || first == "elif" || first == "while") {
    // A branch on whether an optional input was passed (`if cu_seqlens is not None:`,
    // `if (cu_seqlens_q != nullptr)`) selects a path; it compares no position.
    // A bare flag (`if CAUSAL:`) still branches on the mask: only a test against null is
    // a presence test.
    bool only_presence = std::any_of(t.begin(), t.end(), [](const Token& x) {
      return x.text == "None" || x.text == "nullptr" || x.text == "NULL";
    });
    for (size_t i = 1; i < t.size() && only_presence; ++i) {
      const Token& x = t[i];
      only_presence = x.kind == TokenKind::kIdentifier || x.text == "." || x.text == "(" ||
                      x.text == ")" || x.text == ":" || x.text == "{" || x.text == "!" ||
                      x.text == "&&" || x.text == "||" || x.text == "->" ||
                      ((x.text == "==" || x.text == "!=") && i + 1 < t.size() &&
                       (t[i + 1].text == "nullptr" || t[i + 1].text == "NULL"));
    }
    return !only_presence;
  }
  if (first == "for") return true;
  const std::vector<bool> angle = TemplateAngles(t);
  bool assign_to_mask = false, before_assign = true;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (t[i].kind == TokenKind::kOperator && !angle[i] &&
        (x == "+" || x == "-" || x == "%" || x == "/" || x == "&&" || x == "||" || x == "!" ||
         x == "+=" || x == "-=" || x == "//")) {
      // A leading `-` of a literal (`-1`) or `->` is no arithmetic.
      if (!(x == "-" && (i == 0 || t[i - 1].text == "(" || t[i - 1].text == ","))) return true;
    }
    if (x == "not" || x == "and" || x == "or" || x == "else") return true;
    if (x == "=" && before_assign) {
      before_assign = false;
      for (size_t j = 0; j < i; ++j) {
        if (t[j].kind == TokenKind::kIdentifier && IsMaskIdentifier(t[j].text, true))
          assign_to_mask = true;
      }
    }
  }
  // `causal=True,` or `causal=causal)` is an argument passed on, not a value set; a
  // parameter's default (`causal: bool = False,`, `bool causal = false,`) is a value set.
  const std::string& last = t.back().text;
  const bool keyword_argument = t.size() >= 2 && t[0].kind == TokenKind::kIdentifier &&
                                t[1].text == "=" && (last == "," || last == ")");
  return assign_to_mask && !keyword_argument;
}

// Scores set to -inf (`-INFINITY`, `float("-inf")`, `-float("inf")`) on the line, and
// whether its condition joins more than one test (`where(a & b, s, -inf)`).
bool NegInf(const CodeLine& l, bool* joined) {
  bool neg_inf = false;
  *joined = false;
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "&" || x == "&&" || x == "and") *joined = true;
    if (x == "-INFINITY" || x == "NEG_INF" ||
        (x == "INFINITY" && i > 0 && t[i - 1].text == "-") ||
        ((x.front() == '"' || x.front() == '\'') && x.find("-inf") != std::string::npos) ||
        ((x == "\"inf\"" || x == "'inf'") && i >= 3 && t[i - 3].text == "-") ||
        (x == "inf" && i > 0 && t[i - 1].text == "-")) {
      neg_inf = true;
    }
  }
  return neg_inf;
}

// A select that sets scores to -inf (`tl.where(cond, s, float("-inf"))`,
// `s = cond ? s : -INFINITY`) masks, whatever its condition's names are.
bool SelectsNegInf(const CodeLine& l) {
  bool joined = false;
  if (!NegInf(l, &joined)) return false;
  for (const Token& t : l.tokens) {
    if (t.text == "where" || t.text == "?" || t.text == "masked_fill" || t.text == "masked_fill_")
      return true;
  }
  return false;
}

}  // namespace

void FileReview::Masks(ChangeBlock& b) {
  if (gemm()) return;  // GroupedMasked is a layout, smem padding is not key padding
  std::vector<CodeLine*> lines;
  bool in_mask_function = false;
  // A function named for a mask (`causal_masked`) is read by what changed in it: its lines
  // count when the change there compares or clamps something, never for the name alone.
  bool mask_function_compares = false;
  for (auto* side : {&b.removed, &b.added}) {
    for (const CodeLine& l : *side) {
      mask_function_compares = mask_function_compares ||
                               (!l.claimed && IsMaskFunction(l.function) && ComparesValues(l));
    }
  }
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed || IsCheckMacro(l)) continue;
      // A changed select to -inf is a mask change even when no name says mask.
      if (SelectsNegInf(l)) {
        lines.push_back(&l);
        continue;
      }
      // In a function named for a mask, a line counts only when it compares values itself or
      // declares the function's parameters (what the mask reads).
      bool declares = l.in_signature;
      for (size_t i = 0; i + 1 < l.tokens.size() && !declares; ++i) {
        declares = l.tokens[i].text == l.function && l.tokens[i + 1].text == "(";
      }
      const bool fn = IsMaskFunction(l.function) && !b.has_plain_twin && mask_function_compares &&
                      (ComparesValues(l) || declares) &&
                      !(!l.code.empty() && l.code[0] == '#');
      bool hit = fn;
      const bool comparing = Compares(l);
      // The mask names with their neighbours: when the line's counterpart has the same, the
      // change is elsewhere on the line (`cu_seqlens_q == nullptr ? 0 : ...` in an offset
      // whose stride changed).
      auto mask_windows = [&](const CodeLine& x, bool cmp) {
        std::multiset<std::string> w;
        for (size_t i = 0; i < x.tokens.size(); ++i) {
          if (x.tokens[i].kind != TokenKind::kIdentifier || !IsMaskIdentifier(x.tokens[i].text, cmp)) {
            continue;
          }
          w.insert((i > 0 ? x.tokens[i - 1].text : "") + " " + x.tokens[i].text + " " +
                   (i + 1 < x.tokens.size() ? x.tokens[i + 1].text : ""));
        }
        return w;
      };
      const std::multiset<std::string> mine = mask_windows(l, comparing);
      // A name whose only mask word is "mask" (FINAL_MASK, kFullWarpMask, is_mask) is a bit
      // or lane mask unless the line also compares a sequence length; preprocessor lines
      // define, they do not mask.
      bool attention_mask = false, length = false;
      for (const Token& t : l.tokens) {
        if (t.kind != TokenKind::kIdentifier) continue;
        if (IsMaskIdentifier(t.text, comparing)) {
          const bool mask_only =
              HasWord(t.text, {"mask", "masked", "masking"}) &&
              !HasWord(t.text, {"causal", "window", "sliding", "seqlen", "seqlens", "attn",
                                "attention", "local"});
          if (!mask_only) attention_mask = true;
        }
        if (comparing && IsMaskIdentifier(t.text, true) && !IsMaskIdentifier(t.text, false)) {
          length = true;
        }
      }
      const bool preprocessor = !l.code.empty() && l.code[0] == '#';
      // Mask names only passed on as arguments (`kernel<Headdim, Is_causal>(params)`) with
      // nothing compared: the mask is not what changed on this line.
      const auto& t = l.tokens;
      bool compares_values = false;  // `<` of a template argument list compares nothing
      for (size_t i = 0; i < t.size(); ++i) {
        compares_values = compares_values || IsComparisonAt(t, i) || t[i].text == "min" ||
                          t[i].text == "max";
      }
      if (!fn && !mine.empty() && !compares_values) {
        bool passed_on = true;
        for (size_t i = 0; i < t.size() && passed_on; ++i) {
          if (t[i].kind != TokenKind::kIdentifier || !IsMaskIdentifier(t[i].text, comparing)) continue;
          const std::string before = i > 0 ? t[i - 1].text : "";
          const std::string after = i + 1 < t.size() ? t[i + 1].text : "";
          passed_on = (before == "," || before == "(" || before == "<") &&
                      (after == "," || after == ")" || after == ">");
        }
        if (passed_on) continue;
      }
      if (!fn && !mine.empty() && (preprocessor || (!attention_mask && !length))) continue;
      if (!fn && !mine.empty() && !ComputesOnLine(l)) continue;
      hit = hit || !mine.empty();
      if (!fn && !mine.empty()) {
        const CodeLine* other = BestMatch(l, b, 0.5);
        if (other != nullptr && mask_windows(*other, Compares(*other)) == mine &&
            ComparisonOps(*other) == ComparisonOps(l) && !MaskInChange(l, *other)) {
          hit = false;
        }
      }
      if (hit) {
        lines.push_back(&l);
        in_mask_function = in_mask_function || fn;
      }
    }
  }
  if (lines.empty()) return;
  std::string where;
  if (in_mask_function) {
    for (const CodeLine* l : lines) {
      if (IsMaskFunction(l->function)) {
        where = " in " + l->function + "()";
        break;
      }
    }
  }
  Report(kMask, lines, [&](const std::vector<CodeLine*>& run) {
    bool rows = false;
    for (const CodeLine* l : run) {
      bool joined = false;
      rows = rows || (l->added && NegInf(*l, &joined) && joined);
    }
    if (rows) {
      return OldToNew(run) + where +
             ": more entries are now set to -inf. Can a whole row be masked (rows past the "
             "sequence length, a window that covers no key)? Its row max stays -inf and "
             "exp(-inf - -inf) is NaN: are such rows' outputs and LSE guarded or never stored?";
    }
    return OldToNew(run) + where +
           ". Is the alignment still right for s_q > 1, varlen and block "
           "edges?";
  });
}

void FileReview::CombineAndSoftmax(ChangeBlock& b) {
  const bool splits = kind() == ComponentKind::kSplitkCombine;
  std::vector<CodeLine*> softmax, combine;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed || IsCheckMacro(l)) continue;
      // A function named combine; not *reduce* (warpReduceSum is a warp reduction).
      const bool in_combine = splits || HasWord(l.function, {"combine"});
      bool c = IsCombine(l, in_combine, !gemm());
      bool s = !gemm() && std::any_of(l.tokens.begin(), l.tokens.end(), IsSoftmaxToken);
      // Host C++ (a launcher, a split heuristic's `logf`) computes no softmax; kernels, device
      // functions and Python (Triton) do.
      if (l.function_kind == FunctionKind::kHost) s = false;
      // A line edited in place asks the combine or softmax question only when the edit itself
      // touches the LSE, partials, accumulators or the exp/max: `launch_combine(a, b)` ->
      // `launch_combine(a, b, stream)` or a `rescale_o` whose index changed is not a change
      // to how partials combine or how the max is subtracted.
      // A line that computes nothing (a flag set or tested, a dispatch macro, an argument
      // passed on) asks no combine or softmax question, whatever its names say: `if constexpr
      // (return_lse)`, `bool softmax = true;`, `DISPATCH_RETURN_LSE(return_lse, ...)`.
      if (c || s) {
        // What merges partials or stabilises a softmax: exp/log, a max, an accumulation; an
        // index computed for an LSE store or a kernel pointer taken is neither.
        bool computes = false, subtracts = false;
        for (const Token& t : l.tokens) {
          subtracts = subtracts || t.text == "-" || t.text == "-=";
          computes = computes || t.text == "+=" || t.text == "fma" || t.text == "fmaf" ||
                     t.text == "__fmaf_rn" || t.text == "max" || t.text == "fmaxf" ||
                     t.text == "fmax" || t.text == "maximum" ||
                     (t.kind == TokenKind::kIdentifier && IsSoftmaxToken(t) &&
                      !HasWord(t.text, {"softmax", "rescale", "max", "scale", "log2e"}));
        }
        // A named max or scale counts where it is subtracted or multiplied in (`s - row_max`).
        for (const Token& t : l.tokens) {
          computes = computes || (subtracts && t.kind == TokenKind::kIdentifier &&
                                  IsSoftmaxToken(t) && !HasWord(t.text, {"softmax"}));
        }
        if (!computes) c = s = false;
      }
      if (c || s) {
        const CodeLine* other = BestMatch(l, b, 0.5);
        if (other != nullptr && !other->claimed) {
          if (c) {
            c = ChangeHas(l, *other, [&](const Token& t) {
              if (t.kind != TokenKind::kIdentifier) return t.text == "+=";
              CodeLine one;
              one.tokens = {t};
              // exp/log on an LSE line is how the partials' LSE combine.
              return IsCombine(one, in_combine, !gemm()) || HasWord(t.text, {"acc", "accum"}) ||
                     IsSoftmaxToken(t);
            });
          }
          if (s) s = ChangeHas(l, *other, IsSoftmaxToken);
        }
      }
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
    Report(kCombine, combine, [&](const std::vector<CodeLine*>& run) {
      // An accumulation outside any combine (`acc += a * b` in a reduction): its precision
      // and order, not the LSE merge, is the question.
      bool merge = splits;
      for (const CodeLine* l : run) merge = merge || !AccumulatesOnly(*l);
      if (!merge) {
        return OldToNew(run) +
               ". Is every term computed in the accumulator's type (a product of two bf16 "
               "values rounds before it is added), and does the order of the sum change?";
      }
      return OldToNew(run) +
             ". Do the partial outputs and LSE still combine to the unsplit "
             "result?" +
             exp_switch(run);
    });
  }
  if (!softmax.empty()) {
    Report(kSoftmax, softmax, [&](const std::vector<CodeLine*>& run) {
      return "max subtraction or normalisation: " + OldToNew(run) + "." + exp_switch(run);
    });
  }
}

}  // namespace av
