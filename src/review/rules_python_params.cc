// call.parameter_inserted for Python (a host function or a Triton kernel): a `def`'s
// parameter list that keeps every old parameter in order and gains one before an old one.
// Positional calls of the file (`f(a, b)`, a launch `kernel[grid](a, b)`) then pass their
// arguments one place off; calls that pass every argument from that place on by keyword do
// not shift, and when every call of the file is such a call nothing is asked; nor when the
// function is module-private (`_name`) and every call of the file changed with it. Needs
// the whole base and head files (the `def` may span many lines).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

struct Span {
  std::vector<Token> t;
  std::vector<int64_t> line;
};

Span TokensOfLines(const SourceOutline& o, int64_t from, int64_t to) {
  Span s;
  CommentStripper strip(SourceLanguage::kPython);
  for (int64_t n = std::max<int64_t>(1, from); n <= to; ++n) {
    if (n > static_cast<int64_t>(o.lines.size())) break;
    for (Token& x : Tokenize(strip.Strip(RuleText(o.Line(n))))) {
      s.t.push_back(std::move(x));
      s.line.push_back(n);
    }
  }
  return s;
}

// The name a Python parameter declares (`BLOCK: tl.constexpr = 64` -> BLOCK; `*args` ->
// args).
std::string PyParameterName(const std::vector<Token>& t, std::pair<size_t, size_t> r) {
  for (size_t i = r.first; i < r.second; ++i) {
    if (t[i].kind == TokenKind::kIdentifier) return t[i].text;
  }
  return "";
}

// A `def NAME(...)` header from its line: the parameters and the line its ')' closes on.
struct DefHeader {
  Span s;
  std::vector<std::pair<size_t, size_t>> params;
  int64_t close_line = 0;
};

bool ReadDef(const SourceOutline& o, int64_t line, const std::string& name, DefHeader* h) {
  h->s = TokensOfLines(o, line, line + 60);
  for (size_t i = 0; i + 2 < h->s.t.size(); ++i) {
    if (h->s.t[i].text != "def" || h->s.t[i + 1].text != name || h->s.t[i + 2].text != "(") {
      continue;
    }
    size_t close = 0;
    h->params = statement::Items(h->s.t, i + 2, &close);
    if (close >= h->s.t.size()) return false;
    h->close_line = h->s.line[close];
    return true;
  }
  return false;
}

}  // namespace

