// change.siblings_unchanged: an edit made at one site of a file while unchanged lines of the
// same file still read the old form (an index widened to 64 bits in one kernel and not in
// its twin, a bound fixed in the forward loop and not in the backward one, a call fixed at
// one of its sites). The edit is what the two versions of a line do not share; the old form
// is that part of the old line, grown by its neighbouring tokens until it says something
// (three tokens, a name), and a line still reads it when it holds the old form and not the
// new one there. The question is asked once per edit and file: on the finding another rule
// already made at that line, or as a finding of its own.
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

using Texts = std::vector<std::string>;

Texts TextsOf(const std::vector<Token>& t, size_t from, size_t to) {
  Texts out;
  for (size_t i = from; i < to && i < t.size(); ++i) out.push_back(t[i].text);
  return out;
}

bool Postfix(const std::string& x) { return x == "." || x == "->" || x == "::"; }

// The start of the operand that ends at t[end - 1] (`tl.program_id(0)`, `x[i]`,
// `params.seqlen_k`), or `end` when there is none.
size_t OperandStart(const std::vector<Token>& t, size_t end) {
  size_t k = end;
  auto primary = [&]() {
    if (k == 0) return false;
    const Token& x = t[k - 1];
    if (x.text == ")" || x.text == "]") {
      int depth = 0;
      size_t i = k;
      while (i-- > 0) {
        if (statement::IsClose(t[i].text)) ++depth;
        if (statement::IsOpen(t[i].text) && --depth == 0) break;
      }
      if (i >= k) return false;
      k = i;
      if (k > 0 && t[k - 1].kind == TokenKind::kIdentifier) --k;
      return true;
    }
    if (x.kind == TokenKind::kIdentifier || x.kind == TokenKind::kNumber) {
      --k;
      return true;
    }
    return false;
  };
  if (!primary()) return end;
  while (k >= 2 && Postfix(t[k - 1].text)) {
    const size_t keep = k;
    --k;
    if (!primary()) {
      k = keep;
      break;
    }
  }
  return k;
}

// The end of the operand that starts at t[begin] (`blockIdx.x`, `(a + b)`, `f(x)[i]`).
size_t OperandEnd(const std::vector<Token>& t, size_t begin) {
  size_t k = begin;
  if (k >= t.size()) return begin;
  if (t[k].text == "(") {
    k = statement::Closing(t, k);
    if (k >= t.size()) return begin;
    ++k;
  } else if (t[k].kind == TokenKind::kIdentifier || t[k].kind == TokenKind::kNumber) {
    ++k;
  } else {
    return begin;
  }
  while (k < t.size()) {
    if (t[k].text == "(" || t[k].text == "[") {
      const size_t c = statement::Closing(t, k);
      if (c >= t.size()) break;
      k = c + 1;
    } else if (Postfix(t[k].text) && k + 1 < t.size() &&
               t[k + 1].kind == TokenKind::kIdentifier) {
      k += 2;
    } else {
      break;
    }
  }
  return k;
}

bool IsBinaryOperator(const std::string& x) {
  static const std::set<std::string> kOps = {"+",  "-",  "*",  "/",  "%",  "<<", ">>", "&",
                                             "|",  "^",  "&&", "||", "<",  "<=", ">",  ">=",
                                             "==", "!=", "and", "or"};
  return kOps.count(x) > 0;
}

// A form says something when it names two things (not keywords, types or one-letter loop
// variables), or one thing it calls, subscripts or reaches a member through (`f(`, `x[`,
// `tl.int64`); a lone name between separators (`, dt)`) says nothing.
bool Telling(const std::vector<Token>& t, size_t from, size_t to) {
  if (to - from < 3) return false;
  int names = 0;
  bool structure = false;
  for (size_t i = from; i < to; ++i) {
    if (!statement::IsIdentifierToken(t[i]) || statement::IsPlainWord(t[i].text)) continue;
    ++names;
    const bool called = i + 1 < to && (t[i + 1].text == "(" || t[i + 1].text == "[");
    const bool member = (i > from && Postfix(t[i - 1].text)) || (i + 1 < to && Postfix(t[i + 1].text));
    structure = structure || called || member;
  }
  return names >= 2 || (names == 1 && structure);
}

bool OnlyLiteralsOrStrings(const std::vector<Token>& t, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (t[i].kind == TokenKind::kIdentifier) return false;
  }
  return true;
}

// Positions where `form` starts in `t`.
std::vector<size_t> Occurrences(const std::vector<Token>& t, const Texts& form) {
  std::vector<size_t> at;
  if (form.empty() || form.size() > t.size()) return at;
  for (size_t i = 0; i + form.size() <= t.size(); ++i) {
    bool same = true;
    for (size_t j = 0; j < form.size() && same; ++j) same = t[i + j].text == form[j];
    if (same) at.push_back(i);
  }
  return at;
}

