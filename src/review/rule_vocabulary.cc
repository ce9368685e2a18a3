#include "review/rule_vocabulary.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "review/renames.h"

namespace av {

bool HasWord(std::string_view identifier, std::initializer_list<std::string_view> words) {
  for (const std::string& w : IdentifierWords(identifier)) {
    for (std::string_view want : words) {
      if (w == want) return true;
    }
  }
  return false;
}

// Mask vocabulary. Names of lengths (seqlen, s_q, s_k) count only on a line that
// compares or clamps: `batch_idx = i / params.s_q` is indexing, not a mask.
bool IsMaskIdentifier(std::string_view id, bool comparing) {
  if (id == "s_q" || id == "s_k" || id == "sq" || id == "sk") return comparing;
  std::vector<std::string> w = IdentifierWords(id);
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string& x = w[i];
    // GroupedMasked / MGroupedMasked: a grouped-GEMM layout, not an attention mask.
    if (x == "grouped") return false;
    // A causal convolution (`causal_conv1d_fwd`) pads one side of a filter: a name, no mask.
    if (x == "causal" && i + 1 < w.size() && w[i + 1].rfind("conv", 0) == 0) {
      ++i;
      continue;
    }
    if (x == "causal" || x == "mask" || x == "masked" || x == "masking" || x == "window" ||
        x == "sliding") {
      return true;
    }
    if (x == "cu" && i + 1 < w.size() && w[i + 1] == "seqlens") return true;
    if (x == "block" && i + 1 < w.size() && w[i + 1] == "table") return true;
    // CUTLASS's varlen names: cumulative_length (cu_seqlens), max_length, problem_shape.
    if (x == "cumulative" && i + 1 < w.size() && w[i + 1] == "length") return true;
    if (x == "max" && i + 1 < w.size() && w[i + 1] == "length" && comparing) return true;
    if (x == "problem" && i + 1 < w.size() && w[i + 1] == "shape" && comparing) return true;
    if ((x == "seqlen" || x == "seqlens" || x == "padding") && comparing) return true;
    if (x == "seq" && i + 1 < w.size() && (w[i + 1] == "len" || w[i + 1] == "lens") && comparing)
      return true;
  }
  return false;
}

bool Compares(const CodeLine& l) {
  for (const Token& t : l.tokens) {
    if (IsComparison(t) || t.text == "min" || t.text == "max" || t.text == "==" || t.text == "!=")
      return true;
  }
  return false;
}

bool IsMaskFunction(std::string_view name) {
  if (!HasWord(name, {"causal", "mask", "masked", "window", "seqlen"}) ||
      HasWord(name, {"grouped", "gemm"})) {
    return false;
  }
  // `causal_conv1d_update`: a causal convolution, not a masking function (its other words
  // may still name one: `causal_conv1d_with_mask`).
  const std::vector<std::string> w = IdentifierWords(name);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "causal" && i + 1 < w.size() && w[i + 1].rfind("conv", 0) == 0) continue;
    if (w[i] == "causal" || w[i] == "mask" || w[i] == "masked" || w[i] == "window" ||
        w[i] == "seqlen") {
      return true;
    }
  }
  return false;
}

// "kBlockN" -> "blockn", "NUM_STAGES" -> "numstages".
std::string SquashName(std::string_view name) {
  std::string s;
  size_t start = 0;
  if (name.size() > 1 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1])))
    start = 1;
  for (size_t i = start; i < name.size(); ++i) {
    if (name[i] != '_') s += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  return s;
}

// num_splits, kMaxSplits, max_num_splits, SPLIT_K, kSplitK (not split_idx or *_ptr).
bool IsSplitConstant(std::string_view name) {
  std::vector<std::string> w = IdentifierWords(name);
  if (w.empty()) return false;
  if (w.back() == "splits") return true;
  bool split = std::find(w.begin(), w.end(), "split") != w.end();
  return split && (w.back() == "k" || w.back() == "kv");
}

