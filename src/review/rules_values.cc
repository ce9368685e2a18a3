// Value rules: accumulator dtypes, tile / split / stage constants and candidate tuples,
// shared-memory declarations, host-side shared-memory sizes and shared-memory addressing.
#include <algorithm>
#include <set>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT

// block_ns, BLOCK_MS, stage_candidates, num_stages_list, kBlockNCandidates: collections a
// config search picks tiles or pipeline stages from.
bool IsCandidateName(std::string_view name) {
  std::vector<std::string> w = IdentifierWords(name);
  if (w.empty()) return false;
  static const std::set<std::string_view> kListWords = {
      "candidates", "candidate", "choices", "options", "list", "values", "range"};
  std::string rest;
  bool listed = false;
  for (const std::string& x : w) {
    if (kListWords.count(x)) {
      listed = true;
      continue;
    }
    rest += (rest.empty() ? "" : "_") + x;
  }
  if (listed) {
    if (rest.empty()) return false;
    if (IsTileConstant(rest)) return true;
    for (std::string_view t : {"stage", "stages", "block", "blocks", "tile", "tiles", "warps"}) {
      if (HasWord(rest, {t})) return true;
    }
    return false;
  }
  // A plural of a tile name: block_ns -> block_n.
  std::string s(name);
  if (s.size() > 2 && (s.back() == 's' || s.back() == 'S')) {
    s.pop_back();
    return IsTileConstant(s) && s.find_first_of("_") != std::string::npos;
  }
  return false;
}

// The integers a Python candidate expression holds: (8, 7, 6), tuple(range(16, 129, 8)),
// A + (144, 160, ), tuple(filter(lambda s: ..., (8, 7))). False when something else is in it.
bool CandidateValues(const std::vector<Token>& t, size_t begin, size_t end,
                     std::vector<long long>* out, std::string* filter) {
  size_t i = begin;
  auto number = [&](size_t k, long long* v) { return ParseIntLiteral(t[k].text, v); };
  while (i < end) {
    const std::string& x = t[i].text;
    if (x == "+" || x == "," || x == ")" || x == "]" || x == "(" || x == "[") {
      ++i;
      continue;
    }
    if (x == "tuple" || x == "list" || x == "sorted" || x == "set") {
      ++i;
      continue;
    }
    if (x == "range" && i + 1 < end && t[i + 1].text == "(") {
      std::vector<long long> args;
      size_t k = i + 2;
      for (; k < end && t[k].text != ")"; ++k) {
        long long v = 0;
        if (t[k].text == ",") continue;
        if (!number(k, &v)) return false;
        args.push_back(v);
      }
      if (args.empty() || args.size() > 3) return false;
      long long a = args.size() == 1 ? 0 : args[0], b = args.size() == 1 ? args[0] : args[1];
      long long step = args.size() == 3 ? args[2] : 1;
      if (step <= 0 || b - a > 100000) return false;
      for (long long v = a; v < b; v += step) out->push_back(v);
      i = k + 1;
      continue;
    }
    if (x == "filter" && i + 1 < end && t[i + 1].text == "(") {
      // filter(lambda s: COND, VALUES): COND is kept for the message.
      size_t k = i + 2;
      if (k < end && t[k].text == "lambda") {
        int depth = 0;
        std::string cond;
        size_t colon = k;
        while (colon < end && t[colon].text != ":") ++colon;
        for (k = colon + 1; k < end; ++k) {
          if (t[k].text == "(") ++depth;
          if (t[k].text == ")") --depth;
          if (depth == 0 && t[k].text == ",") break;
          cond += (cond.empty() ? "" : " ") + t[k].text;
        }
        *filter = cond;
      }
      i = k + 1;
      continue;
    }
    long long v = 0;
    if (t[i].kind == TokenKind::kNumber && number(i, &v)) {
      out->push_back(v);
      ++i;
      continue;
    }
    return false;
  }
  return !out->empty();
}

std::string JoinValues(const std::vector<long long>& v) {
  std::string s;
  for (long long x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// A definition's value tokens: the tokens after `NAME =`.
bool DefinitionValue(const CodeLine& l, std::string* name, size_t* begin) {
  const auto& t = l.tokens;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind == TokenKind::kIdentifier && t[i + 1].text == "=" && IsCandidateName(t[i].text)) {
      *name = t[i].text;
      *begin = i + 2;
      return true;
    }
  }
  return false;
}

