// Synchronisation rules: barriers, atomics and fallback flags counted across the diff, PDL
// memory ordering, named barriers. See doc/review.md for what each looks for.
#include <algorithm>
#include <set>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT

std::vector<std::string> BarrierKeys(const CodeLine& l) {
  std::vector<std::string> keys;
  for (const BarrierUse& u : BarrierUses(l)) keys.push_back(u.key);
  return keys;
}

std::vector<std::string> FallbackKeys(const CodeLine& l) {
  std::vector<std::string> k;
  const bool pre = !l.code.empty() && l.code[0] == '#';
  for (const Token& t : l.tokens) {
    if (IsFallbackIdentifier(t, pre)) k.push_back(t.text);
  }
  for (std::string& e : EnvReads(l)) k.push_back(std::move(e));
  return k;
}

}  // namespace

DiffCounts CountDiff(const std::vector<ReviewedFile>& files) {
  DiffCounts d;
  d.barriers = CountKeys(files, &BarrierKeys);
  d.atomics = CountKeys(files, &AtomicKeys);
  d.fallbacks = CountKeys(files, &FallbackKeys);
  return d;
}

namespace {

// What a barrier key synchronises: a CTA's threads, asynchronous copies, or memory
// (fences). A rewrite that drops cp.async waits for TMA and mbarrier waits kept async
// waits; one that drops a __threadfence and adds none did not keep its fences.
std::string BarrierGroup(const std::string& key) {
  if (key.find("threadfence") != std::string::npos || key == "membar" || key == "fence.proxy" ||
      key.find("tcgen05") != std::string::npos || key.find("tmem") != std::string::npos) {
    return "fence";
  }
  for (std::string_view async :
       {"cp_async", "cp.async", "pipeline", "consumer_wait", "producer_acquire", "mbarrier",
        "tma_store_wait", "warpgroup_wait", "wgmma.wait", "wait_barrier", "fence_view_async",
        "fence_barrier"}) {
    if (key.find(async) != std::string::npos) return "async";
  }
  return "cta";
}

// PDL (programmatic dependent launch) primitives: a grid waits on, or releases, the grid
// before it.
bool IsPdlToken(const Token& t) {
  static const std::set<std::string_view> kIds = {
      "cudaGridDependencySynchronize",
      "cudaTriggerProgrammaticLaunchCompletion",
      "wait_on_dependent_grids",
      "launch_dependent_grids",
      "griddepcontrol_wait",
      "griddepcontrol_launch_dependents",
      "cudaLaunchAttributeProgrammaticStreamSerialization",
      "programmaticStreamSerializationAllowed",
      "cudaLaunchAttributeProgrammaticEvent"};
  if (t.kind == TokenKind::kIdentifier) return kIds.count(t.text) > 0;
  return t.kind == TokenKind::kString && t.text.find("griddepcontrol") != std::string::npos;
}

// The wait itself (not the trigger or the launch attribute).
bool HasWait(const std::vector<Token>& tokens) {
  for (const Token& t : tokens) {
    if (t.text == "cudaGridDependencySynchronize" || t.text == "wait_on_dependent_grids" ||
        t.text == "griddepcontrol_wait" ||
        (t.kind == TokenKind::kString && t.text.find("griddepcontrol.wait") != std::string::npos)) {
      return true;
    }
  }
  return false;
}

// Loads through the non-coherent / read-only path, which ptxas may schedule before a
// grid-dependency wait (LDG.CONSTANT above ACQBULK).
int NcLoads(const std::vector<Token>& tokens) {
  int n = 0;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kIdentifier &&
        (t.text == "__ldg" || t.text == "__ldca" || t.text == "__ldcg" || t.text == "__ldcs" ||
         t.text == "__ldlu" || t.text == "__ldcv" || t.text == "ld_global_nc")) {
      ++n;
    }
    if (t.kind == TokenKind::kString && t.text.find("ld.global.nc") != std::string::npos) ++n;
  }
  return n;
}

