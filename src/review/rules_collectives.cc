// sync.collective_divergent: a warp or block collective (`__shfl*_sync`, `__ballot_sync`,
// `__syncwarp`, `__syncthreads`, `elect_one_sync`, a TMA store wait, ...) where lanes of one
// warp can take different paths: added under a condition or loop that reads the lane (or a
// name derived from it in the function), or a lane-dependent branch added around one that
// was there. A collective must be reached by every lane its mask names, `__syncthreads` by
// every thread of the block, and a wait on bulk-async groups by the thread that committed
// them. C++/CUDA with the whole head file.
#include <set>
#include <string>
#include <vector>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"
#include "review/statement_text.h"

namespace av {

using namespace rule_id;  // NOLINT

namespace {

bool CollectiveName(const std::string& x) {
  if (x == "__syncwarp" || x == "__syncthreads" || x == "elect_one_sync" ||
      x == "__activemask") {
    return true;
  }
  // __shfl_sync, __shfl_xor_sync, __ballot_sync, __any_sync, __all_sync, __match_any_sync,
  // __reduce_add_sync, ...; TMA and cp.async store/commit/wait groups.
  const bool warp_sync = x.rfind("__", 0) == 0 && x.size() > 7 && x.substr(x.size() - 5) == "_sync";
  return warp_sync || x == "tma_store_wait" || x == "tma_store_arrive" ||
         x == "cp_async_bulk_wait_group" || x == "cp_async_bulk_commit_group" ||
         x == "tma_store_fence";
}

// Values that differ between the lanes of one warp.
bool LaneName(const std::string& x) {
  static const std::set<std::string> kLane = {"lane_id", "lane_idx", "laneid", "laneId",
                                              "lane",    "threadIdx", "thread_idx", "tidx",
                                              "tid",     "thread_id", "elect_one_sync",
                                              "get_lane_id", "lane_index"};
  return kLane.count(x) > 0;
}

bool ControlHeader(const std::vector<Token>& t) {
  size_t k = 0;
  if (k < t.size() && t[k].text == "}") ++k;
  if (k < t.size() && t[k].text == "else") ++k;
  return k < t.size() && (t[k].text == "if" || t[k].text == "for" || t[k].text == "while");
}

std::string FirstCollective(const std::vector<Token>& t) {
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind == TokenKind::kIdentifier && CollectiveName(t[i].text) && t[i + 1].text == "(") {
      return t[i].text;
    }
  }
  return "";
}

}  // namespace

// A barrier added to one kernel of a file (a race fixed there): the file's other kernels
// that let some threads return before a `__syncthreads()` of theirs (the return's test reads
// the thread index, or a name defined from it) have the hazard the added barrier guards
// against, or a worse one (threads missing from the barrier). Names count as the thread
// index when defined from it earlier in the kernel (`t = threadIdx.x`, then `n = base + t`). Asked on the finding of the
// added barrier.
void FileReview::ReturnsBeforeBarriers(std::vector<Finding>* merged) {
  if (!cpp() || added_file()) return;
  const SourceOutline* o = Outline(true);
  if (o == nullptr) return;
  const CodeLine* added_barrier = nullptr;
  for (const ChangeBlock& b : blocks_) {
    for (const CodeLine& a : b.added) {
      if (added_barrier == nullptr && a.code.find("__syncthreads") != std::string::npos) {
        added_barrier = &a;
      }
    }
  }
  if (added_barrier == nullptr) return;
  const OutlineFunction* own = o->FunctionAt(added_barrier->side_line());
  const std::vector<FileLine>& file = WholeFile(true);
  auto code_at = [&](int64_t n) -> const std::string& {
    static const std::string kNone;
    return n >= 1 && n < static_cast<int64_t>(file.size()) ? file[n].code : kNone;
  };
  auto tokens_at = [&](int64_t n) -> const std::vector<Token>& {
    static const std::vector<Token> kNone;
    return n >= 1 && n < static_cast<int64_t>(file.size()) ? file[n].tokens : kNone;
  };
  std::string sites;
  int found = 0;
  for (const OutlineFunction& f : o->functions) {
    if (f.kind != FunctionKind::kKernel || &f == own || f.open_line == 0 || found >= 3) continue;
    std::set<std::string> thread_names;  // defined from the thread index, in order
    int64_t early = 0;
    std::string early_code;
    for (int64_t n = f.open_line; n <= f.close_line; ++n) {
      const std::string& c = code_at(n);
      const std::vector<Token>& t = tokens_at(n);
      for (size_t i = 0; i + 2 < t.size(); ++i) {
        if (t[i].kind != TokenKind::kIdentifier || t[i + 1].text != "=") continue;
        for (size_t j = i + 2; j < t.size() && t[j].text != ";"; ++j) {
          if (t[j].text == "threadIdx" || t[j].text == "tid" || t[j].text == "lane_id" ||
              thread_names.count(t[j].text)) {
            thread_names.insert(t[i].text);
            break;
          }
        }
      }
      const bool returns = c.find("return") != std::string::npos && !t.empty() && t[0].text == "if";
      if (early == 0 && returns) {
        for (const Token& x : t) {
          if (x.text == "threadIdx" || thread_names.count(x.text)) {
            early = n;
            early_code = c;
            break;
          }
        }
      }
      if (early != 0 && n > early && c.find("__syncthreads") != std::string::npos) {
        sites += std::string(found ? "; " : "") + f.name + "() returns early at line " +
                 std::to_string(early) + " (`" + Shorten(early_code, 60) + "`) before its " +
                 "__syncthreads at line " + std::to_string(n);
        ++found;
        break;
      }
    }
  }
  if (found == 0) return;
  const int64_t at = added_barrier->line->anchor;
  for (Finding& f : *merged) {
    if (f.side == "head" && f.line <= at && at <= f.end_line) {
      f.message += " Other kernels of this file let some threads leave before a barrier: " +
                   sites + ". Do they need the same fix (every thread reaching the barrier, the "
                   "shared data written before it is read)?";
      return;
    }
  }
}