bool UsesCandidates(const CodeLine& l) {
  bool selects = false, named = false;
  for (const Token& t : l.tokens) {
    if (t.text == "for" || t.text == "filter" || t.text == "in" || t.text == "if") selects = true;
    if (t.kind == TokenKind::kIdentifier && IsCandidateName(t.text)) named = true;
  }
  return selects && named;
}

bool HasSmemWord(std::string_view name) {
  std::vector<std::string> w = IdentifierWords(name);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "smem" || w[i] == "shmem") return true;
    if (w[i] == "shared" && i + 1 < w.size() && (w[i + 1] == "mem" || w[i + 1] == "memory")) {
      return true;
    }
  }
  return false;
}

// The offsets a line applies to shared-memory buffers: the index of `smem_x[...]` and the
// addend of `smem_x + ...`, as text.
std::vector<std::string> SmemOffsets(const CodeLine& l) {
  std::vector<std::string> out;
  const auto& t = l.tokens;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || !HasSmemWord(t[i].text)) continue;
    const std::string& next = t[i + 1].text;
    if (next != "[" && next != "+") continue;
    std::string expr;
    int depth = 0;
    for (size_t k = i + 2; k < t.size(); ++k) {
      const std::string& x = t[k].text;
      if (x == "(" || x == "[" || x == "{") ++depth;
      if (x == ")" || x == "]" || x == "}") {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && (x == "," || x == ";")) break;
      expr += (expr.empty() ? "" : " ") + x;
    }
    out.push_back(t[i].text + next + expr);
  }
  return out;
}

// "smem_d" and "SMEM_D_SIZE" both name the D buffer: the words left without smem/size ones.
std::string SmemStem(std::string_view name) {
  static const std::set<std::string_view> kDrop = {"smem", "shmem", "shared", "mem",   "memory",
                                                   "size", "bytes", "per",    "stage", "k"};
  std::string s;
  for (const std::string& w : IdentifierWords(name)) {
    if (!kDrop.count(w)) s += (s.empty() ? "" : "_") + w;
  }
  return s;
}

}  // namespace

namespace {

// The value of a `dtype=` keyword on the line ("tl . float32", "input_dtype"), "" if none.
std::string DtypeValue(const CodeLine& l, bool* wide) {
  const auto& t = l.tokens;
  *wide = false;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text != "dtype" || t[i + 1].text != "=") continue;
    std::string v;
    int depth = 0;
    for (size_t k = i + 2; k < t.size(); ++k) {
      const std::string& x = t[k].text;
      if (x == "(" || x == "[") ++depth;
      if (x == ")" || x == "]") {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && x == ",") break;
      *wide = *wide || IsWideType(t[k]);
      v += (v.empty() || x == "." || v.back() == '.' ? "" : " ") + x;
    }
    return v;
  }
  return "";
}

bool LiteralDtype(const std::string& v) {
  for (const Token& t : Tokenize(v)) {
    if (IsWideType(t) || IsNarrowType(t) || t.text == "float16" || t.text == "bfloat16" ||
        t.text == "int32" || t.text == "int64" || t.text == "int8")
      return true;
  }
  return false;
}