// One edit of a line: the old form a sibling line would still read, the new form it would
// read once changed alike.
struct SiblingEdit {
  Texts old_form, new_form;
  std::string old_text, new_text;  // as code, for the message
};

// The edit between a removed line `y` and its added version `x`, grown to a telling old
// form; false for a rewrite (more than 20 tokens changed), an edit of literals or strings
// only (a tile size, a message) and an edit that cannot be grown to say something.
bool SiblingEditOf(const std::vector<Token>& x, const std::vector<Token>& y,
                          SiblingEdit* edit) {
  const auto [pre, suf] = CommonTokenEnds(x, y);
  const size_t y_to = y.size() - suf, x_to = x.size() - suf;
  const size_t removed = y_to - pre, added = x_to - pre;
  if (removed + added == 0 || removed > 20 || added > 20) return false;
  // A part only deleted, or an expression replaced by a name (`state.block` -> `block`, a
  // local holding it), leaves the old form meaning what it did elsewhere.
  if (added == 0) return false;
  if (added == 1 && removed > 1 && x[pre].kind == TokenKind::kIdentifier) return false;
  if (OnlyLiteralsOrStrings(y, pre, y_to) && OnlyLiteralsOrStrings(x, pre, x_to)) return false;
  // The old form's bounds in y and the new form's in x, sharing the context around.
  size_t lo = pre, hi = y_to;  // in y
  size_t left = 0, right = 0;  // context tokens taken on each side
  if (removed == 0) {
    // Pure insertion: anchor on the operand it extends (`.to(tl.int64)` after
    // `tl.program_id(0)`, `- 1` after `n`) or the one it precedes (`(int64_t)` before
    // `blockIdx.x`, `off +` before `i`).
    const std::string& first = x[pre].text;
    const std::string& last = x[x_to - 1].text;
    if (Postfix(first) || first == "[" || first == "(" || IsBinaryOperator(first)) {
      const size_t s = OperandStart(y, pre);
      if (s == pre) return false;
      left = pre - s;
    } else if (last == ")" || IsBinaryOperator(last) || last == "*") {
      const size_t e = OperandEnd(y, pre);
      if (e == pre) return false;
      right = e - pre;
    } else {
      return false;
    }
  }
  // Grow one token at a time, right then left, until the form says something.
  // A lone name replaced by another (`y` -> `x`, a callee) needs a second name around it,
  // unless it is a qualified one (`tl.uint32` -> `tl.int64`).
  const bool lone_name = removed == 1 && added == 1 &&
                         y[pre].kind == TokenKind::kIdentifier &&
                         x[pre].kind == TokenKind::kIdentifier &&
                         !(pre > 0 && Postfix(y[pre - 1].text) &&
                           !statement::IsPlainWord(y[pre].text));
  auto telling = [&]() {
    if (!Telling(y, lo - left, hi + right)) return false;
    if (!lone_name) return true;
    int names = 0;
    for (size_t i = lo - left; i < hi + right; ++i) {
      names += statement::IsIdentifierToken(y[i]) && !statement::IsPlainWord(y[i].text);
    }
    return names >= 2;
  };
  while (!telling()) {
    const bool can_right = hi + right < y.size() && right < 3;
    const bool can_left = lo - left > 0 && left < 3;
    if (can_right && (right <= left || !can_left)) {
      ++right;
    } else if (can_left) {
      ++left;
    } else {
      return false;
    }
  }
  edit->old_form = TextsOf(y, lo - left, hi + right);
  edit->new_form = TextsOf(x, pre - left, x_to + right);
  edit->old_text = statement::Join(y, lo - left, hi + right);
  edit->new_text = statement::Join(x, pre - left, x_to + right);
  return true;
}

// Python: a line whose brackets balance, that neither starts nor ends inside an expression.
bool WholePythonLine(const std::vector<Token>& t) {
  if (t.empty() || t.front().kind != TokenKind::kIdentifier) return false;
  int depth = 0;
  for (const Token& x : t) {
    if (statement::IsOpen(x.text)) ++depth;
    if (statement::IsClose(x.text) && --depth < 0) return false;
  }
  const std::string& last = t.back().text;
  return depth == 0 && last != "," && last != "\\" && !IsBinaryOperator(last);
}

}  // namespace

