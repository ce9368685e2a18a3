// buffer.zeroing_removed: a buffer the code zeroed before use that it no longer zeroes:
// `torch.zeros(...)` -> `torch.empty(...)`, a `cudaMemset`/`.zero_()`/`fill_(0)` removed and
// not made again in the file. Split-k partials added into it, atomics, locks and counters
// that must start at 0, and masked tails that are never written read what a previous use
// left there (a reused workspace, a CUDA graph replay).
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// The zeroing call on a line ("torch.zeros", "cudaMemset", "zero_", "fill_(0)"), or "".
std::string Zeroing(const std::vector<Token>& t) {
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (t[i + 1].text != "(") continue;
    if (x == "zeros" || x == "zeros_like" || x == "new_zeros" || x == "cudaMemset" ||
        x == "cudaMemsetAsync" || x == "zero_" || x == "memset" || x == "cuMemsetD32Async" ||
        x == "cuMemsetD8Async") {
      return x;
    }
    if ((x == "fill_" || x == "fill") && i + 2 < t.size() &&
        (t[i + 2].text == "0" || t[i + 2].text == "0.0" || t[i + 2].text == "0.")) {
      return x + "(0)";
    }
  }
  return "";
}

bool Empty(const std::vector<Token>& t) {
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const std::string& x = t[i].text;
    if ((x == "empty" || x == "empty_like" || x == "new_empty" || x == "empty_strided") &&
        t[i + 1].text == "(") {
      return true;
    }
  }
  return false;
}

}  // namespace

void FileReview::ZeroingRemoved() {
  if (added_file() || deleted()) return;
  // Zeroing calls the file's added lines make: one moved or reworded is not removed.
  int added_zeroing = 0, removed_zeroing = 0;
  for (const ChangeBlock& b : blocks_) {
    for (const CodeLine& a : b.added) added_zeroing += !Zeroing(a.tokens).empty();
    for (const CodeLine& r : b.removed) removed_zeroing += !Zeroing(r.tokens).empty();
  }
  for (ChangeBlock& b : blocks_) {
    for (CodeLine& r : b.removed) {
      if (r.claimed) continue;
      const std::string call = Zeroing(r.tokens);
      if (call.empty()) continue;
      const CodeLine* a = BestMatch(r, b, 0.4);
      const bool now_empty = a != nullptr && !a->claimed && Empty(a->tokens);
      if (!now_empty && (removed_zeroing <= added_zeroing || a != nullptr)) continue;
      std::vector<CodeLine*> lines = {&r};
      if (now_empty) lines.push_back(const_cast<CodeLine*>(a));
      Report(kZeroing, lines,
             (now_empty ? "`" + Shorten(r.code, 80) + "` -> `" + Shorten(a->code, 80) +
                              "`: the buffer is no longer zero-initialised"
                        : "`" + Shorten(r.code, 80) + "` removed: the buffer is no longer "
                                                      "zeroed here") +
                 InFunction(lines) +
                 ". Does a kernel write every element before anything reads it (every tile, "
                 "the masked tail, split-k partials or atomics added into it, locks and "
                 "counters that must start at 0), and what does a reused buffer (a workspace, "
                 "a CUDA graph replay) hold there?");
    }
  }
}

}  // namespace av