// A Python edit that wraps an expression with arithmetic in a cast to float32 (`(a * b).to(
// tl.float32)`, `(a * b).float()`): the operands were combined, and rounded, in their own
// dtype first. `what` gets "`a * b` is now cast to float32 after it is computed".
bool CastAfterArithmetic(const std::vector<Token>& x, const std::vector<Token>& y,
                         std::string* what) {
  const auto [pre, suf] = CommonTokenEnds(x, y);
  size_t y_to = y.size() - suf, x_to = x.size() - suf;
  if (y_to <= pre || x_to <= pre + (y_to - pre)) return false;
  // The shared end may take the old middle's closing brackets (`.to(X_dtype` + `), 0)`):
  // give them back so that the middle is whole.
  int open = 0;
  for (size_t j = pre; j < y_to; ++j) {
    open += (y[j].text == "(" || y[j].text == "[") - (y[j].text == ")" || y[j].text == "]");
  }
  while (open > 0 && y_to < y.size() && (y[y_to].text == ")" || y[y_to].text == "]")) {
    ++y_to;
    ++x_to;
    --open;
  }
  // The old middle must sit inside the new one whole: `(` + old + `).to(...)`.
  const size_t n = y_to - pre;
  size_t at = x.size();
  for (size_t i = pre; i + n <= x_to; ++i) {
    bool same = true;
    for (size_t j = 0; j < n && same; ++j) same = x[i + j].text == y[pre + j].text;
    if (same) {
      at = i;
      break;
    }
  }
  if (at == x.size()) return false;
  bool wide = false, cast = false;
  for (size_t i = pre; i < at; ++i) wide = wide || IsWideType(x[i]);
  for (size_t i = at + n; i < x_to; ++i) {
    wide = wide || IsWideType(x[i]);
    cast = cast || x[i].text == "to" || x[i].text == "astype" || x[i].text == "float";
  }
  if (!wide || !cast) return false;
  // Arithmetic at the old middle's own level: a product or a sum, not a name or a call.
  int depth = 0;
  bool arithmetic = false;
  for (size_t j = pre; j < y_to; ++j) {
    const std::string& t = y[j].text;
    if (t == "(" || t == "[") ++depth;
    if (t == ")" || t == "]") --depth;
    if (depth == 0 && (t == "*" || t == "+" || t == "-" || t == "@")) arithmetic = true;
  }
  if (!arithmetic) return false;
  *what = "`" + Shorten(statement::Join(y, pre, y_to), 80) +
          "` is now cast to float32 after it is computed";
  return true;
}

constexpr const char* kRoundedFirst =
    " Its products and sums still run, and round, in the operands' dtype; only what follows "
    "(a reduction, an accumulation) is float32. Should the operands be cast before they are "
    "multiplied, and what error against a float32 reference remains (the test's tolerance)?";
}  // namespace

// A tile or buffer that followed the input dtype now float32, or a value cast to float32
// after it was computed: results and memory change with it (round 11).
void FileReview::WidenedDtypes(ChangeBlock& b) {
  for (CodeLine& a : b.added) {
    if (a.claimed || a.tokens.size() < 3 || a.tokens[0].kind != TokenKind::kIdentifier) continue;
    const std::string& name = a.tokens[0].text;
    bool wide_now = false, wide_was = false;
    const std::string now = DtypeValue(a, &wide_now);
    CodeLine* r = const_cast<CodeLine*>(BestMatch(a, b, 0.5));
    if (r != nullptr && r->claimed) r = nullptr;
    if (!now.empty() && wide_now && r != nullptr) {
      const std::string was = DtypeValue(*r, &wide_was);
      if (was.empty() || wide_was || LiteralDtype(was)) continue;
      std::vector<CodeLine*> lines = {r, &a};
      Report(kAccumWidened, lines,
             "`" + name + "` is now `" + now + "` where it followed the input dtype (`" + was +
                 "`)" + InFunction(lines) +
                 ": results differ from before for half and bf16 inputs, and it takes twice the "
                 "registers or memory. Do its consumers (kernels that read this buffer, stores, "
                 "dtype checks) expect float32, and do the tests compare each input dtype?");
      continue;
    }
    // `sum(a * b)` -> `sum((a * b).to(tl.float32))`: the products are rounded before the cast.
    std::string cast_after;
    if (r != nullptr && CastAfterArithmetic(a.tokens, r->tokens, &cast_after)) {
      std::vector<CodeLine*> lines = {r, &a};
      Report(kAccumWidened, lines, cast_after + InFunction(lines) + "." + kRoundedFirst);
      continue;
    }
    // `x = x.to(tl.float32)` added: the cast comes after `x` was computed.
    const auto& t = a.tokens;
    bool cast_back = r == nullptr && t.size() >= 8 && t[1].text == "=" && t[2].text == name &&
                     t[3].text == "." && t[4].text == "to" && t[5].text == "(";
    bool wide = false;
    for (size_t i = 6; cast_back && i < t.size(); ++i) wide = wide || IsWideType(t[i]);
    if (!cast_back || !wide) continue;
    std::vector<CodeLine*> lines = {&a};
    Report(kAccumWidened, lines,
           "`" + name + "` is cast to float32 after it was computed" + InFunction(lines) +
               ": the products and sums that made it ran in the input precision. Should the "
               "operands be cast before they are multiplied and summed, and do the sibling "
               "kernels and buffers of the same computation get the same cast?");
  }
}