// kBlockM, BLOCK_SIZE_N, block_n, kTileShape_MNK, kNumStages, num_warps (not block_table,
// tile_scheduler_metadata or blockIdx).
bool IsTileConstant(std::string_view name) {
  std::string s = SquashName(name);
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.back()))) s.pop_back();
  for (std::string_view prefix : {"block", "tile"}) {
    if (s.rfind(prefix, 0) != 0) continue;
    std::string rest = s.substr(prefix.size());
    for (std::string_view ok :
         {"",      "m",        "n",    "k",     "h",     "d",     "q",     "kv",
          "mn",    "mnk",      "size", "sizem", "sizen", "sizek", "sizeq", "sizekv",
          "shape", "shapemnk", "rows", "cols",  "x",     "y"}) {
      if (rest == ok) return true;
    }
  }
  for (std::string_view w :
       {"stages", "numstages", "nstages", "kstages", "pipestages", "numpipestages",
        "pipelinestages", "numwarps", "nwarps", "warps", "numthreads", "nthreads", "numwarpgroups",
        "clustershape", "clusterm", "clustern", "clustersize", "tileshapemnk", "tilershape"}) {
    if (s == w) return true;
  }
  return false;
}

// A value worth comparing as a constant: literals and constant expressions, not loads
// (`__ldg(p + 4)`, `params.x`, `a[i]`).
bool IsConstantValue(const std::string& value) {
  std::vector<Token> t = Tokenize(value);
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "[" || x == "->" || x == "." || x == "&") return false;
    if (t[i].kind == TokenKind::kIdentifier && i + 1 < t.size() && t[i + 1].text == "(" &&
        x != "min" && x != "max" && x != "ceil_div" && x != "cdiv" && x != "sizeof" && x != "int" &&
        x != "Int" && x != "Shape") {
      return false;
    }
  }
  return !t.empty();
}

// Shared-memory sizes: kSmemSize, SMEM_A_SIZE_PER_STAGE, smem_bytes, shared_mem_size
// (not smem pointers or layouts).
bool IsSmemName(std::string_view name) {
  std::vector<std::string> w = IdentifierWords(name);
  bool smem = false, size = false;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "smem" || w[i] == "shmem") smem = true;
    if (w[i] == "shared" && i + 1 < w.size() && (w[i + 1] == "mem" || w[i + 1] == "memory"))
      smem = true;
    if (w[i] == "size" || w[i] == "bytes" || w[i] == "capacity" || w[i] == "kb") size = true;
  }
  return smem && size;
}

// Declarations only: using an smem buffer (lse_smem[s]) is not declaring one.
bool IsSmemLine(const CodeLine& l) {
  if (l.code.find("__shared__") != std::string::npos) return true;
  if (l.code.find("MaxDynamicSharedMemorySize") != std::string::npos) return true;
  // A `SharedStorage` type declared or sized, not a buffer cast to it
  // (`*(typename Op::SharedStorage*)smem_buf` reuses memory, it declares none).
  for (size_t i = 0; i < l.tokens.size(); ++i) {
    if (l.tokens[i].text.find("SharedStorage") == std::string::npos) continue;
    const bool cast = i + 2 < l.tokens.size() && l.tokens[i + 1].text == "*" &&
                      l.tokens[i + 2].text == ")";
    if (!cast) return true;
  }
  return !Definitions(l, &IsSmemName).empty();
}