bool IsNamedBarrierCall(const CodeLine& l, std::string* key) {
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == TokenKind::kIdentifier && i >= 2 && t[i - 1].text == "::" &&
        (t[i - 2].text == "NamedBarrier" || t[i - 2].text == "NamedBarrierManager") &&
        (t[i].text == "arrive_and_wait" || t[i].text == "sync" || t[i].text == "arrive")) {
      *key = "NamedBarrier::" + t[i].text;
      return true;
    }
    if (t[i].kind == TokenKind::kIdentifier &&
        (t[i].text == "named_barrier_sync" || t[i].text == "named_barrier_arrive")) {
      *key = t[i].text;
      return true;
    }
    if (t[i].kind == TokenKind::kString) {
      for (std::string_view ptx : {"bar.sync", "barrier.sync", "bar.arrive", "barrier.arrive"}) {
        if (t[i].text.find(ptx) != std::string::npos) {
          *key = std::string(ptx);
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace

void FileReview::Barriers() {
  const KeyCounts& c = counts_.barriers;
  const std::map<std::string, int>& deficit = c.deficit;
  // A deleted file's barriers are the old code's; new files that synchronise the same way
  // (any key of the group) replaced them.
  std::map<std::string, int> new_by_group, deleted_by_group;
  for (const auto& [k, n] : c.added_in_new_files) new_by_group[BarrierGroup(k)] += n;
  for (const auto& [k, n] : c.removed_in_deleted_files) deleted_by_group[BarrierGroup(k)] += n;
  auto replaced = [&](const std::string& key) {
    return deleted() && new_by_group[BarrierGroup(key)] >= deleted_by_group[BarrierGroup(key)];
  };
  const auto& removed = c.removed[index_];
  const auto& added = c.added[index_];
  auto count = [](const std::map<std::string, int>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  };
  for (ChangeBlock& b : blocks_) {
    std::vector<CodeLine*> lines;
    std::string what;
    if (!added_file()) {
      for (CodeLine& l : b.removed) {
        for (const BarrierUse& u : BarrierUses(l)) {
          auto d = deficit.find(u.key);
          if (count(removed, u.key) > count(added, u.key) && d != deficit.end() && d->second > 0 &&
              !replaced(u.key)) {
            lines.push_back(&l);
            if (what.empty()) {
              what = "`" + u.key + "` removed (" + std::to_string(count(removed, u.key)) +
                     " removed, " + std::to_string(count(added, u.key)) + " added in this file";
              auto moved = c.added_in_new_files.find(u.key);
              if (moved != c.added_in_new_files.end() && moved->second > 0) {
                what += ", " + std::to_string(moved->second) + " in new files";
              }
              what += ")";
            }
            break;
          }
        }
      }
    }
    // A wait that now lets more copies stay in flight: cp_async_wait<0> -> <1>.
    std::multimap<std::string, CodeLine*> added_waits;
    for (CodeLine& a : b.added) {
      for (const BarrierUse& au : BarrierUses(a)) {
        if (au.arg >= 0) added_waits.emplace(au.key, &a);
      }
    }
    for (CodeLine& r : b.removed) {
      if (r.claimed || std::find(lines.begin(), lines.end(), &r) != lines.end()) continue;
      for (const BarrierUse& ru : BarrierUses(r)) {
        if (ru.arg < 0) continue;
        auto [lo, hi] = added_waits.equal_range(ru.key);
        for (auto it = lo; it != hi; ++it) {
          for (const BarrierUse& au : BarrierUses(*it->second)) {
            if (au.key != ru.key || au.arg <= ru.arg) continue;
            lines.push_back(&r);
            lines.push_back(it->second);
            if (what.empty()) {
              what = "`" + ru.key + "` now waits for " + std::to_string(au.arg) +
                     " groups in flight instead of " + std::to_string(ru.arg);
            }
          }
        }
      }
    }
    if (!lines.empty()) {
      Report(kBarrier, lines,
             what +
                 ": is every shared-memory write still ordered before its read? "
                 "Races show up as run-to-run differences.");
    }
  }
}

void FileReview::Atomics() {
  const KeyCounts& c = counts_.atomics;
  const auto& removed = c.removed[index_];
  const auto& added = c.added[index_];
  for (ChangeBlock& b : blocks_) {
    std::vector<CodeLine*> lines;
    std::string what;
    for (CodeLine& l : b.added) {
      for (const std::string& k : AtomicKeys(l)) {
        auto a = added.find(k);
        auto r = removed.find(k);
        int left = (a == added.end() ? 0 : a->second) - (r == removed.end() ? 0 : r->second);
        // Atomics that moved out of a deleted file into this one are not new.
        auto moved = c.removed_in_deleted_files.find(k);
        if (moved != c.removed_in_deleted_files.end()) left -= moved->second;
        if (left > 0) {
          lines.push_back(&l);
          if (what.empty()) what = "`" + k + "` introduced";
          break;
        }
      }
    }
    if (!lines.empty()) {
      Report(kAtomic, lines,
             what +
                 ": floating-point results now depend on thread order; check that reruns "
                 "and num_splits variants agree within tolerance.");
    }
  }
}

bool FileReview::HeadStillTests(const std::string& key) const {
  // With the whole head file: a switch still tested there (fewer times, or moved into
  // another branch) is not gone.
  const SourceOutline* o = Outline(true);
  if (o == nullptr) return false;
  CommentStripper strip(code_.language);
  for (int64_t n = 1; n <= static_cast<int64_t>(o->lines.size()); ++n) {
    const std::string code = strip.Strip(o->Line(n));
    if (code.find(key) == std::string::npos) continue;
    for (const Token& t : Tokenize(code)) {
      if (t.text == key) return true;
    }
  }
  return false;
}

void FileReview::Fallbacks() {
  if (added_file()) return;
  const KeyCounts& c = counts_.fallbacks;
  const std::map<std::string, int>& deficit = c.deficit;
  const auto& removed = c.removed[index_];
  const auto& added = c.added[index_];
  for (ChangeBlock& b : blocks_) {
    std::vector<CodeLine*> lines;
    std::string what;
    for (size_t i = 0; i < b.removed.size(); ++i) {
      CodeLine& l = b.removed[i];
      if (l.claimed || !IsBranchOrFlag(l)) continue;
      bool hit = false;
      for (const std::string& k : FallbackKeys(l)) {
        auto r = removed.find(k);
        auto a = added.find(k);
        auto d = deficit.find(k);
        if ((r == removed.end() ? 0 : r->second) > (a == added.end() ? 0 : a->second) &&
            d != deficit.end() && d->second > 0 && !HeadStillTests(k)) {
          hit = true;
          if (what.empty()) what = "`" + k + "` is gone";
          break;
        }
      }
      if (!hit) continue;
      lines.push_back(&l);
      // The removed branch's body goes with it: the following deleted lines indented
      // deeper, and the closing brace.
      const int indent = IndentOf(l.line->text);
      for (size_t j = i + 1; j < b.removed.size(); ++j) {
        CodeLine& body = b.removed[j];
        if (body.line->old_line != b.removed[j - 1].line->old_line + 1) break;
        bool deeper = IndentOf(body.line->text) > indent;
        bool closing = IndentOf(body.line->text) == indent && body.code.rfind("}", 0) == 0;
        if (!deeper && !closing) break;
        lines.push_back(&body);
        i = j;
        if (closing) break;
      }
    }
    if (!lines.empty()) {
      Report(kFallback, lines,
             what + " (" + Example(lines, false) +
                 "): can the old path still be selected, by shape, dtype or flag?");
    }
  }
}

void FileReview::MemoryOrdering(ChangeBlock& b) {
  if (!cpp()) return;
  // PDL waits and triggers that changed.
  std::vector<CodeLine*> pdl;
  std::multiset<std::string> removed_keys, added_keys;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed) continue;
      for (const Token& t : l.tokens) {
        if (!IsPdlToken(t)) continue;
        (l.added ? added_keys : removed_keys).insert(t.text);
        if (pdl.empty() || pdl.back() != &l) pdl.push_back(&l);
      }
    }
  }
  if (!pdl.empty() && removed_keys != added_keys) {
    Report(kOrdering, pdl, [&](const std::vector<CodeLine*>& run) {
      // A wait added in front of loads through the read-only path: those may still be
      // scheduled above it.
      std::string loads;
      for (const CodeLine* l : run) {
        if (!l->added || !HasWait(l->tokens)) continue;
        const int64_t wait = l->side_line();
        std::vector<int64_t> at = FunctionLinesWhere(
            *l, [](const std::string&, const std::vector<Token>& t) { return NcLoads(t) > 0; }, 64);
        std::string list;
        int shown = 0;
        for (int64_t n : at) {
          if (n <= wait || shown == 6) continue;
          list += (list.empty() ? "" : ", ") + std::to_string(n);
          ++shown;
        }
        if (!list.empty()) {
          loads = " (the function loads through __ldg after the wait at line" +
                  std::string(shown == 1 ? " " : "s ") + list +
                  ", and ptxas may move those loads above it: LDG.CONSTANT before ACQBULK)";
        }
        break;
      }
      return OldToNew(run) + InFunction(run) + loads +
             ": the dependent grid may start before this one finishes. Every read of the "
             "previous grid's output must come after the wait (cudaGridDependencySynchronize / "
             "griddepcontrol.wait), and the trigger (cudaTriggerProgrammaticLaunchCompletion) "
             "only after the last write the next grid reads. Rerun with PDL on: races show up as "
             "run-to-run differences.";
    });
  }
  // Read-only-path loads added or removed in code that waits on the previous grid.
  int removed_nc = 0, added_nc = 0;
  std::vector<CodeLine*> loads;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed) continue;
      const int n = NcLoads(l.tokens);
      (l.added ? added_nc : removed_nc) += n;
      if (n > 0) loads.push_back(&l);
    }
  }
  if (loads.empty() || removed_nc == added_nc) return;
  // The wait: in the function around the lines (whole file), else anywhere the diff shows.
  std::string wait_at;
  for (const CodeLine* l : loads) {
    std::vector<int64_t> at = FunctionLinesWhere(
        *l, [](const std::string&, const std::vector<Token>& t) { return HasWait(t); }, 1);
    if (!at.empty()) {
      wait_at = " (it waits on the previous grid at line " + std::to_string(at[0]) +
                (l->added && l->side_line() < at[0] ? "; this load comes before the wait" : "") +
                ")";
      break;
    }
  }
  if (wait_at.empty()) {
    bool seen = false;
    for (const Hunk& h : code_.file->hunks) {
      for (const DiffLine& dl : h.lines) {
        seen = seen || dl.text.find("cudaGridDependencySynchronize") != std::string::npos ||
               dl.text.find("griddepcontrol") != std::string::npos ||
               dl.text.find("wait_on_dependent_grids") != std::string::npos;
      }
    }
    if (!seen) return;
    wait_at = " (the diff shows a grid-dependency wait in this file)";
  }
  // The paired lines: each load line and the line it became.
  std::vector<CodeLine*> lines = loads;
  for (CodeLine* l : loads) {
    const CodeLine* other = BestMatch(*l, b, 0.4);
    if (other != nullptr && !other->claimed &&
        std::find(lines.begin(), lines.end(), other) == lines.end()) {
      lines.push_back(const_cast<CodeLine*>(other));
    }
  }
  const std::string change = added_nc > removed_nc ? "a load through the read-only path added"
                                                   : "a load through the read-only path removed";
  Report(kOrdering, lines, [&](const std::vector<CodeLine*>& run) {
    return change + ": " + OldToNew(run) + InFunction(run) + wait_at +
           ". ptxas may schedule an __ldg (LDG.CONSTANT) above cudaGridDependencySynchronize "
           "(ACQBULK in SASS) and read the previous grid's output early: is every load of data "
           "the previous grid writes after the wait and not through __ldg? Check the SASS order "
           "(cuobjdump -sass) and rerun with PDL on.";
  });
}

