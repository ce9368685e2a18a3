// triton.access_mask_changed: the guard of a Triton memory access, which is a keyword
// argument rather than a branch: `mask=`, `other=`, `boundary_check=` and `padding_option=`
// of `tl.load`/`tl.store`/`tl.atomic_*` (on the call's line or on a continuation line of a
// call split over lines) added, removed or changed. A removed mask is a removed bounds
// check; a changed one moves which lanes read or write; `other` is what masked lanes
// contribute to a max or a sum; a new store mask leaves the lanes it turns off unwritten.
// Python files of a Triton module only (the file names `tl.` accesses).
#include <map>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

constexpr const char* kGuardKeywords[] = {"mask", "other", "boundary_check", "padding_option"};

// The guard keywords of a line and their values as code: `mask=cols < n, other=0.0` ->
// {mask: "cols < n", other: "0.0"}. A keyword is `NAME =` at bracket depth 0 of the call
// it sits in, or at the start of a continuation line.
std::map<std::string, std::string> GuardKeywords(const std::vector<Token>& t) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || t[i + 1].text != "=") continue;
    bool wanted = false;
    for (const char* k : kGuardKeywords) wanted = wanted || t[i].text == k;
    // `NAME =` after `(` or `,` (an argument), or first on the line (a continuation).
    if (!wanted || (i > 0 && t[i - 1].text != "(" && t[i - 1].text != ",")) continue;
    size_t j = i + 2;
    int depth = 0;
    for (; j < t.size(); ++j) {
      if (statement::IsOpen(t[j].text)) ++depth;
      if (statement::IsClose(t[j].text) && --depth < 0) break;
      if (depth == 0 && t[j].text == ",") break;
    }
    out[t[i].text] = statement::Join(t, i + 2, j);
  }
  return out;
}

// The access the line makes or continues: "tl.load", "tl.store", "tl.atomic_add", or "".
std::string AccessOf(const std::vector<Token>& t) {
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text == "tl" && t[i + 1].text == "." && t[i + 3].text == "(" &&
        (t[i + 2].text == "load" || t[i + 2].text == "store" ||
         t[i + 2].text.rfind("atomic_", 0) == 0)) {
      return "tl." + t[i + 2].text;
    }
  }
  return "";
}

}  // namespace

void FileReview::TritonAccesses(ChangeBlock& b) {
  if (!python()) return;
  // A Triton module: some changed line of the file accesses memory through `tl.`.
  if (!triton_checked_) {
    triton_checked_ = true;
    for (const ChangeBlock& x : blocks_) {
      for (const auto* side : {&x.removed, &x.added}) {
        for (const CodeLine& l : *side) triton_ = triton_ || !AccessOf(l.tokens).empty();
      }
    }
    const SourceOutline* o = Outline(true);
    for (size_t n = 1; o != nullptr && !triton_ && n <= o->lines.size(); ++n) {
      const std::string_view line = o->Line(static_cast<int64_t>(n));
      triton_ = line.find("tl.load(") != std::string_view::npos ||
                line.find("tl.store(") != std::string_view::npos;
    }
  }
  if (!triton_) return;
  auto describe = [](const std::string& access) {
    return access.empty() ? std::string("the access") : "`" + access + "`";
  };
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    const std::map<std::string, std::string> now = GuardKeywords(a.tokens);
    const CodeLine* rp = BestMatch(a, b, 0.5);
    if (rp != nullptr && rp->claimed) continue;
    const std::map<std::string, std::string> was =
        rp != nullptr ? GuardKeywords(rp->tokens) : std::map<std::string, std::string>{};
    if (now.empty() && was.empty()) continue;
    std::string access = AccessOf(a.tokens);
    if (access.empty() && rp != nullptr) access = AccessOf(rp->tokens);
    // A keyword on a line with no access is a continuation only when the line starts with it.
    const bool continuation =
        access.empty() && !a.tokens.empty() && (now.count(a.tokens[0].text) > 0 ||
                                                (rp != nullptr && !rp->tokens.empty() &&
                                                 was.count(rp->tokens[0].text) > 0));
    if (access.empty() && !continuation) continue;
    const bool store = access == "tl.store" || access.rfind("tl.atomic_", 0) == 0;
    const std::string reads = store ? "writes" : "reads";
    const std::string same_length =
        " Does the bound count the same length as the offsets (per row or sequence, not the "
        "whole flattened tensor)?";
    std::string head, question;
    for (const char* k : kGuardKeywords) {
      // A new access (no old line) is asked about elsewhere, with its guards.
      if (rp == nullptr || !head.empty()) break;
      auto o = was.find(k), n = now.find(k);
      const bool had = o != was.end(), has = n != now.end();
      if ((!had && !has) || (had && has && o->second == n->second)) continue;
      const std::string key = k;
      if (key == "mask" || key == "boundary_check") {
        const std::string name = key == "mask" ? "mask" : "boundary check";
        if (had && !has) {
          head = describe(access) + " no longer has its " + name + " (`" +
                 Shorten(o->second, 60) + "`)";
          question = "every lane now " + reads +
                     ". Is every offset inside the tensor for the last block, at lengths that "
                     "are not a multiple of the block?";
        } else if (!had) {
          head = describe(access) + " now has " + name + " `" + Shorten(n->second, 60) + "`";
          question = (store ? std::string("the lanes it turns off are no longer written. Is "
                                          "that output read later (an empty-allocated buffer "
                                          "keeps garbage there)?")
                            : std::string("the lanes it turns off read `other` (undefined "
                                          "without it). What do they add to what follows (a "
                                          "max, a sum, a dot)?")) +
                     same_length;
        } else {
          head = describe(access) + " " + name + " `" + Shorten(o->second, 60) + "` -> `" +
                 Shorten(n->second, 60) + "`";
          question = std::string("which lanes now ") + (store ? "write" : "read") +
                     " that did not, or no longer do?" + same_length;
        }
      } else {
        head = "masked lanes of " + describe(access) + " now read " +
               (has ? "`" + Shorten(n->second, 40) + "`" : std::string("nothing")) +
               " instead of " +
               (had ? "`" + Shorten(o->second, 40) + "`" : std::string("nothing"));
        question = "is that the identity of what follows (0 for a sum, -inf for a max)?";
      }
    }
    if (head.empty()) continue;
    std::vector<CodeLine*> lines = {&a};
    if (rp != nullptr) lines.push_back(const_cast<CodeLine*>(rp));
    Report(kTritonMask, lines, head + InFunction(lines) + ": " + question);
  }
  // Guard keywords on removed lines with no added line left: the continuation line went.
  for (CodeLine& r : b.removed) {
    if (r.claimed || r.tokens.empty()) continue;
    const std::map<std::string, std::string> was = GuardKeywords(r.tokens);
    auto m = was.find("mask");
    if (m == was.end() || r.tokens[0].text != "mask" || BestMatch(r, b, 0.5) != nullptr) continue;
    std::vector<CodeLine*> lines = {&r};
    Report(kTritonMask, lines,
           "a load or store no longer has its mask (`" + Shorten(m->second, 60) + "`)" +
               InFunction(lines) +
               ": every lane now reads or writes. Is every offset inside the tensor for the "
               "last block, at lengths that are not a multiple of the block?");
  }
}

}  // namespace av