bool IsSoftmaxToken(const Token& t) {
  static const std::set<std::string_view> kFns = {
      "exp",    "expf",    "exp2",     "exp2f",   "__expf",  "hexp",     "h2exp",
      "hexp2",  "h2exp2",  "__exp2f",  "log",     "logf",    "log2",     "log2f",
      "__logf", "__log2f", "INFINITY", "FLT_MAX", "M_LOG2E", "infinity", "softmax"};
  if (t.kind == TokenKind::kString)
    return t.text == "\"-inf\"" || t.text == "'-inf'" || t.text == "\"inf\"";
  if (t.kind != TokenKind::kIdentifier) return false;
  if (kFns.count(t.text)) return true;
  std::vector<std::string> w = IdentifierWords(t.text);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "log2e" || w[i] == "softmax" || w[i] == "rescale") return true;
    if ((w[i] == "row" || w[i] == "scores" || w[i] == "score") && i + 1 < w.size() &&
        w[i + 1] == "max")
      return true;
    if (w[i] == "max" && i + 1 < w.size() && (w[i + 1] == "logit" || w[i + 1] == "score"))
      return true;
    if (w[i] == "log2" && i > 0 && w[i - 1] == "scale") return true;
  }
  return t.text == "m_i" || t.text == "rowmax";
}

std::set<std::string> ExpLogFunctions(const std::vector<const CodeLine*>& lines) {
  static const std::set<std::string_view> kFns = {
      "exp",    "expf",    "exp2", "exp2f", "__expf", "hexp",  "h2exp",  "hexp2",
      "h2exp2", "__exp2f", "log",  "logf",  "log2",   "log2f", "__logf", "__log2f"};
  std::set<std::string> out;
  for (const CodeLine* l : lines) {
    for (const Token& t : l->tokens) {
      if (t.kind == TokenKind::kIdentifier && kFns.count(t.text)) out.insert(t.text);
    }
  }
  return out;
}

// LSE, combine and partial outputs always; accumulators only where they accumulate
// (`acc += ...`), not where a buffer size mentions them.
bool IsCombineLine(const CodeLine& l) {
  bool accumulates = false;
  for (const Token& t : l.tokens) {
    if (t.text == "+=" || t.text == "fma" || t.text == "fmaf" || t.text == "__fmaf_rn")
      accumulates = true;
  }
  for (const Token& t : l.tokens) {
    if (t.kind != TokenKind::kIdentifier) continue;
    for (const std::string& w : IdentifierWords(t.text)) {
      if (w == "lse" || w == "logsumexp" || w == "combine" || w == "oaccum" || w == "partial" ||
          w == "partials" || w == "splits") {
        return true;
      }
      if (accumulates && (w == "acc" || w == "accum")) return true;
    }
  }
  return false;
}

// Atomic operations whose order changes floating-point results.
std::vector<std::string> AtomicKeys(const CodeLine& l) {
  std::vector<std::string> keys;
  for (const Token& t : l.tokens) {
    if (t.kind == TokenKind::kIdentifier) {
      std::string low = ToLower(t.text);
      if ((low.rfind("atomic", 0) == 0 && low.size() > 6) || t.text == "index_add_" ||
          t.text == "scatter_add_" || t.text == "scatter_add" || t.text == "index_add") {
        keys.push_back(t.text);
      }
    } else if (t.kind == TokenKind::kString) {
      for (std::string_view ptx : {"red.", "atom."}) {
        if (t.text.find(ptx) != std::string::npos) keys.push_back(std::string(ptx));
      }
    }
  }
  return keys;
}

