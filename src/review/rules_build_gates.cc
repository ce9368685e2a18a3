// Rules about what is compiled and chosen for a build or a GPU: preprocessor conditions that
// gate kernel code (preprocessor.condition_changed), Python host code that picks tiles,
// kernels or configs by architecture (arch.dispatch_changed), and tile tuples a tile-size
// function returns (tile.constant_changed). The question names the changed line, the lines
// the condition gates, and the other places of the file that test the same macro.
#include <algorithm>
#include <set>

#include "review/file_review.h"
#include "review/renames.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT
using statement::Join;

// `#if`, `#ifdef`, `#ifndef`, `#elif`(def/ndef): the directive, or "".
std::string Conditional(const std::vector<Token>& t) {
  if (t.size() < 2 || t[0].text != "#") return "";
  const std::string& d = t[1].text;
  if (d == "if" || d == "ifdef" || d == "ifndef" || d == "elif" || d == "elifdef" ||
      d == "elifndef") {
    return d;
  }
  return "";
}

bool IsIncludeGuard(const std::vector<Token>& t) {
  if (t.size() != 3 || t[1].text != "ifndef") return false;
  const std::string& m = t[2].text;
  for (std::string_view end : {"_H", "_H_", "_HPP", "_HPP_", "_CUH", "_CUH_", "_INCLUDED"}) {
    if (m.size() > end.size() && m.compare(m.size() - end.size(), end.size(), end) == 0)
      return true;
  }
  return false;
}

// The macros a condition tests (not `defined`, not numbers).
std::vector<std::string> Macros(const std::vector<Token>& t) {
  std::vector<std::string> out;
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || t[i].text == "defined") continue;
    if (std::find(out.begin(), out.end(), t[i].text) == out.end()) out.push_back(t[i].text);
  }
  return out;
}

// A name tested in `#if` by value (not under defined(...)) that no compiler predefines: an
// undefined one reads as 0.
std::vector<std::string> ValueTested(const std::vector<Token>& t) {
  std::vector<std::string> out;
  if (t.size() < 3 || (t[1].text != "if" && t[1].text != "elif")) return out;
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || t[i].text == "defined") continue;
    const bool under_defined = (i >= 1 && t[i - 1].text == "defined") ||
                               (i >= 2 && t[i - 1].text == "(" && t[i - 2].text == "defined");
    if (under_defined || t[i].text.rfind("__", 0) == 0) continue;
    out.push_back(t[i].text);
  }
  return out;
}

bool IsArchWord(const std::string& id) {
  if (HasWord(id, {"arch", "archs", "capability", "cc", "sm"})) return true;
  // sm90, is_sm90, kBlockM_sm80, SM100
  std::string low;
  for (char c : id) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t p = low.find("sm"); p != std::string::npos; p = low.find("sm", p + 1)) {
    const bool word_start = p == 0 || low[p - 1] == '_';
    if (word_start && p + 2 < low.size() && std::isdigit(static_cast<unsigned char>(low[p + 2])))
      return true;
  }
  return false;
}

bool NamesArch(const CodeLine& l, const std::set<std::string>& extra = {}) {
  for (size_t i = 0; i < l.tokens.size(); ++i) {
    const Token& t = l.tokens[i];
    // A module on a path (`cute.arch.fence()`, `nvvm.arch`): a namespace, not a test.
    const bool module = i + 1 < l.tokens.size() && l.tokens[i + 1].text == "." && i > 0 &&
                        l.tokens[i - 1].text == ".";
    if (t.kind == TokenKind::kIdentifier && !module && (IsArchWord(t.text) || extra.count(t.text)))
      return true;
    if (t.kind == TokenKind::kIdentifier && t.text == "get_device_capability") return true;
    if (t.kind == TokenKind::kString) {
      std::string s;
      for (char c : t.text) {
        if (c != '"' && c != '\'' && c != '_') s += static_cast<char>(std::tolower(c));
      }
      if (s.size() >= 4 && s.rfind("sm", 0) == 0 && std::isdigit(static_cast<unsigned char>(s[2])))
        return true;
    }
  }
  return false;
}

bool HasNumber(const CodeLine& l) {
  return std::any_of(l.tokens.begin(), l.tokens.end(),
                     [](const Token& t) { return t.kind == TokenKind::kNumber; });
}

