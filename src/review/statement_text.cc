// Statement text shared by the rules that read a changed statement whole, and the
// FileReview helpers they use: the whole statement around a line, the lines the diff
// changed, the unchanged lines of a function that still read a name.
#include "review/statement_text.h"

#include <algorithm>
#include <set>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace statement {

std::string Join(const std::vector<Token>& t, size_t from, size_t to) {
  std::string s;
  const std::vector<bool> angle = TemplateAngles(t);
  for (size_t i = from; i < to && i < t.size(); ++i) {
    const std::string& x = t[i].text;
    // `f(x)`, `a[i]`: tight after a name; `a < (b + 1)`: a space before a grouping paren.
    const bool call = (x == "(" || x == "[") && i > 0 &&
                      (t[i - 1].kind == TokenKind::kIdentifier || t[i - 1].text == ">" ||
                       t[i - 1].text == ")" || t[i - 1].text == "]");
    const bool tight = s.empty() || angle[i] || (i > 0 && angle[i - 1] && t[i - 1].text == "<") ||
                       call || x == ")" || x == "]" || x == "," ||
                       x == "." || x == "->" || x == "::" || x == ";" || s.back() == '(' ||
                       s.back() == '[' || s.back() == '.' || s.back() == '!' ||
                       (s.size() >= 2 && (s.substr(s.size() - 2) == "->" ||
                                          s.substr(s.size() - 2) == "::"));
    s += (tight ? "" : " ") + x;
  }
  return s;
}

bool IsOpen(const std::string& x) { return x == "(" || x == "[" || x == "{"; }
bool IsClose(const std::string& x) { return x == ")" || x == "]" || x == "}"; }

// The index of the bracket closing the one at `open`, or t.size().
size_t Closing(const std::vector<Token>& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (IsOpen(t[i].text)) ++depth;
    if (IsClose(t[i].text) && --depth == 0) return i;
  }
  return t.size();
}

std::vector<std::pair<size_t, size_t>> Items(const std::vector<Token>& t, size_t open,
                                             size_t* close) {
  std::vector<std::pair<size_t, size_t>> items;
  *close = Closing(t, open);
  if (*close >= t.size()) return items;
  size_t from = open + 1;
  int depth = 0;
  for (size_t i = open + 1; i <= *close; ++i) {
    if (i < *close && statement::IsOpen(t[i].text)) ++depth;
    if (i < *close && statement::IsClose(t[i].text)) --depth;
    if ((depth == 0 && t[i].text == ",") || i == *close) {
      if (i > from) items.push_back({from, i});
      from = i + 1;
    }
  }
  return items;
}

bool IsIdentifierToken(const Token& t) {
  return t.kind == TokenKind::kIdentifier && !IsKeywordOrGuard(t.text);
}

std::set<std::string> Identifiers(const std::vector<Token>& t, size_t from, size_t to) {
  std::set<std::string> ids;
  for (size_t i = from; i < to && i < t.size(); ++i) {
    // Member names are read through their object: `params.s_q` counts as s_q.
    if (IsIdentifierToken(t[i])) ids.insert(t[i].text);
  }
  return ids;
}

// Identifiers too common to say anything when they are "still used" somewhere.
bool IsPlainWord(const std::string& s) {
  return s.size() < 3 || s == "const" || s == "auto" || s == "int" || s == "uint32_t" ||
         s == "int32_t" || s == "int64_t" || s == "size_t" || s == "float" || s == "static_cast" ||
         s == "params" || s == "args" || s == "this" || s == "std" || s == "cute" ||
         s == "cutlass" || s == "get" || s == "size" || s == "shape" || s == "make_stride" ||
         s == "make_tensor" || s == "make_shape" || s == "make_layout";
}

}  // namespace statement

using statement::Closing;      // NOLINT
using statement::Join;         // NOLINT

const std::vector<FileReview::FileLine>& FileReview::WholeFile(bool head) const {
  if (!whole_file_built_[head]) {
    whole_file_built_[head] = true;
    if (const SourceOutline* o = Outline(head); o != nullptr) {
      CommentStripper strip(code_.language);
      whole_file_[head].resize(o->lines.size() + 1);
      for (int64_t n = 1; n <= static_cast<int64_t>(o->lines.size()); ++n) {
        FileLine& l = whole_file_[head][n];
        l.code = strip.Strip(RuleText(o->Line(n)));
        l.tokens = Tokenize(l.code);
      }
    }
  }
  return whole_file_[head];
}

const std::map<int64_t, const std::string*>& FileReview::SideLines(bool added) const {
  if (!side_lines_built_[added]) {
    for (const ChangeBlock& b : blocks_) {
      for (const CodeLine& x : added ? b.added : b.removed) side_lines_[added][x.side_line()] = &x.code;
    }
    side_lines_built_[added] = true;
  }
  return side_lines_[added];
}