// Barriers, fences and async-copy waits on a line, with their wait count when one is given.
std::vector<BarrierUse> BarrierUses(const CodeLine& l) {
  static const std::set<std::string_view> kIds = {"__syncthreads",
                                                  "__syncwarp",
                                                  "__syncthreads_count",
                                                  "__syncthreads_and",
                                                  "__syncthreads_or",
                                                  "cp_async_wait",
                                                  "cp_async_wait_all",
                                                  "cp_async_wait_group",
                                                  "cp_async_fence",
                                                  "__threadfence",
                                                  "__threadfence_block",
                                                  "__threadfence_system",
                                                  "fence_view_async_shared",
                                                  "fence_barrier_init",
                                                  "arrive_and_wait",
                                                  "consumer_wait",
                                                  "producer_acquire",
                                                  "wait_barrier",
                                                  "named_barrier_sync",
                                                  "debug_barrier",
                                                  "__pipeline_wait_prior",
                                                  "cp_async_bulk_wait_group",
                                                  "tma_store_wait",
                                                  "warpgroup_wait",
                                                  "syncthreads",
                                                  "barrier_sync",
                                                  "mbarrier_wait",
                                                  "pipeline_wait",
                                                  "cluster_sync",
                                                  "cluster_arrive",
                                                  "cluster_wait",
                                                  "cluster_arrive_relaxed",
                                                  "tcgen05_after_thread_sync",
                                                  "tcgen05_before_thread_sync",
                                                  "fence_view_async_tmem_load",
                                                  "fence_view_async_tmem_store"};
  std::vector<BarrierUse> uses;
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == TokenKind::kIdentifier) {
      std::string key;
      if (kIds.count(t[i].text)) {
        key = t[i].text;
      } else if (t[i].text == "sync" && i >= 2 && t[i - 1].text == "::" &&
                 t[i - 2].text == "NamedBarrier") {
        key = "NamedBarrier::sync";
      } else if (t[i].text == "sync" && i >= 2 && t[i - 1].text == "." &&
                 (t[i - 2].text == "block" || t[i - 2].text == "cta" ||
                  (i >= 4 && t[i - 2].text == ")" && t[i - 4].text == "this_thread_block"))) {
        // A cooperative-groups thread block's sync is __syncthreads under another spelling:
        // a line that respells one as the other removes no barrier.
        key = "__syncthreads";
      } else if (t[i].text == "sync" && i >= 2 && t[i - 1].text == "." &&
                 t[i - 2].text == "grid") {
        key = "grid.sync";
      } else if (t[i].text == "wait" && i >= 2 && (t[i - 1].text == "." || t[i - 1].text == "->")) {
        // pipeline.wait(), bar.wait(), full_barriers[stage]->wait(phase)
        for (size_t k = i - 1; k-- > 0 && k + 6 > i;) {
          if (t[k].kind == TokenKind::kIdentifier &&
              HasWord(t[k].text, {"pipeline", "pipe", "barrier", "barriers", "bar", "mbar"})) {
            key = "pipeline.wait";
            break;
          }
        }
        if (key.empty()) continue;
      }
      if (key.empty()) continue;
      BarrierUse u{key, -1};
      // cp_async_wait<N>() / __pipeline_wait_prior(N)
      if (i + 2 < t.size() && (t[i + 1].text == "<" || t[i + 1].text == "(") &&
          t[i + 2].kind == TokenKind::kNumber) {
        u.arg = std::atoll(t[i + 2].text.c_str());
      }
      uses.push_back(u);
    } else if (t[i].kind == TokenKind::kString) {
      for (std::string_view ptx :
           {"bar.sync", "barrier.sync", "bar.arrive", "barrier.arrive", "cp.async.wait_group",
            "cp.async.wait_all", "cp.async.bulk.wait_group", "mbarrier.try_wait", "mbarrier.wait",
            "fence.proxy", "membar", "wgmma.wait_group"}) {
        size_t at = t[i].text.find(ptx);
        if (at == std::string::npos) continue;
        // `bar.sync` is `barrier.sync.aligned` (PTX ISA): one barrier under two spellings,
        // so a line that respells it removes nothing.
        BarrierUse u{ptx == "barrier.sync"     ? std::string("bar.sync")
                     : ptx == "barrier.arrive" ? std::string("bar.arrive")
                                               : std::string(ptx),
                     -1};
        size_t k = at + ptx.size();
        while (k < t[i].text.size() && t[i].text[k] == ' ') ++k;
        // A wait's number is the groups it leaves in flight; a barrier's is its id, which
        // sync.named_barrier_changed asks about (no "waits for 1 groups" on a re-numbered id).
        const bool counts_groups = ptx.find("wait") != std::string_view::npos;
        if (counts_groups && k < t[i].text.size() &&
            std::isdigit(static_cast<unsigned char>(t[i].text[k]))) {
          u.arg = std::atoll(t[i].text.c_str() + k);
        }
        uses.push_back(u);
      }
    }
  }
  return uses;
}

