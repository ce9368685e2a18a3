// triton.autotune_in_place: `@triton.autotune` added to (or kept on, with its configs or key
// changed) a kernel that writes a tensor it also reads. Autotuning runs every config on the
// same arguments, so a kernel that accumulates into its output (loads a pointer and stores
// back to it) sees the state the previous config left, unless the decorator names those
// arguments in `reset_to_zero` or `restore_value`.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

// The base pointer of a `tl.load(` / `tl.store(` call's first argument: `O` in
// `tl.store(O + offs, ...)`, `p_o` in `tl.store(p_o, ...)`.
std::string AccessBase(const std::vector<Token>& t, size_t open) {
  return open + 1 < t.size() && t[open + 1].kind == TokenKind::kIdentifier ? t[open + 1].text
                                                                            : "";
}

}  // namespace

void FileReview::TritonAutotuneInPlace() {
  if (!python() || deleted()) return;
  const SourceOutline* o = Outline(true);
  const std::vector<FileLine>& file = WholeFile(true);
  if (o == nullptr) return;
  for (const ChangeBlock& b : blocks_) {
    for (const CodeLine& a : b.added) {
      if (a.code.find("autotune") == std::string::npos) continue;
      // The decorator's call, read over the lines up to the `def` it decorates.
      std::string decorator;
      int64_t def_line = 0;
      std::string kernel;
      const int64_t last = std::min<int64_t>(a.side_line() + 60, file.size() - 1);
      for (int64_t n = a.side_line(); n <= last; ++n) {
        const std::string& c = file[n].code;
        const std::vector<Token>& t = file[n].tokens;
        if (t.size() >= 2 && t[0].text == "def" && t[1].kind == TokenKind::kIdentifier) {
          def_line = n;
          kernel = t[1].text;
          break;
        }
        decorator += c + " ";
      }
      if (def_line == 0 || decorator.find("autotune") == std::string::npos) continue;
      const OutlineFunction* f = o->FunctionAt(def_line);
      if (f == nullptr) continue;
      std::set<std::string> loaded, stored;
      for (int64_t n = def_line; n <= f->close_line && n < static_cast<int64_t>(file.size()); ++n) {
        const std::vector<Token>& t = file[n].tokens;
        for (size_t i = 0; i + 3 < t.size(); ++i) {
          if (t[i].text != "tl" || t[i + 1].text != ".") continue;
          if (t[i + 2].text == "load" && t[i + 3].text == "(") loaded.insert(AccessBase(t, i + 3));
          if (t[i + 2].text == "store" && t[i + 3].text == "(") stored.insert(AccessBase(t, i + 3));
        }
      }
      // Names the decorator gives (`restore_value=['O']`): its strings, unquoted.
      std::set<std::string> named;
      for (const Token& x : Tokenize(decorator)) {
        if (x.kind == TokenKind::kString && x.text.size() >= 2) {
          named.insert(x.text.substr(1, x.text.size() - 2));
        }
      }
      std::string both;
      for (const std::string& s : stored) {
        if (!s.empty() && loaded.count(s) && !named.count(s)) {
          both += std::string(both.empty() ? "" : ", ") + "`" + s + "`";
        }
      }
      const bool resets = decorator.find("reset_to_zero") != std::string::npos ||
                          decorator.find("restore_value") != std::string::npos;
      if (both.empty() || resets) continue;
      std::vector<CodeLine*> lines = {const_cast<CodeLine*>(&a)};
      Report(kTritonAutotune, lines,
             "`" + kernel + "` is autotuned and both reads and writes " + both +
                 ": the autotuner runs every config on the same arguments, so each run starts "
                 "from what the previous config stored there. Should the decorator name them in "
                 "`reset_to_zero` or `restore_value` (or the kernel not accumulate in place), and "
                 "does its `key` cover every argument that changes the best config?");
      return;  // one question per file
    }
  }
}

}  // namespace av