void FileReview::NamedBarriers(ChangeBlock& b) {
  if (!cpp()) return;
  // Entries of a barrier-id enum (enum NamedBarriers { sP0Ready = 2, ... }).
  std::vector<CodeLine*> ids;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (!l.claimed && l.scope_keyword == "enum" &&
          HasWord(l.scope_name, {"barrier", "barriers"})) {
        ids.push_back(&l);
      }
    }
  }
  if (!ids.empty()) {
    Report(kNamedBarrier, ids, [&](const std::vector<CodeLine*>& run) {
      // The entries that are new, not the one that only gained a trailing comma.
      std::set<std::string> old_entries;
      for (const CodeLine* l : run) {
        if (!l->added) old_entries.insert(l->norm.substr(0, l->norm.find(" ,")));
      }
      std::string added;
      for (const CodeLine* l : run) {
        if (!l->added || old_entries.count(l->norm.substr(0, l->norm.find(" ,")))) continue;
        if (l->tokens.size() >= 2 && l->tokens[1].text == "=") {
          added += (added.empty() ? "`" : ", `") + Shorten(l->source, 60) + "`";
        }
      }
      const std::string what = added.empty() ? OldToNew(run) : added + " added";
      return "barrier ids of enum " + run[0]->scope_name + ": " + what +
             ". Each id must be unique among the barriers the kernel uses at once and below 16 "
             "(the hardware's named barriers per CTA, with any the library reserves); ptxas's "
             "`used N barriers` (attnverify build) shows the count.";
    });
  }
  // Named-barrier calls added or changed.
  std::vector<CodeLine*> calls;
  std::multiset<std::string> removed_keys;
  for (CodeLine& l : b.removed) {
    std::string key;
    if (!l.claimed && IsNamedBarrierCall(l, &key)) removed_keys.insert(key);
  }
  for (CodeLine& a : b.added) {
    std::string key;
    if (a.claimed || !IsNamedBarrierCall(a, &key)) continue;
    calls.push_back(&a);
    auto it = removed_keys.find(key);
    if (it != removed_keys.end()) removed_keys.erase(it);
    const CodeLine* old = BestMatch(a, b, 0.5);
    if (old != nullptr && !old->claimed) calls.push_back(const_cast<CodeLine*>(old));
  }
  if (calls.empty()) return;
  Report(kNamedBarrier, calls, [&](const std::vector<CodeLine*>& run) {
    return Example(run, true) + " added or changed" + InFunction(run) +
           ": exactly the thread count it names must arrive at that barrier id on every path (a "
           "warp that skips it hangs the others), and no other barrier in flight may share the "
           "id. Named barriers count against the 16 per CTA: compare ptxas's `used N barriers` "
           "between base and head (attnverify build).";
  });
}