void FileReview::PythonParametersInserted(ChangeBlock& b) {
  if (!python() || b.added.empty()) return;
  const SourceOutline* head = Outline(true);
  const SourceOutline* base = Outline(false);
  if (head == nullptr || base == nullptr) return;
  for (CodeLine& a : b.added) {
    if (a.claimed || a.code.empty()) continue;
    const OutlineFunction* f = head->FunctionAt(a.side_line());
    if (f == nullptr || f->kind != FunctionKind::kPython || python_defs_done_.count(f->name)) {
      continue;
    }
    const std::string name = f->name;
    DefHeader hd, bd;
    if (!ReadDef(*head, f->signature_line, name, &hd) || a.side_line() > hd.close_line) continue;
    const OutlineFunction* g = nullptr;
    for (const OutlineFunction& x : base->functions) {
      if (x.name != name || x.kind != FunctionKind::kPython) continue;
      if (g == nullptr || std::llabs(x.signature_line - f->signature_line) <
                              std::llabs(g->signature_line - f->signature_line)) {
        g = &x;
      }
    }
    if (g == nullptr || !ReadDef(*base, g->signature_line, name, &bd)) continue;
    python_defs_done_.insert(name);
    std::vector<std::string> hn, bn;
    for (const auto& p : hd.params) hn.push_back(PyParameterName(hd.s.t, p));
    for (const auto& p : bd.params) bn.push_back(PyParameterName(bd.s.t, p));
    // Every old parameter kept, in order, and some new one before the last of them.
    std::vector<size_t> inserted;
    size_t k = 0;
    bool reordered = false;
    for (size_t i = 0; i < hn.size() && !reordered; ++i) {
      if (k < bn.size() && hn[i] == bn[k]) {
        ++k;
      } else if (std::find(bn.begin(), bn.end(), hn[i]) == bn.end()) {
        inserted.push_back(i);
      } else {
        reordered = true;
      }
    }
    if (reordered || k != bn.size() || inserted.empty() || bn.empty()) continue;
    const size_t first = inserted.front();
    size_t last_kept = 0;
    for (size_t i = 0; i < hn.size(); ++i) {
      if (std::find(inserted.begin(), inserted.end(), i) == inserted.end()) last_kept = i;
    }
    if (first > last_kept) continue;  // appended: Python calls name what they pass late
    // A method's calls do not pass `self`: positions count from the first other parameter.
    const size_t skip = !hn.empty() && (hn[0] == "self" || hn[0] == "cls") ? 1 : 0;
    const size_t position = first - skip;
    // Calls of the file: `name(`, `.name(`, a launch `name[grid](`; not the `def` itself.
    const std::set<int64_t> changed = ChangedLines(true);
    std::string changed_calls, unchanged_calls;
    int calls = 0, shifted = 0;
    const int64_t n_lines = static_cast<int64_t>(head->lines.size());
    for (int64_t n = 1; n <= n_lines && calls < 12; ++n) {
      if (n >= f->signature_line && n <= hd.close_line) continue;
      if (head->Line(n).find(name) == std::string_view::npos) continue;
      const Span s = TokensOfLines(*head, n, std::min(n + 40, n_lines));
      for (size_t i = 0; i + 1 < s.t.size() && s.line[i] == n; ++i) {
        if (s.t[i].text != name || (i > 0 && s.t[i - 1].text == "def")) continue;
        size_t j = i + 1;
        if (s.t[j].text == "[") j = statement::Closing(s.t, j) + 1;  // kernel[grid](...)
        if (j >= s.t.size() || s.t[j].text != "(") continue;
        size_t close = 0;
        const auto args = statement::Items(s.t, j, &close);
        if (close >= s.t.size()) continue;
        size_t positional = 0;
        for (const auto& r : args) {
          const bool keyword = r.second - r.first >= 2 && s.t[r.first + 1].text == "=";
          const bool star = s.t[r.first].text == "*" || s.t[r.first].text == "**";
          if (keyword || star) break;
          ++positional;
        }
        ++calls;
        // A call whose positional arguments stop before the new parameter does not shift.
        if (positional <= position) break;
        ++shifted;
        bool touched = false;
        for (int64_t m = n; m <= s.line[close]; ++m) touched = touched || changed.count(m);
        std::string& list = touched ? changed_calls : unchanged_calls;
        list += (list.empty() ? "" : ", ") + std::to_string(n);
        break;
      }
    }
    if (calls > 0 && shifted == 0) continue;  // every call names its arguments from there on
    // A module-private function (`_kernel`) whose every call here changed with it has no
    // caller left to ask about.
    if (name[0] == '_' && unchanged_calls.empty() && !changed_calls.empty()) continue;
    size_t before = first + 1;
    while (std::find(inserted.begin(), inserted.end(), before) != inserted.end()) ++before;
    const std::string param =
        statement::Join(hd.s.t, hd.params[first].first, hd.params[first].second);
    std::vector<CodeLine*> lines;
    const int64_t plo = hd.s.line[hd.params[first].first],
                  phi = hd.s.line[hd.params[first].second - 1];
    for (CodeLine& x : b.added) {
      if (!x.claimed && x.side_line() >= plo && x.side_line() <= phi) lines.push_back(&x);
    }
    if (lines.empty()) lines.push_back(&a);
    std::string callers =
        CallsOfChangedSignature(unchanged_calls, changed_calls, "positional call");
    if (calls == 0) callers = " No call in this file: its callers are elsewhere.";
    Report(kParameterInserted, lines,
           "`" + Shorten(param, 60) + "` inserted as parameter " + std::to_string(first + 1) +
               " of " + std::to_string(hn.size()) + " of `" + name + "(...)`, before `" +
               (before < hn.size() ? hn[before] : std::string("")) +
               "`: a call that passes arguments by position and was not updated passes them "
               "one place off, and Python raises nothing when the counts still fit. Were all "
               "callers (launches, wrappers, other modules) updated in the same order?" +
               callers);
  }
}

}  // namespace av