bool IsWideType(const Token& t) {
  return t.kind == TokenKind::kIdentifier &&
         (t.text == "float" || t.text == "double" || t.text == "float32" || t.text == "fp32" ||
          t.text == "f32" || t.text == "float2" || t.text == "float4");
}
bool IsNarrowType(const Token& t) {
  static const std::set<std::string_view> kNarrow = {"half",
                                                     "__half",
                                                     "half2",
                                                     "__half2",
                                                     "__nv_bfloat16",
                                                     "nv_bfloat16",
                                                     "__nv_bfloat162",
                                                     "bfloat16",
                                                     "bf16",
                                                     "float16",
                                                     "fp16",
                                                     "f16",
                                                     "half_t",
                                                     "bfloat16_t",
                                                     "__nv_fp8_e4m3",
                                                     "__nv_fp8_e5m2",
                                                     "float8_e4m3fn",
                                                     "float8_e5m2",
                                                     "fp8",
                                                     "e4m3",
                                                     "float_e4m3_t",
                                                     "float_e5m2_t"};
  return t.kind == TokenKind::kIdentifier && kNarrow.count(t.text) > 0;
}
bool IsAccumulatorName(const Token& t) {
  if (t.kind != TokenKind::kIdentifier) return false;
  std::vector<std::string> w = IdentifierWords(t.text);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "acc" || w[i] == "accum" || w[i] == "accumulator" || w[i] == "oaccum") return true;
    if (w[i] == "sum" && (w.size() == 1 || i > 0)) return true;  // row_sum, l_sum, sum
  }
  return false;
}

bool IsFallbackIdentifier(const Token& t, bool preprocessor) {
  if (t.kind != TokenKind::kIdentifier) return false;
  if (HasWord(t.text, {"fallback", "legacy"})) return true;
  std::string low = ToLower(t.text);
  if (low.rfind("use_", 0) == 0 && low.size() > 4) return true;
  if (t.text.size() > 4 && t.text.rfind("kUse", 0) == 0 &&
      std::isupper(static_cast<unsigned char>(t.text[4]))) {
    return true;
  }
  if (preprocessor && (t.text.rfind("FLASH_", 0) == 0 || t.text.rfind("ENABLE_", 0) == 0 ||
                       t.text.rfind("DISABLE_", 0) == 0)) {
    return true;
  }
  return false;
}

bool IsBranchOrFlag(const CodeLine& l) {
  if (!l.code.empty() && l.code[0] == '#') return true;
  for (const Token& t : l.tokens) {
    if (t.text == "if" || t.text == "else" || t.text == "elif" || t.text == "?" || t.text == "=" ||
        t.text == "getenv" || t.text == "environ" || t.text == "return" || t.text == "case") {
      return true;
    }
  }
  return false;
}

// Env-variable names read on a line: getenv("X"), os.environ["X"], os.environ.get("X").
std::vector<std::string> EnvReads(const CodeLine& l) {
  std::vector<std::string> out;
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text != "getenv" && t[i].text != "environ") continue;
    for (size_t j = i + 1; j < t.size() && j < i + 6; ++j) {
      if (t[j].kind == TokenKind::kString) {
        out.push_back(t[j].text);
        break;
      }
    }
  }
  return out;
}

bool IsKeywordOrGuard(std::string_view s) {
  return s == "if" || s == "else" || s == "while" || s == "for" || s == "elif" ||
         s == "constexpr" || s == "and" || s == "or" || s == "not" || s == "return" ||
         s == "true" || s == "false" || s == "True" || s == "False" || s == "sizeof";
}