void FileReview::Accumulators(ChangeBlock& b) {
  std::vector<CodeLine*> lines;
  std::string what;
  for (CodeLine& r : b.removed) {
    if (r.claimed) continue;
    bool wide = std::any_of(r.tokens.begin(), r.tokens.end(), IsWideType);
    if (!wide) continue;
    CodeLine* a = const_cast<CodeLine*>(BestMatch(r, b, 0.4));
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
    lines.push_back(a);
    if (what.empty()) what = "accumulator narrowed to `" + narrow + "`: " + OldToNew({&r, a});
  }
  if (python()) WidenedDtypes(b);
  if (!lines.empty()) {
    Report(kAccum, lines,
           what +
               ". Sums over long sequences lose precision; compare against the "
               "low-precision reference.");
  }
}

void FileReview::Constants(ChangeBlock& b) {
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
        // A number replaced by a named constant (`1024` -> `BLOCK_SIZE`) or back: the same
        // size when the name is defined as that number in the file, and unknown when it is
        // not defined there; only a definition with another value is a change to ask about.
        long long literal = 0, named = 0;
        const bool o_num = ParseIntLiteral(o, &literal), n_num = ParseIntLiteral(n, &named);
        if (o_num != n_num) {
          const std::string& ident = o_num ? n : o;
          const std::vector<Token> it_tokens = Tokenize(ident);
          if (it_tokens.size() == 1 && it_tokens[0].kind == TokenKind::kIdentifier) {
            const long long value_of = NamedIntValue(ident);
            if (value_of < 0 || value_of == (o_num ? literal : named)) continue;
            n += " (= " + std::to_string(value_of) + ")";
          }
        }
        std::string change = name + " " + o + " -> " + n;
        long long ov = 0, nv = 0;
        if (ParseIntLiteral(o, &ov) && ParseIntLiteral(n, &nv) && ov > 0) {
          if (nv > ov && nv % ov == 0) change += " (x" + std::to_string(nv / ov) + ")";
          if (nv < ov && nv != 0 && ov % nv == 0) change += " (/" + std::to_string(ov / nv) + ")";
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
                                       "partial buffers; check the combine at several sequence "
                                       "lengths and num_splits."
                                     : ": shared memory, registers and occupancy scale with the "
                                       "tile; check ptxas against the arch's cap and the "
                                       "boundary tiles.";
    Report(rule, lines, what + why);
  }
}

// The integer a name is defined as in the whole head file (`NAME = 1024`, `#define NAME
// 1024`, `constexpr int NAME = 1024;`), or -1 when the file gives it none or several.
long long FileReview::NamedIntValue(const std::string& name) const {
  long long found = -1;
  for (const FileLine& line : WholeFile(true)) {
    const std::vector<Token>& t = line.tokens;
    for (size_t i = 0; i + 2 < t.size(); ++i) {
      if (t[i].text != name) continue;
      const bool define = i >= 1 && t[i - 1].text == "define";
      const size_t v = define ? i + 1 : (t[i + 1].text == "=" ? i + 2 : t.size());
      long long x = 0;
      if (v >= t.size() || !ParseIntLiteral(t[v].text, &x)) continue;
      if (v + 1 < t.size() && t[v + 1].text != ";" && t[v + 1].text != ",") continue;
      if (found >= 0 && found != x) return -1;
      found = x;
    }
  }
  return found;
}

// Tile configs passed as template arguments: Flash_fwd_kernel_traits<D, 128, 64, 4>
// -> <D, 128, 128, 4>. Only numbers differ, on a line naming traits/config/tile/shape.
void FileReview::TemplateArguments(ChangeBlock& b, std::vector<CodeLine*>* lines,
                                   std::string* what) {
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
    CodeLine* a = const_cast<CodeLine*>(BestMatch(r, b, 0.5));
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
    lines->push_back(a);
    *what += (what->empty() ? "" : "; ") + std::string("template arguments ") + diffs + " in `" +
             Shorten(a->source, 100) + "`";
  }
}

