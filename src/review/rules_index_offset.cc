// index.offset_added: an index gains an added term (`x[i]` -> `x[off + i]`). The question
// is the term's units and range, and the file's other reads of the same array without it.
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT
using statement::Closing;
using statement::IsClose;
using statement::IsOpen;
using statement::Join;

void FileReview::IndexOffsets(ChangeBlock& b) {
  if (!cpp()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed || a.code.empty() || a.code[0] == '#') continue;
    const CodeLine* rp = BestMatch(a, b, 0.5);
    if (rp == nullptr || rp->claimed) continue;
    CodeLine& r = const_cast<CodeLine&>(*rp);
    const std::vector<Token>& x = a.tokens;
    const std::vector<Token>& y = r.tokens;
    const auto [pre, suf] = CommonTokenEnds(x, y);
    // Only tokens added, forming `term +` before the old index or `+ term` after it.
    if (pre + suf != y.size() || pre + suf >= x.size()) continue;
    const size_t from = pre, to = x.size() - suf;
    const bool leading = x[to - 1].text == "+" || x[to - 1].text == "-";
    const bool trailing = x[from].text == "+" || x[from].text == "-";
    if (!leading && !trailing) continue;
    // Inside a subscript: the innermost bracket open at `from` is '['.
    size_t open = x.size();
    int depth = 0;
    for (size_t i = from; i-- > 0;) {
      if (IsClose(x[i].text)) ++depth;
      if (IsOpen(x[i].text)) {
        if (depth == 0) {
          open = i;
          break;
        }
        --depth;
      }
    }
    if (open == x.size() || x[open].text != "[" || open == 0 ||
        x[open - 1].kind != TokenKind::kIdentifier) {
      continue;
    }
    const size_t close = Closing(x, open);
    if (close >= x.size() || close < to) continue;
    const std::string array = x[open - 1].text;
    const std::string term =
        leading ? Join(x, from, to - 1) : Join(x, from + 1, to);
    const std::string index = Join(x, open + 1, close);
    std::set<std::string> term_ids = statement::Identifiers(x, leading ? from : from + 1,
                                                            leading ? to - 1 : to);
    Statement own = StatementAround(a);
    const std::string others = UnchangedFileLines(
        [&](const std::vector<Token>& t) {
          bool indexes = false, with_term = false;
          for (size_t i = 0; i + 1 < t.size(); ++i) {
            indexes = indexes || (t[i].text == array && t[i + 1].text == "[");
            with_term = with_term || term_ids.count(t[i].text) > 0;
          }
          return indexes && !with_term;
        },
        own, 4);
    std::vector<CodeLine*> lines = {&r, &a};
    Report(kIndexOffset, lines,
           "`" + array + "[...]` now indexed at `" + Shorten(index, 80) + "` (adds `" +
               Shorten(term, 60) + "`)" + InFunction(lines) + ". Is `" + Shorten(term, 60) +
               "` in the units of this index (elements of this row, not tokens, blocks or "
               "bytes), and does the sum stay inside `" + array + "` for the last block and "
               "the longest sequence?" +
               (others.empty() ? std::string("")
                               : " Other lines still index `" + array + "` without it: " +
                                     others + "."));
  }
}

}  // namespace av