bool IsComparison(const Token& t) {
  return t.kind == TokenKind::kOperator &&
         (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=");
}

// if / while / for / elif / a ternary: lines whose comparisons decide what runs.
bool IsGuardLine(const CodeLine& l) {
  if (!l.code.empty() && l.code[0] == '#') return false;
  for (const Token& t : l.tokens) {
    if (t.text == "if" || t.text == "while" || t.text == "for" || t.text == "elif" ||
        t.text == "?") {
      return true;
    }
  }
  return false;
}

bool IsClampToken(const Token& t) {
  return t.kind == TokenKind::kIdentifier &&
         (t.text == "min" || t.text == "max" || t.text == "fminf" || t.text == "fmaxf" ||
          t.text == "clamp");
}

// SM counts, waves and occupancy heuristics: their min/max bound no memory access.
bool NamesSmCount(const CodeLine& l) {
  for (const Token& t : l.tokens) {
    if (t.kind == TokenKind::kIdentifier &&
        HasWord(t.text, {"sms", "sm", "waves", "wave", "occupancy", "smcount"})) {
      return true;
    }
  }
  return false;
}

// A condition over compile-time names only (`NUM_SPLITS <= 32`, `kBlockN == 64`): a
// dispatch between instantiations, not a bound on an index.
bool IsDispatchCondition(const CodeLine& l) {
  bool any = false;
  for (const Token& t : l.tokens) {
    if (t.kind != TokenKind::kIdentifier || IsKeywordOrGuard(t.text)) continue;
    any = true;
    const bool caps = std::none_of(t.text.begin(), t.text.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c));
    });
    const bool k_const = t.text.size() > 1 && t.text[0] == 'k' &&
                         std::isupper(static_cast<unsigned char>(t.text[1]));
    if (!caps && !k_const) return false;
  }
  return any;
}

// Comparisons on guard lines, plus min/max clamps on C++ lines that bound an index or a
// length (not an SM-count heuristic): how much bounding a set of lines does.
namespace {

// `get<0>(x)`, `static_cast<int64_t>(v)`, `Int<kBlockM>{}`: the angle brackets of a template
// argument list, not comparisons. The `<` follows a name, the matching `>` comes within a
// few tokens of names, numbers, `::`, `,`, `*`, `&` (nested lists allowed) and is followed
// by what follows a type or call.
bool IsTemplateOpen(const std::vector<Token>& t, size_t i, size_t* close) {
  if (i == 0 || t[i].text != "<" || t[i - 1].kind != TokenKind::kIdentifier) return false;
  int depth = 0;
  for (size_t k = i; k < t.size() && k <= i + 64; ++k) {
    const std::string& x = t[k].text;
    if (x == "<") {
      ++depth;
    } else if (x == ">") {
      if (--depth == 0) {
        const bool after_ok =
            k + 1 >= t.size() || t[k + 1].text == "(" || t[k + 1].text == "{" ||
            t[k + 1].text == "::" || t[k + 1].text == ">" || t[k + 1].text == "," ||
            t[k + 1].text == ")" || t[k + 1].text == ";" || t[k + 1].kind == TokenKind::kIdentifier ||
            // `const std::optional<at::Tensor> &x`, `T<N>* p`: a declared reference or pointer.
            ((t[k + 1].text == "&" || t[k + 1].text == "*" || t[k + 1].text == "&&") &&
             (k + 2 >= t.size() || t[k + 2].kind == TokenKind::kIdentifier ||
              t[k + 2].text == ")" || t[k + 2].text == ","));
        if (after_ok && close != nullptr) *close = k;
        return after_ok;
      }
    } else if (!(t[k].kind == TokenKind::kIdentifier || t[k].kind == TokenKind::kNumber ||
                 x == "::" || x == "," || x == "*" || x == "&")) {
      return false;
    }
  }
  return false;
}

}  // namespace

std::vector<bool> TemplateAngles(const std::vector<Token>& t) {
  std::vector<bool> angle(t.size(), false);
  for (size_t i = 0; i < t.size(); ++i) {
    size_t close = 0;
    if (!angle[i] && IsTemplateOpen(t, i, &close)) {
      angle[i] = true;
      angle[close] = true;
    }
  }
  // `x >> 5`, `1 << k`: the tokenizer gives two `>` (or `<`); a shift is no comparison.
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!angle[i] && !angle[i + 1] && (t[i].text == ">" || t[i].text == "<") &&
        t[i + 1].text == t[i].text) {
      angle[i] = angle[i + 1] = true;
      ++i;
    }
  }
  return angle;
}