void FileReview::Candidates(ChangeBlock& b) {
  std::map<std::string, CodeLine*> old_defs;
  for (CodeLine& r : b.removed) {
    std::string name;
    size_t begin = 0;
    if (!r.claimed && DefinitionValue(r, &name, &begin)) old_defs.emplace(name, &r);
  }
  std::vector<CodeLine*> lines;
  std::string what;
  bool stages = false;
  long long fewest = 0;  // the smallest stage count now admitted, when known
  for (CodeLine& a : b.added) {
    std::string name;
    size_t begin = 0;
    if (a.claimed || !DefinitionValue(a, &name, &begin)) continue;
    stages = stages || HasWord(name, {"stage", "stages"});
    lines.push_back(&a);
    std::vector<long long> now, before;
    std::string filter_now, filter_before;
    const bool parsed_now = CandidateValues(a.tokens, begin, a.tokens.size(), &now, &filter_now);
    if (parsed_now && HasWord(name, {"stage", "stages"})) {
      const long long m = *std::min_element(now.begin(), now.end());
      fewest = fewest == 0 ? m : std::min(fewest, m);
    }
    if (!filter_now.empty()) filter_now = LambdaBody(a.source);
    auto it = old_defs.find(name);
    std::string change = "`" + name + "`";
    if (it != old_defs.end()) {
      lines.push_back(it->second);
      std::string n2;
      size_t b2 = 0;
      DefinitionValue(*it->second, &n2, &b2);
      const bool parsed_before = CandidateValues(it->second->tokens, b2, it->second->tokens.size(),
                                                 &before, &filter_before);
      if (!filter_before.empty()) filter_before = LambdaBody(it->second->source);
      if (parsed_now && parsed_before) {
        std::vector<long long> added_values, removed_values;
        for (long long v : now) {
          if (std::find(before.begin(), before.end(), v) == before.end()) added_values.push_back(v);
        }
        for (long long v : before) {
          if (std::find(now.begin(), now.end(), v) == now.end()) removed_values.push_back(v);
        }
        if (!added_values.empty()) change += " adds " + JoinValues(added_values);
        if (!removed_values.empty()) {
          change +=
              std::string(added_values.empty() ? "" : ",") + " drops " + JoinValues(removed_values);
        }
        if (filter_now != filter_before) {
          change += filter_now.empty() ? ", no longer filtered"
                                       : ", now filtered by `" + filter_now + "`";
        }
      } else {
        change += ": " + OldToNew({it->second, &a});
      }
    } else {
      change += " defined: " + Example({&a}, true);
    }
    what += (what.empty() ? "" : "; ") + change;
  }
  // Lines that filter or loop over the candidates (`for block_n in filter(...)`).
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed || std::find(lines.begin(), lines.end(), &l) != lines.end()) continue;
      if (!UsesCandidates(l)) continue;
      lines.push_back(&l);
      if (l.added) {
        what += (what.empty() ? "" : "; ") + std::string("the selection over them is now ") +
                Example({&l}, true);
      }
    }
  }
  if (lines.empty()) return;
  const std::string fewest_text =
      fewest > 0 ? " (down to " + std::to_string(fewest) + (fewest == 1 ? " stage)" : " stages)")
                 : "";
  const std::string why =
      stages ? ": the pipeline must work at every stage count it can now pick" + fewest_text +
                   ": waiting on the slot it refills and flipping phases right; check the "
                   "smallest K and the stage count each shape now picks."
             : ": each new tile is a new kernel instance (WGMMA shape, accumulator registers, "
               "shared memory): build the largest one and check ptxas against the cap, and "
               "sweep shapes that are not multiples of the new sizes.";
  Report(kCandidates, lines, what + why);
}