// `return {128, 96, true, false};`, `return std::make_tuple(64, 128)`, Python
// `return 64, 128`: the elements, when at least two are integer literals.
std::vector<std::string> ReturnedTuple(const CodeLine& l) {
  const std::vector<Token>& t = l.tokens;
  if (t.size() < 4 || t[0].text != "return") return {};
  size_t from = 1, to = t.size();
  if (t[to - 1].text == ";") --to;
  while (from < to && t[from].kind == TokenKind::kIdentifier &&
         (t[from].text == "std" || t[from].text == "make_tuple" || t[from].text == "tuple" ||
          t[from].text == "cute" || t[from].text == "make_pair")) {
    ++from;
    if (from < to && t[from].text == "::") ++from;
  }
  if (from < to && (t[from].text == "{" || t[from].text == "(")) {
    const size_t close = statement::Closing(t, from);
    if (close + 1 != to) return {};
    ++from;
    --to;
  }
  std::vector<std::string> out;
  size_t start = from;
  int depth = 0, numbers = 0;
  for (size_t i = from; i <= to; ++i) {
    if (i < to && statement::IsOpen(t[i].text)) ++depth;
    if (i < to && statement::IsClose(t[i].text)) --depth;
    if (i == to || (depth == 0 && t[i].text == ",")) {
      if (i == start) return {};
      out.push_back(Join(t, start, i));
      if (i == start + 1 && t[start].kind == TokenKind::kNumber) ++numbers;
      start = i + 1;
    }
  }
  if (out.size() < 2 || numbers < 2) return {};
  return out;
}

std::string TupleText(const std::vector<std::string>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + "}";
}

}  // namespace