bool FileReview::WholeStatement(const CodeLine& l) const {
  if (!python()) {
    const Statement s = StatementAround(l);
    return s.first == s.last;
  }
  // Python has no `;`: the line must balance and start outside any bracket of the file.
  const std::vector<FileLine>& file = WholeFile(l.added);
  if (file.empty() || !WholePythonLine(l.tokens)) return false;
  std::vector<int>& depth = bracket_depth_[l.added ? 1 : 0];
  if (depth.empty()) {
    depth.assign(file.size(), 0);
    int d = 0;
    for (size_t n = 1; n < file.size(); ++n) {
      depth[n] = d;
      for (const Token& t : file[n].tokens) {
        if (statement::IsOpen(t.text)) ++d;
        if (statement::IsClose(t.text)) d = std::max(0, d - 1);
      }
    }
  }
  const int64_t n = l.side_line();
  return n >= 1 && n < static_cast<int64_t>(depth.size()) && depth[n] == 0;
}

// A default or keyword value changed (`int max_par = 8` -> `16` in a signature,
// `max_par=8` -> `max_par=16`): the other places of the diff's files that still spell the
// old value for that name (a declaration and its definition, a wrapper's default, a
// caller's argument) are named. Reported on its own, since the rules above leave literal
// edits alone.
void FileReview::DefaultValuesChanged() {
  std::set<std::string> asked;
  for (ChangeBlock& b : blocks_) {
    for (CodeLine& a : b.added) {
      if (a.claimed) continue;
      const CodeLine* r = BestMatch(a, b, 0.5);
      if (r == nullptr || r->claimed) continue;
      const std::vector<Token>& x = a.tokens;
      const std::vector<Token>& y = r->tokens;
      const auto [pre, suf] = CommonTokenEnds(x, y);
      if (pre < 2 || pre + suf + 1 != x.size() || pre + suf + 1 != y.size()) continue;
      if (x[pre].kind != TokenKind::kNumber || y[pre].kind != TokenKind::kNumber) continue;
      if (x[pre - 1].text != "=" || x[pre - 2].kind != TokenKind::kIdentifier ||
          statement::IsPlainWord(x[pre - 2].text)) {
        continue;
      }
      // A parameter's default or a keyword argument: `NAME = v` after `(`, `,` or a type,
      // ending the item (`,` or `)` next).
      // (In Python a whole statement `BLOCK_N = 16` is a local's value, not a default.)
      const bool item_end = pre + 1 < x.size() && (x[pre + 1].text == "," || x[pre + 1].text == ")");
      if (!item_end || !(a.in_signature || python())) continue;
      const std::string name = x[pre - 2].text;
      if (!asked.insert(name).second) continue;
      const Texts old_form = {name, "=", y[pre].text};
      const Texts new_form = {name, "=", x[pre].text};
      // Asked once per review: by the first file of the diff that makes this change.
      bool earlier = false;
      for (size_t i = 0; i < index_ && !earlier; ++i) {
        for (const ChangeBlock& fb : files_[i].blocks) {
          for (const CodeLine& l : fb.added) {
            earlier = earlier || !Occurrences(l.tokens, new_form).empty();
          }
        }
      }
      if (earlier) continue;
      std::string sites;
      int found = 0;
      for (const ReviewedFile& file : files_) {
        const SourceOutline* o = file.code.head;
        if (o == nullptr || file.code.file->status == FileStatus::kDeleted) continue;
        std::set<int64_t> changed;
        for (const ChangeBlock& fb : file.blocks) {
          for (const CodeLine& l : fb.added) changed.insert(l.side_line());
        }
        CommentStripper strip(file.code.language);
        for (int64_t n = 1; n <= static_cast<int64_t>(o->lines.size()) && found < 6; ++n) {
          const std::string code = strip.Strip(RuleText(o->Line(n)));
          if (code.empty() || changed.count(n)) continue;
          if (Occurrences(Tokenize(code), old_form).empty()) continue;
          sites += std::string(found ? ", " : "") +
                   (file.code.file == code_.file ? "" : file.code.file->path() + ":") +
                   std::to_string(n) + " (`" + Shorten(code, 70) + "`)";
          ++found;
        }
      }
      if (found == 0) continue;
      std::vector<CodeLine*> lines = {const_cast<CodeLine*>(r), &a};
      Report(kSiblings, lines,
             "`" + name + "` " + y[pre].text + " -> " + x[pre].text + InFunction(lines) +
                 ", while other places still give it " + y[pre].text + ": " + sites +
                 ". Are the declaration, the definition, the wrappers and their callers meant "
                 "to disagree, and do buffers sized from the old value (a workspace) still fit?");
    }
  }
}