bool FileReview::LaneDefined(const std::vector<LaneDef>& defs, const std::string& name,
                             int64_t line) {
  for (auto d = defs.rbegin(); d != defs.rend(); ++d) {
    if (d->line <= line && d->name == name) return d->lane;
  }
  return false;
}

void FileReview::DivergentCollectives(ChangeBlock& b) {
  if (!cpp() || added_file()) return;
  const SourceOutline* o = Outline(true);
  if (o == nullptr) return;
  const std::vector<FileLine>& file = WholeFile(true);
  auto code_at = [&](int64_t n) -> const std::string& {
    static const std::string kNone;
    return n >= 1 && n < static_cast<int64_t>(file.size()) ? file[n].code : kNone;
  };
  auto tokens_at = [&](int64_t n) -> const std::vector<Token>& {
    static const std::vector<Token> kNone;
    return n >= 1 && n < static_cast<int64_t>(file.size()) ? file[n].tokens : kNone;
  };
  std::set<int64_t> added_lines;
  for (CodeLine& a : b.added) {
    if (a.code.empty() || a.code[0] == '#') continue;
    const OutlineFunction* f = o->FunctionAt(a.side_line());
    if (f == nullptr || f->open_line == 0) continue;
    // Definitions of names in this function, in order, and whether each reads the lane
    // (`for (int i = lane_id;`, `const int idx = threadIdx.x * 4`): built once per function.
    auto [it, fresh] = lane_defs_.try_emplace(f->open_line);
    std::vector<LaneDef>& defs = it->second;
    for (int64_t n = f->open_line; fresh && n <= f->close_line; ++n) {
      const std::vector<Token>& t = tokens_at(n);
      for (size_t i = 0; i + 2 < t.size(); ++i) {
        if (t[i].kind != TokenKind::kIdentifier || t[i + 1].text != "=") continue;
        bool lane = false, per_warp = ToLower(t[i].text).find("warp") != std::string::npos;
        for (size_t j = i + 2; j < t.size() && t[j].text != ";" && t[j].text != ","; ++j) {
          // A vote or shuffle's result is the same for the whole warp, and so is whatever is
          // divided (`threadIdx.x / 32`, `thread_id / threads_per_rank`, `>> 5`): a
          // division by a multiple of the warp width cannot be told from another here.
          if (CollectiveName(t[j].text) && j + 1 < t.size() && t[j + 1].text == "(") {
            j = statement::Closing(t, j + 1);
            if (j >= t.size()) break;
            continue;
          }
          if (t[j].text == "/" || t[j].text == ">>") per_warp = true;
          // Read directly: a name derived from a derived name is not followed (a name reused
          // in another branch of the function would carry its meaning across).
          lane = lane || LaneName(t[j].text);
        }
        defs.push_back({n, t[i].text, lane && !per_warp});
      }
    }
    // A name reads the lane at line `n` when its last definition up to `n` does.
    // A vote or shuffle's arguments (`__any_sync(m, n > 0)`) are the same for every lane
    // once voted: they are skipped.
    auto lane_varying = [&](const std::vector<Token>& t, int64_t n, std::string* which) {
      for (size_t i = 0; i < t.size(); ++i) {
        const Token& x = t[i];
        if (x.kind != TokenKind::kIdentifier) continue;
        if (CollectiveName(x.text) && x.text != "elect_one_sync" && i + 1 < t.size() &&
            t[i + 1].text == "(") {
          i = statement::Closing(t, i + 1);
          continue;
        }
        if (LaneName(x.text) || LaneDefined(defs, x.text, n)) {
          // `threadIdx.x < 64`, `thread_id >= 32`: compared with a multiple of the warp's
          // width, the whole warp takes the same side.
          size_t k = i + 1;
          if (k + 1 < t.size() && t[k].text == "." && t[k + 1].kind == TokenKind::kIdentifier) k += 2;
          long long bound = 0;
          if (k + 1 < t.size() && IsComparisonAt(t, k) && t[k].text != "==" &&
              t[k].text != "!=" && ParseIntLiteral(t[k + 1].text, &bound) && bound > 0 &&
              bound % 32 == 0) {
            i = k + 1;
            continue;
          }
          *which = x.text;
          return true;
        }
      }
      return false;
    };
    const int64_t at = a.side_line();
    if (added_lines.empty()) added_lines = ChangedLines(true);
    std::string collective = a.claimed ? "" : FirstCollective(a.tokens);
    std::string header, which;
    int64_t header_line = 0;
    if (!collective.empty()) {
      // (1) A collective added: the blocks that enclose it, innermost first.
      int depth = 0;
      for (int64_t n = at - 1; n >= f->open_line && header.empty(); --n) {
        const std::string& c = code_at(n);
        const std::vector<Token>& t = tokens_at(n);
        bool opens = false;
        for (size_t i = t.size(); i-- > 0;) {
          if (t[i].text == "}") ++depth;
          if (t[i].text == "{") {
            if (depth == 0) {
              opens = true;
              break;
            }
            --depth;
          }
        }
        // A brace-less `if (...)` right above the line encloses it too.
        const bool braceless = n == at - 1 && !c.empty() && c.back() == ')' && ControlHeader(t);
        if (!opens && !braceless) continue;
        if (n == f->open_line) break;
        int64_t h = n;
        std::vector<Token> ht = t;
        if (!ControlHeader(ht) && c == "{") {
          h = n - 1;
          ht = tokens_at(h);
        }
        if (!ControlHeader(ht)) continue;  // a lambda, a plain scope: not a branch
        std::string w;
        if (lane_varying(ht, h, &w)) {
          if (added_lines.count(h)) break;  // a branch the diff adds: asked as (2)
          header = code_at(h);
          header_line = h;
          which = w;
        }
      }
      if (header.empty()) continue;
    } else {
      // (2) A lane-dependent branch added around collectives that were there.
      if (a.claimed || !ControlHeader(a.tokens) || !lane_varying(a.tokens, at, &which)) continue;
      int braces = 0;
      for (const Token& t : a.tokens) braces += t.text == "{" ? 1 : t.text == "}" ? -1 : 0;
      if (braces <= 0) continue;
      for (int64_t n = at + 1; n <= f->close_line && braces > 0 && collective.empty(); ++n) {
        const std::vector<Token>& t = tokens_at(n);
        for (const Token& x : t) braces += x.text == "{" ? 1 : x.text == "}" ? -1 : 0;
        collective = FirstCollective(t);
        if (!collective.empty()) header_line = n;
      }
      if (collective.empty()) continue;
      header = a.code;
    }
    std::vector<CodeLine*> lines = {&a};
    const bool block_wide = collective == "__syncthreads";
    const bool bulk = collective.find("tma_store") == 0 || collective.find("cp_async_bulk") == 0;
    const std::string where =
        a.code == header ? "`" + Shorten(header, 90) + "` added around `" + collective +
                               "` (line " + std::to_string(header_line) + ")"
                         : "`" + collective + "` added under `" + Shorten(header, 90) +
                               "` (line " + std::to_string(header_line) + ")";
    Report(kCollective, lines,
           where + InFunction(lines) + ", which depends on `" + which + "`: " +
               (block_wide ? "every thread of the block must reach a __syncthreads, or the "
                             "block hangs or synchronises with the wrong barrier. "
                           : bulk ? "bulk-async groups belong to the thread that committed "
                                    "them: the wait must run on that thread, and the others "
                                    "must not rely on it. "
                                  : "a warp collective must be reached by every lane its mask "
                                    "names, or it hangs or reads undefined values. ") +
               "Can lanes of one warp take different paths here (a lane-strided loop whose "
               "last round has fewer lanes, a test of the lane), and is the mask the set of "
               "lanes that arrive?");
  }
}

}  // namespace av