void FileReview::PreprocessorConditions(ChangeBlock& b) {
  if (!cpp()) return;
  std::vector<CodeLine*> added, removed;
  for (CodeLine& l : b.added) {
    if (!l.claimed && !Conditional(l.tokens).empty() && !IsIncludeGuard(l.tokens))
      added.push_back(&l);
  }
  for (CodeLine& l : b.removed) {
    if (!l.claimed && !Conditional(l.tokens).empty() && !IsIncludeGuard(l.tokens))
      removed.push_back(&l);
  }
  const SourceOutline* head = Outline(true);
  // The lines a directive at head line `at` gates: to its #else/#elif/#endif (nested
  // conditionals skipped), and a #define among them.
  auto gated = [&](int64_t at, std::string* defines) {
    if (head == nullptr) return std::string();
    int depth = 0;
    const int64_t n_lines = static_cast<int64_t>(head->lines.size());
    for (int64_t n = at + 1; n <= n_lines && n <= at + 600; ++n) {
      const std::vector<Token> t = Tokenize(CommentStripper(code_.language).Strip(head->Line(n)));
      if (t.size() < 2 || t[0].text != "#") continue;
      const std::string& d = t[1].text;
      if (d == "if" || d == "ifdef" || d == "ifndef") ++depth;
      if (d == "define" && t.size() >= 3 && defines->empty()) *defines = t[2].text;
      if (d == "endif" && depth > 0) {
        --depth;
        continue;
      }
      if (depth == 0 && (d == "else" || d == "elif" || d == "endif" || d == "elifdef" ||
                         d == "elifndef")) {
        if (n == at + 1) return std::string();
        return "lines " + std::to_string(at + 1) + "-" + std::to_string(n - 1) +
               (d == "endif" ? "" : ", the other side from line " + std::to_string(n));
      }
    }
    return std::string();
  };
  // A directive is paired with one of the first removed ones not yet paired (bounded: a
  // rewrite of a thousand conditionals pairs within a window).
  std::set<CodeLine*> paired;
  for (CodeLine* a : added) {
    CodeLine* r = nullptr;
    size_t looked = 0;
    for (CodeLine* x : removed) {
      if (paired.count(x)) continue;
      if (++looked > 64) break;
      if (Similarity(*a, *x) >= 0.3) {
        r = x;
        break;
      }
    }
    if (r != nullptr) paired.insert(r);
    std::vector<CodeLine*> lines = {a};
    if (r != nullptr) lines.insert(lines.begin(), r);
    std::string defines;
    const std::string range = gated(a->side_line(), &defines);
    std::vector<std::string> macros = Macros(a->tokens);
    if (!defines.empty()) macros.push_back(defines);
    Statement own = StatementAround(*a);
    const std::string others = UnchangedFileLines(
        [&](const std::vector<Token>& t) {
          const bool directive = !Conditional(t).empty();
          if (t.size() >= 2 && t[0].text == "#" && t[1].text == "define") return false;
          for (const Token& x : t) {
            if (directive && std::find(macros.begin(), macros.end(), x.text) != macros.end())
              return true;
            if (!defines.empty() && x.text == defines) return true;
          }
          return false;
        },
        own, 4);
    // The gated code on both sides picks a lane from a warp width (`x & 0x1f` on one side,
    // `x & (WAVE - 1)` on the other): a 64-lane wavefront reaches code written for 32 lanes.
    std::string lanes;
    if (head != nullptr) {
      bool fixed32 = false, width = false;
      int depth = 0;
      const int64_t n_lines = static_cast<int64_t>(head->lines.size());
      for (int64_t n = a->side_line() + 1; n <= n_lines && n <= a->side_line() + 40; ++n) {
        const std::vector<Token> t =
            Tokenize(CommentStripper(code_.language).Strip(head->Line(n)));
        if (t.size() >= 2 && t[0].text == "#") {
          if (t[1].text == "if" || t[1].text == "ifdef" || t[1].text == "ifndef") ++depth;
          if (t[1].text == "endif" && depth-- == 0) break;
          continue;
        }
        for (size_t i = 0; i + 1 < t.size(); ++i) {
          if (t[i].text != "&" && t[i].text != "%") continue;
          const std::string& x = t[i + 1].text;
          if (x == "0x1f" || x == "0x1F" || x == "31" || x == "32") fixed32 = true;
          for (size_t j = i + 1; j < t.size() && j < i + 4; ++j) {
            if (t[j].kind == TokenKind::kIdentifier &&
                (HasWord(t[j].text, {"warp", "wavefront", "wave"}) || t[j].text == "warpSize")) {
              width = true;
            }
          }
        }
      }
      if (fixed32 && width) {
        lanes = " The gated lines take a lane from a warp width that differs by side: where a "
                "wavefront has 64 lanes, are the 32-bit lane and member masks (`0xffffffff`, "
                "`__ballot`/`__shfl` widths) and the warp ids derived from the lane still right "
                "for lanes 32-63?";
      }
      // A gate for ROCm/HIP: the file's warp shuffles and votes with a 32-bit full mask run
      // on 64-lane wavefronts there.
      bool rocm = false;
      for (const Token& x : a->tokens) {
        const std::string w = ToLower(x.text);
        rocm = rocm || w.find("rocm") != std::string::npos || w.find("hip") != std::string::npos;
      }
      if (rocm && lanes.empty()) {
        std::string masks;
        int found = 0;
        const std::vector<FileLine>& file = WholeFile(true);
        for (int64_t n = 1; n < static_cast<int64_t>(file.size()) && found < 4; ++n) {
          const std::string& c = file[n].code;
          if (c.find("_sync(0xffffffff") == std::string::npos &&
              c.find("_sync(0xFFFFFFFF") == std::string::npos) {
            continue;
          }
          masks += std::string(found ? ", " : "") + std::to_string(n) + " (`" + Shorten(c, 60) + "`)";
          ++found;
        }
        if (found > 0) {
          lanes = " The file's warp shuffles and votes take a 32-bit full mask (" + masks +
                  "): on a 64-lane wavefront do they reach lanes 32-63, and are their widths "
                  "and the warp ids derived from the lane right?";
        }
      }
    }
    std::string zero;
    std::vector<std::string> by_value = ValueTested(a->tokens);
    if (!by_value.empty()) {
      zero = " An undefined `" + by_value[0] + "` reads as 0 in `#if`: is it defined for every "
             "build of this file (setup.py or CMake -D flags)?";
    }
    std::string what = r != nullptr ? "`" + Shorten(r->code, 90) + "` -> `" +
                                          Shorten(a->code, 90) + "`"
                                    : "`" + Shorten(a->code, 90) + "` added";
    Report(kPreprocessor, lines,
           what + InFunction(lines) + (range.empty() ? "" : " (it gates " + range + ")") +
               (defines.empty() ? "" : ", defining `" + defines + "`") +
               ": which builds now compile the gated code and which take the other side (CUDA "
               "version, arch, the flags each extension is built with)?" +
               (others.empty() ? std::string("")
                               : " Do the other tests of the same macro agree (" + others + ")?") +
               zero + lanes);
  }
  for (CodeLine* r : removed) {
    if (paired.count(r) || r->claimed) continue;
    std::vector<CodeLine*> lines = {r};
    Report(kPreprocessor, lines,
           "`" + Shorten(r->code, 90) + "` removed" + InFunction(lines) +
               ": the code it gated is now compiled in every build (or its other side is "
               "gone). Does it build and run where the condition was false (older CUDA, "
               "other arch, the flag set)?");
  }
}