FileReview::Statement FileReview::StatementAround(const CodeLine& l) const {
  Statement s;
  const SourceOutline* o = Outline(l.added);
  const int64_t at = l.side_line();
  // Lines of the same side: the whole file when read, else the blocks' own lines.
  const std::map<int64_t, const std::string*>* block_lines =
      o == nullptr ? &SideLines(l.added) : nullptr;
  auto code_at = [&](int64_t n, bool* known) -> std::string {
    if (o != nullptr) {
      *known = n >= 1 && !o->Line(n).empty();
      std::string_view raw = o->Line(n);
      if (raw.size() > kMaxRuleLineBytes) raw = raw.substr(0, kMaxRuleLineBytes);
      return CommentStripper(code_.language).Strip(raw);
    }
    auto it = block_lines->find(n);
    *known = it != block_lines->end();
    return *known ? std::string(RuleText(*it->second)) : std::string();
  };
  auto ends_statement = [](const std::string& c) {
    if (c.empty()) return false;
    const char e = c.back();
    return e == ';' || e == '{' || e == '}' || c[0] == '#' || e == ':';
  };
  int64_t first = at;
  for (int64_t n = at - 1; n >= at - 6 && n >= 1; --n) {
    bool known = false;
    const std::string c = code_at(n, &known);
    if (!known) break;
    // `for (int i = 0;` ends in ';' but leaves its '(' open: the statement goes on.
    int open = 0;
    for (char ch : c) open += (ch == '(' || ch == '[') ? 1 : (ch == ')' || ch == ']') ? -1 : 0;
    if (ends_statement(c) && open <= 0) break;
    if (c.empty()) continue;  // a comment line inside the statement
    first = n;
  }
  std::string text;
  int depth = 0;
  int64_t last = first;
  for (int64_t n = first; n <= first + 10; ++n) {
    bool known = n == at;
    // A line's first kMaxRuleLineBytes, as everywhere the rules read: a 50 MB line is
    // tokenised once when the blocks are built, never again per statement.
    std::string c = n == at ? std::string(RuleText(l.code)) : code_at(n, &known);
    if (!known) break;
    last = n;
    if (c.empty()) continue;
    text += (text.empty() ? "" : " ") + c;
    for (char ch : c) depth += (ch == '(' || ch == '[') ? 1 : (ch == ')' || ch == ']') ? -1 : 0;
    if (n >= at && depth <= 0 && ends_statement(c)) break;
  }
  s.code = text;
  s.tokens = Tokenize(text);
  s.first = first;
  s.last = last;
  return s;
}

std::set<int64_t> FileReview::ChangedLines(bool added) const {
  std::set<int64_t> lines;
  for (const ChangeBlock& b : blocks_) {
    for (const CodeLine& x : added ? b.added : b.removed) lines.insert(x.side_line());
  }
  return lines;
}

std::string FileReview::UnchangedUses(const CodeLine& l, const std::string& name,
                                      const Statement& own, size_t limit,
                                      bool after_only) const {
  const SourceOutline* o = Outline(true);
  if (o == nullptr || name.empty()) return "";
  const std::set<int64_t> changed = ChangedLines(true);
  // Head-side lines: the function around an added line, else the whole file.
  const OutlineFunction* f = l.added ? o->FunctionAt(l.side_line()) : nullptr;
  int64_t lo = f != nullptr ? f->header_line : 1, hi = f != nullptr ? f->close_line : 0;
  if (f == nullptr) {
    hi = 1;
    while (!o->Line(hi + 1).empty() || !o->Line(hi + 2).empty()) ++hi;  // the file's end
    hi += 2;
  }
  std::vector<std::pair<int64_t, std::string>> after, before;
  CommentStripper strip(code_.language);
  for (int64_t n = lo; n <= hi; ++n) {
    std::string_view raw = o->Line(n);
    if (raw.size() > kMaxRuleLineBytes) raw = raw.substr(0, kMaxRuleLineBytes);
    const std::string code = strip.Strip(raw);
    const bool in_own = l.added && n >= own.first && n <= own.last;
    if (code.empty() || changed.count(n) || in_own) continue;
    if (after_only && n < own.first) continue;
    const std::vector<Token> t = Tokenize(code);
    bool uses = false;
    for (size_t i = 0; i < t.size() && !uses; ++i) {
      if (t[i].text != name) continue;
      // Its own declaration (`int32_t const name{...}`, `T name = ...;`) is not a use.
      const bool declared = i > 0 && (t[i - 1].kind == TokenKind::kIdentifier ||
                                      t[i - 1].text == "*" || t[i - 1].text == "&") &&
                            !IsKeywordOrGuard(t[i - 1].text) && t[i - 1].text != "return" &&
                            i + 1 < t.size() &&
                            (t[i + 1].text == "=" || t[i + 1].text == "{" || t[i + 1].text == ";" ||
                             t[i + 1].text == "," || t[i + 1].text == ")");
      uses = !declared;
    }
    if (!uses) continue;
    (n > own.last ? after : before).push_back({n, code});
  }
  std::vector<std::pair<int64_t, std::string>> pick = after;
  pick.insert(pick.end(), before.begin(), before.end());
  if (pick.size() > limit) pick.resize(limit);
  std::sort(pick.begin(), pick.end());
  std::string out;
  for (const auto& [n, code] : pick) {
    out += std::string(out.empty() ? "" : ", ") + std::to_string(n) + " (`" + Shorten(code, 90) +
           "`)";
  }
  return out;
}

std::string FileReview::UnchangedFileLines(
    const std::function<bool(const std::vector<Token>&)>& want, const Statement& own,
    size_t limit) const {
  const std::vector<FileLine>& file = WholeFile(true);
  const std::set<int64_t> changed = ChangedLines(true);
  std::string out;
  size_t found = 0;
  for (int64_t n = 1; n < static_cast<int64_t>(file.size()) && found < limit; ++n) {
    const std::string& code = file[n].code;
    if (code.empty() || changed.count(n) || (n >= own.first && n <= own.last)) continue;
    if (!want(file[n].tokens)) continue;
    out += std::string(out.empty() ? "" : ", ") + std::to_string(n) + " (`" + Shorten(code, 90) +
           "`)";
    ++found;
  }
  return out;
}

}  // namespace av