void FileReview::Smem(ChangeBlock& b) {
  if (python()) return;  // host-side sizes: HostSmem
  // The dynamic shared-memory attribute no longer set here: a launch above 48 KiB fails
  // without it. Is it still set (where, and with the size the launch passes)?
  auto sets_attribute = [](const std::vector<Token>& t) {
    for (const Token& x : t) {
      if (x.text == "MaxDynamicSharedMemorySize" ||
          x.text == "cudaFuncAttributeMaxDynamicSharedMemorySize") {
        return true;
      }
    }
    return false;
  };
  bool added_attribute = false;
  for (const CodeLine& a : b.added) added_attribute = added_attribute || sets_attribute(a.tokens);
  for (CodeLine& r : b.removed) {
    if (r.claimed || added_attribute || !sets_attribute(r.tokens)) continue;
    const std::string still = UnchangedFileLines(sets_attribute, Statement{}, 2);
    Report(kSmem, {&r},
           "the dynamic shared-memory attribute is no longer set here: " + Example({&r}, false) +
               " removed" + InFunction({&r}) +
               (still.empty()
                    ? std::string(": nothing else in the file sets it. A kernel launched with "
                                  "more than 48 KiB of dynamic shared memory fails without it; "
                                  "where is it set now, and with the size the launch passes?")
                    : ": it is still set at line" +
                          std::string(still.find(", ") != std::string::npos ? "s " : " ") + still +
                          ". Does that run before every launch, with the size the launch now "
                          "passes?"));
  }
  std::vector<CodeLine*> lines;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (!l.claimed && IsSmemLine(l)) lines.push_back(&l);
    }
  }
  if (!lines.empty()) {
    Report(kSmem, lines, [&](const std::vector<CodeLine*>& run) {
      return OldToNew(run) + ". Does it still fit the arch's cap at the configured block size?";
    });
  }
}

void FileReview::HostSmem(ChangeBlock& b) {
  if (!python()) return;
  std::vector<CodeLine*> lines;
  std::string stem;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed) continue;
      for (auto& [name, value] : Definitions(l, &HasSmemWord)) {
        lines.push_back(&l);
        if (stem.empty()) stem = SmemStem(name);
        break;
      }
    }
  }
  if (lines.empty()) return;
  std::string kernel;
  if (!stem.empty()) {
    kernel = ElsewhereInDiff([&](const CodeLine& l, const ReviewCodeFile& f) {
      if (f.language != SourceLanguage::kCpp) return false;
      for (auto& [name, value] : Definitions(l, &IsSmemName)) {
        if (SmemStem(name) == stem) return true;
      }
      return false;
    });
  }
  const std::string cross =
      kernel.empty() ? " Nothing in this diff changes a kernel-side size of the same buffer: is "
                       "the kernel's layout unchanged?"
                     : " The kernel's size of the same buffer changes at " + kernel +
                           ": do both include the same padding and element size?";
  Report(kSmemHost, lines, [&](const std::vector<CodeLine*>& run) {
    return OldToNew(run) +
           ": the launch passes this many bytes of dynamic shared memory, and the kernel's layout "
           "must fit in exactly that (an under-allocation corrupts the last buffer, an "
           "over-allocation costs occupancy)." +
           cross;
  });
}

void FileReview::SmemLayout(ChangeBlock& b) {
  if (!cpp()) return;
  std::vector<CodeLine*> lines;
  bool padding = false;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const std::vector<std::string> now = SmemOffsets(a);
    if (now.empty()) continue;
    CodeLine* r = const_cast<CodeLine*>(BestMatch(a, b, 0.5));
    if (r == nullptr || r->claimed) continue;
    const std::vector<std::string> before = SmemOffsets(*r);
    // The offset into the buffer changed, not the rest of the line (`lse_smem[s]` read in a
    // new formula is the same address).
    if (before.empty() || before == now) continue;
    for (const std::string& o : now)
      padding = padding || HasWord(o, {"padding", "pad"}) || o.find("PADDING") != std::string::npos;
    lines.push_back(r);
    lines.push_back(&a);
  }
  if (lines.empty()) return;
  Report(kSmemLayout, lines, [&](const std::vector<CodeLine*>& run) {
    return OldToNew(run) + InFunction(run) +
           ": every writer and reader of this buffer (stores, ldmatrix/stmatrix, the TMA box that "
           "copies it out) must use the same pitch and offsets" +
           (padding ? ", and its declared size must include the padding" : "") +
           "; a pitch change also moves bank conflicts (check with ncu).";
  });
}

}  // namespace av