void FileReview::ArchDispatch(ChangeBlock& b) {
  if (!python()) return;
  // Names the block assigns from an architecture query (`major, minor =
  // torch.cuda.get_device_capability()`): tests of them test the arch.
  std::set<std::string> arch_names;
  for (auto* side : {&b.removed, &b.added}) {
    for (const CodeLine& l : *side) {
      const auto& t = l.tokens;
      size_t eq = 0;
      while (eq < t.size() && t[eq].text != "=") ++eq;
      if (eq == t.size() || eq == 0) continue;
      bool query = false;
      for (size_t i = eq + 1; i < t.size(); ++i) {
        query = query || (t[i].kind == TokenKind::kIdentifier &&
                          (t[i].text == "get_device_capability" || IsArchWord(t[i].text)) &&
                          i + 1 < t.size() && t[i + 1].text == "(");
      }
      if (!query) continue;
      for (size_t i = 0; i < eq; ++i) {
        if (t[i].kind == TokenKind::kIdentifier) arch_names.insert(t[i].text);
      }
    }
  }
  std::vector<CodeLine*> lines;
  std::string first_test, choices;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed || !NamesArch(l, arch_names)) continue;
      const bool tests = IsGuardLine(l) || !ComparisonOps(l).empty() ||
                         std::any_of(l.tokens.begin(), l.tokens.end(), [](const Token& t) {
                           return t.text == "==" || t.text == "!=" || t.text == "in";
                         });
      const bool picks = HasNumber(l) && std::any_of(l.tokens.begin(), l.tokens.end(),
                                                     [](const Token& t) { return t.text == "="; });
      if (!tests && !picks) continue;
      lines.push_back(&l);
      const bool branch = l.code.rfind("if", 0) == 0 || l.code.rfind("elif", 0) == 0;
      if (tests && branch && first_test.empty()) {
        first_test = "`" + Shorten(l.code, 80) + "`" + (l.added ? " added" : " removed");
      }
    }
  }
  if (lines.empty()) return;
  // What the branches now choose: added lines of the block with numbers in calls or
  // assignments (tile sizes, kernel variants).
  int listed = 0;
  for (CodeLine& l : b.added) {
    if (l.claimed || !HasNumber(l) || IsGuardLine(l) || listed >= 2) continue;
    if (std::find(lines.begin(), lines.end(), &l) != lines.end() && NamesArch(l, arch_names) &&
        !first_test.empty() && l.code.rfind("if", 0) == 0) {
      continue;
    }
    choices += std::string(choices.empty() ? "" : ", ") + "`" + Shorten(l.code, 80) + "`";
    ++listed;
    if (std::find(lines.begin(), lines.end(), &l) == lines.end()) lines.push_back(&l);
  }
  if (first_test.empty()) {
    first_test = "`" + Shorten(lines.front()->code, 80) + "`" +
                 (lines.front()->added ? " added" : " removed");
  }
  Report(kArchDispatch, lines,
         first_test + InFunction(lines) + ": what the host picks now depends on the GPU's "
         "architecture" + (choices.empty() ? std::string("") : " (" + choices + ")") +
         ". Does each architecture get the tile, layout or kernel its compiled code expects "
         "(the kernel-side block sizes for that arch), and which GPUs fall to the other branch "
         "(sm80/86/89, sm100, sm120)?");
}