void FileReview::SiblingSites(std::vector<Finding>* merged) {
  if (deleted() || added_file()) return;
  const std::vector<FileLine>& file = WholeFile(true);
  if (file.empty()) return;
  // The unchanged code lines of the head file.
  const std::set<int64_t> changed = ChangedLines(true);
  struct Line {
    int64_t n;
    const std::string& code;
    const std::vector<Token>& tokens;
  };
  std::vector<Line> unchanged;
  for (int64_t n = 1; n < static_cast<int64_t>(file.size()); ++n) {
    const std::string& code = file[n].code;
    if (code.empty() || changed.count(n) || code[0] == '#') continue;
    unchanged.push_back({n, code, file[n].tokens});
  }
  std::set<Texts> asked;
  std::set<std::vector<int64_t>> named;  // sibling lines already named by a question
  int standalone = 0;
  std::vector<Finding> alone;
  std::vector<Finding>* keep = out_;
  out_ = &alone;
  for (ChangeBlock& b : blocks_) {
    for (CodeLine& a : b.added) {
      if (a.code.empty() || a.code[0] == '#' || a.in_signature) continue;
      const CodeLine* r = BestMatch(a, b, 0.5);
      if (r == nullptr) continue;
      // Lines that are whole statements on both sides: a statement split over lines pairs
      // its pieces, not its edit.
      if (!WholeStatement(a) || !WholeStatement(*r)) continue;
      SiblingEdit edit;
      if (!SiblingEditOf(a.tokens, r->tokens, &edit) || !asked.insert(edit.old_form).second) {
        continue;
      }
      // Each edit scans the file's unchanged lines: a rewrite of thousands of lines is read
      // for its first 256 edits only, which keeps the review linear in the diff.
      if (asked.size() > 256) break;
      std::vector<const Line*> still;
      for (const Line& l : unchanged) {
        const std::vector<size_t> old_at = Occurrences(l.tokens, edit.old_form);
        if (old_at.empty()) continue;
        // Old occurrences not inside a new one: `x` still read where `x.to(int64)` is not.
        const std::vector<size_t> new_at = Occurrences(l.tokens, edit.new_form);
        const bool stale = std::any_of(old_at.begin(), old_at.end(), [&](size_t p) {
          return std::none_of(new_at.begin(), new_at.end(), [&](size_t q) {
            return q <= p && q + edit.new_form.size() >= p + edit.old_form.size();
          });
        });
        if (stale) still.push_back(&l);
      }
      // None: nothing to ask. Many: the old form is the file's idiom, not a site missed.
      if (still.empty() || still.size() > 8) continue;
      // The same lines named for a neighbouring edit already (one refactor, many lines).
      std::vector<int64_t> key;
      for (const Line* l : still) key.push_back(l->n);
      if (!named.insert(key).second) continue;
      std::string sites;
      for (size_t i = 0; i < still.size() && i < 4; ++i) {
        sites += std::string(i ? ", " : "") + std::to_string(still[i]->n) + " (`" +
                 Shorten(still[i]->code, 90) + "`)";
      }
      if (still.size() > 4) sites += " and " + std::to_string(still.size() - 4) + " more";
      const std::string still_read = "unchanged lines of this file still read `" +
                                     Shorten(edit.old_text, 60) + "`: " + sites +
                                     ". Do they need it too (a twin kernel, the other branch, "
                                     "the backward pass), or why only here?";
      const std::string edit_text =
          "`" + Shorten(edit.old_text, 60) + "` -> `" + Shorten(edit.new_text, 60) + "`";
      if (!a.claimed) {
        // Two questions of their own per file at most: more edits with old forms left is a
        // function rewritten beside an older twin, not sites missed one by one.
        if (++standalone > 2) continue;
        std::vector<CodeLine*> lines = {const_cast<CodeLine*>(r), &a};
        Report(kSiblings, lines, edit_text + InFunction(lines) + ", while " + still_read);
        continue;
      }
      // The line is another rule's: its finding (or the one that lists it as the same
      // question) gets the sibling question, unless it names those lines already.
      const int64_t at = a.line->anchor;
      const std::string listed = std::to_string(a.side_line()) + " (`";
      Finding* on = nullptr;
      for (Finding& f : *merged) {
        if (f.side == "head" && f.line <= at && at <= f.end_line) {
          on = &f;
          break;
        }
      }
      for (size_t i = 0; on == nullptr && i < merged->size(); ++i) {
        if ((*merged)[i].message.find(listed) != std::string::npos) on = &(*merged)[i];
      }
      const std::string first_site = std::to_string(still[0]->n) + " (`";
      if (on != nullptr && on->message.find(first_site) == std::string::npos) {
        on->message += " The same edit (" + edit_text + ") is not made where " + still_read;
      }
    }
  }
  out_ = keep;
  for (Finding& f : alone) merged->push_back(std::move(f));
  std::stable_sort(merged->begin(), merged->end(), [](const Finding& x, const Finding& y) {
    return x.line != y.line ? x.line < y.line : x.rule < y.rule;
  });
}

}  // namespace av