void FileReview::BarriersAdded(ChangeBlock& b) {
  // In a new file every barrier is new; only a barrier added to existing code is a question.
  if (!cpp() || added_file()) return;
  const KeyCounts& c = counts_.barriers;
  auto count = [](const std::map<std::string, int>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  };
  std::vector<CodeLine*> lines;
  std::string group;
  bool barrier_init = false;
  for (CodeLine& a : b.added) {
    if (a.claimed) continue;
    for (const BarrierUse& u : BarrierUses(a)) {
      if (count(c.added[index_], u.key) <= count(c.removed[index_], u.key)) continue;  // moved
      lines.push_back(&a);
      // A fence orders; it waits for nothing (fence_barrier_init, fence_view_async_shared).
      if (group.empty()) {
        group = u.key.find("fence") != std::string::npos && u.key != "cp_async_fence"
                    ? "fence"
                    : BarrierGroup(u.key);
      }
      barrier_init = barrier_init || u.key.find("barrier_init") != std::string::npos;
      break;
    }
  }
  if (lines.empty()) return;
  Report(kBarrierAdded, lines, [&](const std::vector<CodeLine*>& run) {
    const std::string what = Example(run, true) + " added" + InFunction(run);
    if (group == "fence" && barrier_init) {
      return what +
             ": it makes the barriers' initialisation visible to the asynchronous units and the "
             "cluster. Does a CTA or cluster sync follow it before any thread (or another CTA) "
             "arrives at or waits on those barriers, and does every thread that initialises "
             "reach it?";
    }
    if (group == "fence") {
      return what +
             ": what does it order now that was unordered before (tensor-memory or global "
             "accesses across a barrier, another CTA's view)? The race it fixes shows as "
             "run-to-run differences: rerun the sweep.";
    }
    if (group == "async") {
      return what +
             ": which copy or MMA does it wait for, with which phase or count? A wait on the "
             "wrong phase hangs or reads a stale stage; the race it fixes shows as run-to-run "
             "differences.";
    }
    return what +
           ": every thread of the CTA (or cluster) must reach it on every path: a warp that "
           "returned early or runs another role's branch hangs the rest. Which write does it "
           "order before which read (or free)?";
  });
}