void FileReview::TileTuples(ChangeBlock& b) {
  struct Tuple {
    CodeLine* line;
    std::vector<std::string> v;
  };
  std::vector<Tuple> now, was;
  for (CodeLine& l : b.added) {
    if (l.claimed) continue;
    std::vector<std::string> v = ReturnedTuple(l);
    if (!v.empty()) now.push_back({&l, v});
  }
  for (CodeLine& l : b.removed) {
    if (l.claimed) continue;
    std::vector<std::string> v = ReturnedTuple(l);
    if (!v.empty()) was.push_back({&l, v});
  }
  if (now.empty() && was.empty()) return;
  // Pair by similarity; a tuple returned on both sides (moved under another branch) is not
  // a change of the tile.
  std::set<size_t> used;
  std::vector<std::string> changes, added_only, removed_only;
  std::vector<CodeLine*> lines;
  for (size_t ni = 0; ni < now.size(); ++ni) {
    Tuple& n = now[ni];
    size_t best = was.size();
    double best_score = 0.5;
    bool same = false;
    size_t lo = 0, hi = 0;
    PairingRange(ni, now.size(), was.size(), &lo, &hi);
    for (size_t i = lo; i < hi; ++i) {
      if (used.count(i) || was[i].v.size() != n.v.size()) continue;
      if (was[i].v == n.v) {
        best = i;
        same = true;
        break;
      }
      const double s = Similarity(*n.line, *was[i].line);
      if (s >= best_score) {
        best = i;
        best_score = s;
      }
    }
    if (same) {
      used.insert(best);
      continue;
    }
    lines.push_back(n.line);
    if (best == was.size()) {
      added_only.push_back(TupleText(n.v));
      continue;
    }
    used.insert(best);
    lines.push_back(was[best].line);
    std::string diff;
    for (size_t k = 0; k < n.v.size(); ++k) {
      if (n.v[k] == was[best].v[k]) continue;
      diff += std::string(diff.empty() ? "" : ", ") + "element " + std::to_string(k + 1) + " " +
              Shorten(was[best].v[k], 40) + " -> " + Shorten(n.v[k], 40);
    }
    changes.push_back("`" + TupleText(was[best].v) + "` -> `" + TupleText(n.v) + "` (" + diff +
                      ")");
  }
  for (size_t i = 0; i < was.size(); ++i) {
    if (used.count(i)) continue;
    // Returned unchanged elsewhere in the block's added lines: moved, not dropped.
    lines.push_back(was[i].line);
    removed_only.push_back(TupleText(was[i].v));
  }
  if (lines.empty()) return;
  auto list = [](const std::vector<std::string>& v, size_t limit) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < limit; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > limit) s += " and " + std::to_string(v.size() - limit) + " more";
    return s;
  };
  std::string what;
  if (!changes.empty()) what = "returned tile " + list(changes, 3);
  if (!added_only.empty()) {
    what += std::string(what.empty() ? "" : "; ") + "now also returns `" + list(added_only, 3) +
            "`";
  }
  if (!removed_only.empty()) {
    what += std::string(what.empty() ? "" : "; ") + "no longer returns `" +
            list(removed_only, 3) + "`";
  }
  Report(kTile, lines, [&](const std::vector<CodeLine*>& run) {
    return what + InFunction(run) +
           ": does each tile still fit the kernel's shared memory and registers (ptxas against "
           "the arch's cap), divide the head dims and sequence lengths it is chosen for, and do "
           "the host paths that assume the old tile (a Python copy of this heuristic, "
           "workspace, padding or rounding sizes) follow?";
  });
}