bool IsComparisonAt(const std::vector<Token>& t, size_t i) {
  if (i >= t.size() || t[i].kind != TokenKind::kOperator) return false;
  const std::string& x = t[i].text;
  if (x == "<=" || x == ">=" || x == "==" || x == "!=") return true;
  if (x != "<" && x != ">") return false;
  return !TemplateAngles(t)[i];
}

int GuardStrength(const std::vector<const CodeLine*>& lines, bool cpp) {
  int n = 0;
  for (const CodeLine* l : lines) {
    const bool guard = IsGuardLine(*l) && !IsDispatchCondition(*l);
    const bool clamps = cpp && !NamesSmCount(*l) && !(!l->code.empty() && l->code[0] == '#');
    const std::vector<bool> angle = TemplateAngles(l->tokens);
    for (size_t i = 0; i < l->tokens.size(); ++i) {
      const Token& t = l->tokens[i];
      if ((guard && IsComparison(t) && !angle[i]) || (clamps && IsClampToken(t))) ++n;
    }
  }
  return n;
}

std::vector<std::string> ComparisonOps(const CodeLine& l) {
  std::vector<std::string> ops;
  const std::vector<bool> angle = TemplateAngles(l.tokens);
  for (size_t i = 0; i < l.tokens.size(); ++i) {
    if (IsComparison(l.tokens[i]) && !angle[i]) ops.push_back(l.tokens[i].text);
  }
  return ops;
}

// Share of tokens two lines have in common (multiset), in [0, 1]: a merge of their
// sorted token hashes, linear in the lines' lengths.
double Similarity(const CodeLine& a, const CodeLine& b) {
  const std::vector<uint64_t>& x = a.token_hashes;
  const std::vector<uint64_t>& y = b.token_hashes;
  size_t i = 0, j = 0, common = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] == y[j]) {
      ++common;
      ++i;
      ++j;
    } else if (x[i] < y[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  const size_t most = std::max(x.size(), y.size());
  return most == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(most);
}

const CodeLine* BestMatch(const CodeLine& line, const ChangeBlock& block, double at_least) {
  const std::vector<CodeLine>& own = line.added ? block.added : block.removed;
  const std::vector<CodeLine>& others = line.added ? block.removed : block.added;
  if (others.empty()) return nullptr;
  size_t index = 0;
  if (!own.empty() && &line >= own.data() && &line < own.data() + own.size()) {
    index = static_cast<size_t>(&line - own.data());
  }
  size_t lo = 0, hi = 0;
  PairingRange(index, own.size(), others.size(), &lo, &hi);
  const CodeLine* best = nullptr;
  double best_score = at_least;
  for (size_t k = lo; k < hi; ++k) {
    double s = Similarity(line, others[k]);
    if (s >= best_score) {
      best = &others[k];
      best_score = s;
    }
  }
  return best;
}

// Definitions "NAME = VALUE" (C++, Python, keyword arguments), "#define NAME VALUE" and
// "NAME{VALUE}" on a line, for names `want` accepts.
std::vector<std::pair<std::string, std::string>> Definitions(const CodeLine& l,
                                                             bool (*want)(std::string_view)) {
  std::vector<std::pair<std::string, std::string>> defs;
  const auto& t = l.tokens;
  auto value_until_end = [&](size_t from) {
    std::string v;
    int depth = 0;
    for (size_t k = from; k < t.size(); ++k) {
      const std::string& x = t[k].text;
      if (x == "(" || x == "[" || x == "{") ++depth;
      if (x == ")" || x == "]" || x == "}") {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && (x == ";" || x == ",")) break;
      if (!v.empty()) v += ' ';
      v += x;
    }
    return v;
  };
  if (t.size() >= 3 && t[0].text == "#" && t[1].text == "define" && want(t[2].text)) {
    std::string v;
    for (size_t k = 3; k < t.size(); ++k) v += (v.empty() ? "" : " ") + t[k].text;
    defs.push_back({t[2].text, v});
    return defs;
  }
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    // Python dict entries: triton.Config({'BLOCK_N': 64, ...}).
    if (t[i].kind == TokenKind::kString && t[i].text.size() > 2 && t[i + 1].text == ":" &&
        want(std::string_view(t[i].text).substr(1, t[i].text.size() - 2))) {
      std::string v = value_until_end(i + 2);
      if (!v.empty()) defs.push_back({t[i].text.substr(1, t[i].text.size() - 2), v});
      continue;
    }
    if (t[i].kind != TokenKind::kIdentifier || !want(t[i].text)) continue;
    // `params.block_n = x` stores a field; it defines nothing.
    if (i > 0 && (t[i - 1].text == "." || t[i - 1].text == "->")) continue;
    size_t j = i + 1;
    // Python annotation: NAME: int = VALUE
    if (t[j].text == ":" && j + 2 < t.size() && t[j + 2].text == "=") j += 2;
    if (t[j].text == "=") {
      std::string v = value_until_end(j + 1);
      if (!v.empty()) defs.push_back({t[i].text, v});
    } else if (t[j].text == "{" && i > 0 && t[i - 1].kind == TokenKind::kIdentifier) {
      std::string v = value_until_end(j + 1);
      if (!v.empty()) defs.push_back({t[i].text, v});
    }
  }
  return defs;
}