void FileReview::SpinWaits(ChangeBlock& b) {
  if (!cpp()) return;
  // An added loop that spins on a load: `while (flag.load(...) < n);`, `do { asm volatile
  // ("ld...") } while (v > 0);`. It is a barrier between threads, blocks or devices.
  for (size_t i = 0; i < b.added.size(); ++i) {
    CodeLine& a = b.added[i];
    if (a.claimed) continue;
    const auto& t = a.tokens;
    const bool do_loop = !t.empty() && t[0].text == "do";
    const bool bare_while = t.size() > 2 && t[0].text == "while" && t.back().text == ";";
    if (!do_loop && !bare_while) continue;
    std::vector<CodeLine*> lines = {&a};
    bool loads = false;
    for (size_t j = i; j < b.added.size() && j <= i + 8; ++j) {
      if (j > i) lines.push_back(&b.added[j]);
      for (const Token& x : b.added[j].tokens) {
        loads = loads || x.text == "asm" || x.text == "load" || x.text == "volatile" ||
                x.text.find("atomic") != std::string::npos || x.text.find("ld_") == 0;
      }
      if (j > i && !b.added[j].tokens.empty() && b.added[j].tokens[0].text == "}") break;
      if (bare_while) break;
    }
    if (!loads) continue;
    Report(kBarrierAdded, lines,
           "spin-wait added: " + Example({&a}, true) + InFunction(lines) +
               ": the loop waits for other threads, blocks or devices to write. Does every one "
               "of them reach that write on every path (else this hangs), and does the read "
               "order what follows it (a relaxed load orders nothing; acquire or a fence does)?");
  }
}

}  // namespace av