void FileReview::HostDispatch(ChangeBlock& b) {
  if (!cpp()) return;
  // A host function's branch whose whole body returns a variant (`else if (g % 6 == 0) {
  // return invoke<..., 6, ...>(params); }`, `return {128, 96, true};`): a dispatch. Which
  // inputs reach which variant is the question, not whether outputs are still written.
  struct Pick {
    CodeLine* line;
    std::string test, target;
  };
  std::vector<Pick> picks;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed || l.function_kind != FunctionKind::kHost) continue;
      const auto& t = l.tokens;
      // `case N:` of a switch whose body calls one variant and breaks (or returns it).
      if (t.size() >= 3 && t[0].text == "case" && t.back().text == ":") {
        const SourceOutline* o = Outline(l.added);
        if (o == nullptr) continue;
        std::string body;
        for (int64_t n = l.side_line() + 1; n <= l.side_line() + 6; ++n) {
          const std::string c = CommentStripper(code_.language).Strip(o->Line(n));
          if (c.rfind("case", 0) == 0 || c.rfind("default", 0) == 0 || c.rfind("}", 0) == 0)
            break;
          body += (body.empty() ? "" : " ") + c;
          if (c.rfind("break", 0) == 0 || c.rfind("return", 0) == 0) break;
        }
        const std::vector<Token> bt = Tokenize(body);
        size_t semis = 0;
        for (const Token& x : bt) semis += x.text == ";";
        const bool ends = !bt.empty() && (body.rfind("break", body.size()) != std::string::npos ||
                                          bt[0].text == "return");
        if (semis == 0 || semis > 2 || !ends || bt.empty()) continue;
        size_t from = bt[0].text == "return" ? 1 : 0, to = from;
        while (to < bt.size() && bt[to].text != ";") ++to;
        if (to <= from || std::none_of(bt.begin() + from, bt.begin() + to,
                                       [](const Token& x) { return x.text == "("; })) {
          continue;
        }
        picks.push_back({&l, Join(t, 0, t.size() - 1), Join(bt, from, to)});
        continue;
      }
      if (!IsGuardLine(l)) continue;
      size_t at_if = 0;
      while (at_if < t.size() && t[at_if].text != "if") ++at_if;
      if (at_if == t.size() || at_if + 1 >= t.size()) continue;
      size_t open = at_if + 1;
      if (t[open].text == "constexpr") ++open;
      if (open >= t.size() || t[open].text != "(") continue;
      const size_t close = statement::Closing(t, open);
      if (close >= t.size()) continue;
      // The branch body: the rest of the line, else the side's next lines to its brace.
      std::string body;
      if (close + 1 < t.size() && t[close + 1].text != "{") {
        body = Join(t, close + 1, t.size());
      } else {
        const SourceOutline* o = Outline(l.added);
        if (o == nullptr) continue;
        // Up to the brace that closes the branch (nested branches included).
        int depth = 1;
        for (int64_t n = l.side_line() + 1; n <= l.side_line() + 24 && depth > 0; ++n) {
          const std::string c = CommentStripper(code_.language).Strip(o->Line(n));
          std::string part;
          for (char ch : c) {
            depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
            if (depth == 0) break;
            part += ch;
          }
          if (!part.empty()) body += (body.empty() ? "" : " ") + part;
        }
        if (depth > 0) continue;
      }
      // Every statement of the body returns (through nested if/else branches): a dispatch.
      const std::vector<Token> bt = Tokenize(body);
      bool only_returns = !bt.empty();
      bool calls = false;
      std::string target;
      for (size_t i = 0; i < bt.size() && only_returns;) {
        const std::string& x = bt[i].text;
        if (x == "{" || x == "}" || x == "else" || x == ";") {
          ++i;
          continue;
        }
        if (x == "if") {
          size_t p = i + 1;
          if (p < bt.size() && bt[p].text == "constexpr") ++p;
          if (p >= bt.size() || bt[p].text != "(") {
            only_returns = false;
            break;
          }
          i = statement::Closing(bt, p) + 1;
          continue;
        }
        if (x != "return") {
          only_returns = false;
          break;
        }
        size_t end = i + 1;
        while (end < bt.size() && bt[end].text != ";") {
          calls = calls || bt[end].text == "(" || bt[end].text == "{";
          ++end;
        }
        if (end == bt.size()) {
          only_returns = false;
          break;
        }
        if (target.empty()) target = Join(bt, i + 1, end);
        i = end + 1;
      }
      if (!only_returns || !calls || target.empty()) continue;
      picks.push_back({&l, Join(t, open + 1, close), target});
    }
  }
  if (picks.empty()) return;
  std::vector<CodeLine*> lines;
  std::string what;
  int listed = 0;
  for (const Pick& p : picks) {
    lines.push_back(p.line);
    if (!p.line->added || listed >= 3) continue;
    what += std::string(what.empty() ? "" : "; ") + "`" + Shorten(p.test, 60) + "` now picks `" +
            Shorten(p.target, 70) + "`";
    ++listed;
  }
  if (what.empty()) what = "`" + Shorten(picks.front().test, 60) + "` no longer picks `" +
                           Shorten(picks.front().target, 70) + "`";
  Report(kCondition, lines, [&](const std::vector<CodeLine*>& run) {
    return "dispatch changed: " + what + InFunction(run) +
           ". Which inputs reach each variant now (the values between the old and the new "
           "tests), is every variant it can pick built (instantiated, listed for JIT, compiled "
           "for each arch), and where does an input that no branch takes go?";
  });
}

}  // namespace av