std::string StripValue(std::string v) {
  // "64 ;" and "64u" compare as 64.
  while (!v.empty() && (v.back() == ' ' || v.back() == ';')) v.pop_back();
  return v;
}

bool IsIntegerTypeName(std::string_view name) {
  static const std::set<std::string_view> kInt = {"int",      "int32_t", "int64_t",
                                                  "uint32_t", "uint64_t", "size_t",
                                                  "long",     "unsigned", "index_t",
                                                  "ptrdiff_t"};
  return kInt.count(name) > 0;
}

bool ParseIntLiteral(const std::string& s, long long* out) {
  std::string digits = s;
  while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' ||
                             digits.back() == 'L')) {
    digits.pop_back();
  }
  if (digits.empty()) return false;
  char* end = nullptr;
  long long v = std::strtoll(digits.c_str(), &end, 0);
  if (end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

std::string CallText(const std::string& source, std::string_view name, size_t nth) {
  size_t pos = 0, seen = 0;
  while ((pos = source.find(name, pos)) != std::string::npos) {
    const bool word_start =
        pos == 0 ||
        !(std::isalnum(static_cast<unsigned char>(source[pos - 1])) || source[pos - 1] == '_');
    size_t open = pos + name.size();
    while (open < source.size() && source[open] == ' ') ++open;
    if (!word_start || open >= source.size() || source[open] != '(') {
      pos += name.size();
      continue;
    }
    if (seen++ < nth) {
      pos = open;
      continue;
    }
    int depth = 0;
    for (size_t i = open; i < source.size(); ++i) {
      if (source[i] == '(') ++depth;
      if (source[i] == ')' && --depth == 0) return source.substr(pos, i + 1 - pos);
    }
    return source.substr(pos);
  }
  return "";
}

std::string LambdaBody(const std::string& source) {
  size_t at = source.find("lambda");
  if (at == std::string::npos) return "";
  size_t colon = source.find(':', at);
  if (colon == std::string::npos) return "";
  int depth = 0;
  size_t i = colon + 1;
  for (; i < source.size(); ++i) {
    const char c = source[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
  }
  std::string body = source.substr(colon + 1, i - colon - 1);
  while (!body.empty() && body.front() == ' ') body.erase(body.begin());
  while (!body.empty() && body.back() == ' ') body.pop_back();
  return body;
}

std::string Shorten(std::string s, size_t max) {
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

}  // namespace av
