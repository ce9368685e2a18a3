// Triton kernels read their place in the grid with `tl.program_id(axis)` and address tiles
// with block pointers; both are what launch.block_index_remapped and tma.descriptor_changed
// ask about in CUDA. launch.block_index_remapped (Python): a changed line whose program ids
// (the axes read, in order) differ, a program id read on an axis the kernel did not read, or
// an axis no longer read (its programs now repeat the same tile). triton.block_ptr_changed:
// a `tl.make_block_ptr` / `tl.make_tensor_descriptor` whose arguments changed (base, shape,
// strides, offsets, block shape, order).
#include <algorithm>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// The axes of `tl.program_id(k)` on a line, in order ("0", "1", "axis=2" as written).
std::vector<std::string> ProgramAxes(const std::vector<Token>& t) {
  std::vector<std::string> axes;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text != "tl" || t[i + 1].text != "." || t[i + 2].text != "program_id" ||
        t[i + 3].text != "(") {
      continue;
    }
    const size_t close = statement::Closing(t, i + 3);
    if (close >= t.size()) continue;
    axes.push_back(statement::Join(t, i + 4, close));
  }
  return axes;
}

bool GridAssignment(const CodeLine& l) {
  const auto& t = l.tokens;
  return t.size() >= 2 && t[0].text == "grid" && t[1].text == "=";
}

// The text of the first `tl.make_block_ptr(...)` / `tl.make_tensor_descriptor(...)` call.
std::string BlockPointerCall(const std::vector<Token>& t) {
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text == "tl" && t[i + 1].text == "." &&
        (t[i + 2].text == "make_block_ptr" || t[i + 2].text == "make_tensor_descriptor") &&
        t[i + 3].text == "(") {
      const size_t close = statement::Closing(t, i + 3);
      if (close < t.size()) return statement::Join(t, i, close + 1);
    }
  }
  return "";
}

}  // namespace

void FileReview::TritonProgramIds(ChangeBlock& b) {
  if (!python()) return;
  std::vector<CodeLine*> lines;
  std::string what;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const std::vector<std::string> now = ProgramAxes(a.tokens);
    // The old line that defines the same name (`i_t = ...`), else the most similar one: two
    // swapped axes are two lines alike but for their names.
    const CodeLine* r = nullptr;
    if (a.tokens.size() >= 2 && a.tokens[1].text == "=") {
      for (const CodeLine& x : b.removed) {
        if (r == nullptr && x.tokens.size() >= 2 && x.tokens[1].text == "=" &&
            x.tokens[0].text == a.tokens[0].text) {
          r = &x;
        }
      }
    }
    if (r == nullptr) r = BestMatch(a, b, 0.5);
    const std::vector<std::string> was =
        r != nullptr && !r->claimed ? ProgramAxes(r->tokens) : std::vector<std::string>{};
    if (now.empty() && was.empty()) continue;
    if (r != nullptr && now == was) continue;  // the axes stayed: another rule's question
    lines.push_back(&a);
    if (r != nullptr && !r->claimed) lines.push_back(const_cast<CodeLine*>(r));
    if (what.empty()) {
      what = r != nullptr ? "`" + Shorten(r->code, 80) + "` -> `" + Shorten(a.code, 80) + "`"
                          : "`" + Shorten(a.code, 80) + "` added";
    }
  }
  // Program ids no longer read at all: the programs along that axis repeat one tile.
  for (CodeLine& r : b.removed) {
    if (r.claimed || ProgramAxes(r.tokens).empty()) continue;
    if (BestMatch(r, b, 0.5) != nullptr ||
        std::find(lines.begin(), lines.end(), &r) != lines.end()) {
      continue;
    }
    lines.push_back(&r);
    if (what.empty()) what = "`" + Shorten(r.code, 80) + "` removed";
  }
  if (lines.empty()) return;
  std::string grid;
  for (const ChangeBlock& x : blocks_) {
    for (const CodeLine& l : x.added) {
      if (grid.empty() && GridAssignment(l)) {
        grid = " The launch grid changes at line " + std::to_string(l.side_line()) + " (`" +
               Shorten(l.code, 80) + "`).";
      }
    }
  }
  Report(kBlockIndex, lines,
         what + InFunction(lines) +
             ": which tile each program computes changed. Every program must still get exactly "
             "one tile, every tile one program, and the grid launched must have the shape this "
             "mapping divides (a grid axis the kernel no longer reads makes its programs repeat "
             "the same tile; axes 1 and 2 stop at 65535)." +
             grid);
}

void FileReview::TritonBlockPointers(ChangeBlock& b) {
  if (!python()) return;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const std::string now = BlockPointerCall(a.tokens);
    if (now.empty()) continue;
    const CodeLine* r = BestMatch(a, b, 0.5);
    if (r == nullptr || r->claimed) continue;  // a new block pointer: nothing to compare
    const std::string was = BlockPointerCall(r->tokens);
    if (was.empty() || was == now) continue;
    std::vector<CodeLine*> lines = {const_cast<CodeLine*>(r), &a};
    Report(kTritonBlockPtr, lines,
           "`" + Shorten(was, 90) + "` -> `" + Shorten(now, 90) + "`" + InFunction(lines) +
               ": do the shape and strides still describe the tensor as it is laid out (the same "
               "order of dimensions), do the offsets start where this program's tile starts (per "
               "sequence under varlen, per head), and do the loads and stores through it check "
               "the bounds of every dimension that can run past the end (boundary_check)?");
  }
}

}  // namespace av
