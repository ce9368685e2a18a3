// Kernel-facing rules: the kernel's interface (signature, template header, strides,
// layouts), its launch grid and block size, how it maps block indices, and the TMA
// descriptors it is handed.
#include <algorithm>
#include <set>

#include "review/file_review.h"
#include "review/rule_vocabulary.h"

namespace av {
namespace {

using namespace rule_id;  // NOLINT

bool IsLayoutToken(const std::vector<Token>& t, size_t i, bool python) {
  const Token& x = t[i];
  if (x.kind != TokenKind::kIdentifier) return false;
  const bool call = i + 1 < t.size() && t[i + 1].text == "(";
  const bool member = i > 0 && t[i - 1].text == ".";
  if (python) {
    // tensor.stride(0), t.contiguous(), .transpose(...), .permute(...), stride= keywords.
    if (member && (x.text == "stride" || x.text == "strides" || x.text == "contiguous" ||
                   x.text == "transpose" || x.text == "permute")) {
      return true;
    }
    return (x.text == "stride" || x.text == "strides") && i + 1 < t.size() && t[i + 1].text == "=";
  }
  if (x.text == "make_tensor" || x.text == "make_shape" || x.text == "make_layout" ||
      x.text == "make_stride" || x.text == "Shape" || x.text == "Stride" ||
      x.text == "contiguous" || x.text == "transpose" || x.text == "permute") {
    return true;
  }
  // CuTe layouts as types: Layout<...>, LayoutQ; not `grouped_layout` (an index array).
  if (x.text.rfind("Layout", 0) == 0 && (i + 1 >= t.size() || !call)) return true;
  if (HasWord(x.text, {"stride", "strides"})) return true;
  return false;
}

bool ReadsBlockIdx(const CodeLine& l, std::set<char>* dims) {
  bool any = false;
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier) continue;
    if (t[i].text == "blockIdx" || t[i].text == "gridDim" || t[i].text == "clusterIdx" ||
        t[i].text == "block_rank_in_cluster" || t[i].text == "cluster_id_in_grid") {
      any = true;
      if (dims != nullptr && t[i].text == "blockIdx" && i + 2 < t.size() && t[i + 1].text == "." &&
          t[i + 2].text.size() == 1) {
        dims->insert(t[i + 2].text[0]);
      }
    }
  }
  return any;
}

bool IsLaunchLine(const CodeLine& l, bool python) {
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (python) {
      if ((x == "grid" || x == "block") && i + 1 < t.size() && t[i + 1].text == "=") return true;
      continue;
    }
    if (x == "dim3" || x == "gridDim" || x == "__launch_bounds__" || x == "cudaLaunchConfig_t" ||
        x == "cudaLaunchKernelEx" || x == "launch_bounds" || x == "__cluster_dims__") {
      return true;
    }
    if (x == "<" && i + 2 < t.size() && t[i + 1].text == "<" && t[i + 2].text == "<") return true;
  }
  return false;
}

// The launch configuration a line spells: what is inside <<<...>>>, dim3(...),
// __launch_bounds__(...), and the rest of the line when none of those is there.
std::string LaunchConfig(const CodeLine& l) {
  const auto& t = l.tokens;
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool chevrons =
        t[i].text == "<" && i + 2 < t.size() && t[i + 1].text == "<" && t[i + 2].text == "<";
    const bool call = (t[i].text == "dim3" || t[i].text == "__launch_bounds__" ||
                       t[i].text == "__cluster_dims__") &&
                      i + 1 < t.size() && t[i + 1].text == "(";
    if (!chevrons && !call) continue;
    size_t k = chevrons ? i + 3 : i + 2;
    int depth = 0;
    for (; k < t.size(); ++k) {
      if (chevrons && t[k].text == ">" && k + 2 < t.size() && t[k + 1].text == ">" &&
          t[k + 2].text == ">") {
        break;
      }
      if (!chevrons && t[k].text == "(") ++depth;
      if (!chevrons && t[k].text == ")" && depth-- == 0) break;
      out += t[k].text + " ";
    }
    out += "| ";
    i = k;
  }
  return out.empty() ? l.norm : out;
}

// The arguments of a line's <<<grid, block, smem, stream>>>, as text.
std::vector<std::string> LaunchArgs(const CodeLine& l) {
  const auto& t = l.tokens;
  std::vector<std::string> args;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text != "<" || t[i + 1].text != "<" || t[i + 2].text != "<") continue;
    args.emplace_back();
    int depth = 0;
    for (size_t k = i + 3; k < t.size(); ++k) {
      if (t[k].text == ">" && k + 2 < t.size() && t[k + 1].text == ">" && t[k + 2].text == ">")
        break;
      if (t[k].text == "(") ++depth;
      if (t[k].text == ")") --depth;
      if (depth == 0 && t[k].text == ",") {
        args.emplace_back();
        continue;
      }
      args.back() += t[k].text + " ";
    }
    break;
  }
  return args;
}

bool IsRemapLine(const CodeLine& l, bool python) {
  return ReadsBlockIdx(l, nullptr) && !IsLaunchLine(l, python);
}

bool IsTmaBuilder(std::string_view name) {
  const std::string low = ToLower(name);
  if (low.rfind("cutensormapencode", 0) == 0) return true;
  if (low == "make_tma_copy" || low == "make_tma_atom" || low == "make_im2col_tma_copy")
    return true;
  return low.rfind("make_", 0) == 0 && low.find("tma") != std::string::npos &&
         (low.find("desc") != std::string::npos || low.find("copy") != std::string::npos);
}

bool IsTmaArrayName(std::string_view name) {
  static const std::set<std::string_view> kNames = {
      "smem_dim",       "box_dim",       "boxDim",       "box_size",     "smem_box",
      "gmem_dim",       "gmem_dims",     "gmem_strides", "gmem_stride",  "global_stride",
      "global_strides", "globalStrides", "globalDim",    "elem_strides", "elementStrides",
      "box_dims",       "smem_dims"};
  return kNames.count(name) > 0;
}

bool IsTmaFunction(std::string_view name) {
  const std::string low = ToLower(name);
  return low.find("tma") != std::string::npos &&
         (low.find("desc") != std::string::npos || low.find("encode") != std::string::npos);
}

bool IsTmaLine(const CodeLine& l) {
  const auto& t = l.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier) continue;
    if (i + 1 < t.size() && t[i + 1].text == "(" && IsTmaBuilder(t[i].text)) return true;
    if (IsTmaArrayName(t[i].text) && i + 1 < t.size() &&
        (t[i + 1].text == "[" || t[i + 1].text == "=" || t[i + 1].text == "{")) {
      return true;
    }
  }
  return IsTmaFunction(l.function);
}

// "{BLOCK_N + BLOCK_N_PADDING, 1, BLOCK_M}" of a line `uint32_t smem_dim[3] = {...};`.
std::string BracedValue(const CodeLine& l) {
  const size_t open = l.source.find('{'), close = l.source.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return l.source.substr(open, close - open + 1);
}


// A line between a function's name and its body that declares no parameter: a
// preprocessor gate (`#ifndef X`, `#else`) or a constructor's member initialiser
// (`: lane_id(x)`, `, warp_id(y)`). Changing it changes what the function computes, not how
// it is called.
bool InitialiserOrGate(const CodeLine& l) {
  const auto& t = l.tokens;
  if (!l.code.empty() && l.code[0] == '#') return true;
  if (t.size() >= 3 && (t[0].text == ":" || t[0].text == ",") &&
      t[1].kind == TokenKind::kIdentifier && (t[2].text == "(" || t[2].text == "{")) {
    return true;
  }
  return false;
}

}  // namespace

void FileReview::Interface(ChangeBlock& b) {
  std::vector<CodeLine*> lines;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed) continue;
      if (l.in_signature && cpp() && InitialiserOrGate(l)) continue;
      // A __global__ or __device__ function's template header and parameters: every call
      // and instantiation must follow (a parameter inserted mid-list shifts them all).
      // Only a function both sides have: a new function's signature is not a change.
      bool device_signature = cpp() && l.in_signature && l.function_kind == FunctionKind::kDevice;
      if (device_signature) {
        const SourceOutline* other = Outline(!l.added);
        bool both = false;
        for (size_t k = 0; other != nullptr && k < other->functions.size() && !both; ++k) {
          both = other->functions[k].name == l.function;
        }
        device_signature = both;
      }
      bool hit = (l.in_kernel_signature && cpp()) || device_signature;
      // A stride *name* in an expression is not an interface: the index or definition rules
      // ask about the expression. Only a declared stride (a parameter, a struct member) is.
      const bool declares = l.in_signature || l.scope_keyword == "struct" ||
                            l.scope_keyword == "class" || python();
      for (size_t i = 0; i < l.tokens.size() && !hit; ++i) {
        hit = IsLayoutToken(l.tokens, i, python()) &&
              (declares || !HasWord(l.tokens[i].text, {"stride", "strides"}));
      }
      if (hit) lines.push_back(&l);
    }
  }
  if (lines.empty()) return;
  Report(kInterface, lines, [&](const std::vector<CodeLine*>& run) {
    std::vector<CodeLine*> signature, device;
    bool layout = false;
    for (CodeLine* l : run) {
      if (l->in_kernel_signature && cpp()) signature.push_back(l);
      if (l->in_signature && l->function_kind == FunctionKind::kDevice && cpp()) device.push_back(l);
      for (const Token& t : l->tokens) {
        layout = layout || t.text == "make_tensor" || t.text == "make_shape" ||
                 t.text == "make_layout" || t.text == "get_tma_tensor";
      }
    }
    if (signature.empty() && !device.empty()) {
      const std::string& fn = device.front()->function;
      return "signature of device function " + (fn.empty() ? std::string("?") : fn + "()") +
             ": " + OldToNew(device) +
             ". Do every call and explicit instantiation pass the new template arguments and "
             "parameters in the same order and types (a parameter inserted mid-list shifts "
             "every call after it)?";
    }
    if (signature.empty() && layout && cpp()) {
      return OldToNew(run) +
             ": the tensor's shape or layout is built differently. Do its shape and its stride "
             "(and a TMA descriptor made for it on the host) still describe the same tensor, "
             "dimension by dimension?";
    }
    if (signature.empty()) {
      return OldToNew(run) +
             ". Do every caller's arguments, strides and dtypes still match the declaration?";
    }
    const std::string& kernel = signature.front()->function;
    return "signature of kernel " + (kernel.empty() ? std::string("?") : kernel + "()") + ": " +
           OldToNew(signature) +
           ". Do every launch and instantiation (host launchers and JIT templates included) pass "
           "the new template arguments and parameters in the same order, with the same types and "
           "alignment?";
  });
}

void FileReview::LaunchGrid(ChangeBlock& b) {
  struct Instantiation {
    CodeLine* added;
    CodeLine* removed;
    std::string from, to;
  };
  std::vector<Instantiation> instantiations;
  std::vector<CodeLine*> lines;
  bool smem_only = true;  // every changed launch differs only in its dynamic shared memory
  bool stream_only = true;  // ... or only in its stream
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed || !IsLaunchLine(l, python())) continue;
      // A new file's launch bounds are the new kernel's, not a change.
      if (added_file() && l.code.find("__launch_bounds__") != std::string::npos &&
          l.code.find("dim3") == std::string::npos && l.code.find("<<<") == std::string::npos) {
        continue;
      }
      // Only the launch configuration counts: `old_k<<<g, b>>>` -> `new_k<<<g, b>>>` swaps the
      // kernel, not the grid.
      const CodeLine* other = BestMatch(l, b, 0.3);
      if (other != nullptr && IsLaunchLine(*other, python())) {
        const std::vector<std::string> mine = LaunchArgs(l), theirs = LaunchArgs(*other);
        if (LaunchConfig(*other) == LaunchConfig(l)) {
          // The same launch of the same kernel with other numbers in its template arguments
          // (`k<64, T><<<g, b>>>` -> `k<128, T><<<g, b>>>`): a compile-time size changed while
          // the grid and block stayed.
          if (l.added && !l.claimed) {
            const std::vector<Token>& x = l.tokens;
            const std::vector<Token>& y = other->tokens;
            std::string from, to;
            bool numbers_only = x.size() == y.size();
            for (size_t i = 0; i < x.size() && numbers_only && x[i].text != "<<<"; ++i) {
              if (x[i].text == y[i].text) continue;
              numbers_only = x[i].kind == TokenKind::kNumber && y[i].kind == TokenKind::kNumber;
              if (from.empty()) {
                from = y[i].text;
                to = x[i].text;
              }
            }
            if (numbers_only && !from.empty()) {
              instantiations.push_back({&l, const_cast<CodeLine*>(other), from, to});
            }
          }
          continue;
        }
        const bool same_grid_block =
            mine.size() >= 3 && theirs.size() >= 3 && mine[0] == theirs[0] && mine[1] == theirs[1];
        // Grid, block and shared memory as they were; only the stream (the fourth) differs.
        const bool same_smem = same_grid_block && mine[2] == theirs[2];
        const bool stream_differs =
            same_smem && (mine.size() != theirs.size() ||
                          (mine.size() >= 4 && theirs.size() >= 4 && mine[3] != theirs[3]));
        stream_only = stream_only && stream_differs;
        smem_only = smem_only && same_grid_block && !same_smem;
      } else {
        smem_only = false;
        stream_only = false;
      }
      lines.push_back(&l);
    }
  }
  for (const Instantiation& in : instantiations) {
    if (in.added->claimed || in.removed->claimed) continue;
    Report(kGrid, {in.removed, in.added},
           "the kernel launched is instantiated with `" + in.to + "` where it had `" + in.from +
               "`, with the same grid and block: " + OldToNew({in.removed, in.added}) +
               InFunction({in.added}) +
               ". If that argument is a block, tile or row count, do the grid and block the "
               "launch passes, and the sizes the host padded or allocated to, still match it?");
  }
  if (lines.empty()) return;
  // A block-index remap elsewhere in the file: the two must agree.
  std::string remap;
  if (const int64_t at = FirstChangedLine(&IsRemapLine, &first_remap_line_)) {
    remap = " The kernel's block-index mapping changes at line " + std::to_string(at) +
            ": do the two agree?";
  }
  Report(kGrid, lines, [&](const std::vector<CodeLine*>& run) {
    bool bounds = false;
    for (const CodeLine* l : run)
      bounds = bounds || l->code.find("launch_bounds") != std::string::npos;
    std::string why;
    if (bounds) {
      why =
          ": the block size the kernel is compiled for changes, and with it the register "
          "budget and occupancy (ptxas); a launch with more threads than the bound fails.";
    } else if (stream_only) {
      why =
          ": only the stream the kernel is launched on changes. Do the kernels that write its "
          "inputs and read its outputs run on that stream (or is the order made explicit with "
          "events), is it the stream of the device the tensors are on, and does the work it "
          "relies on between launches (zeroed buffers, a reset workspace) happen on it too?";
    } else if (smem_only) {
      why =
          ": the dynamic shared memory the launch passes changes. It must cover what the "
          "kernel's layout uses (at every shape it is launched for) and stay within the "
          "cudaFuncSetAttribute limit and the arch's cap.";
    } else {
      why =
          ": grid x may reach 2^31-1 but y and z only 65535, so check every product for the "
          "largest batch, sequence and head counts; every blockIdx read in the kernel must "
          "follow the new shape." +
          remap;
    }
    return OldToNew(run) + why;
  });
}

void FileReview::BlockIndex(ChangeBlock& b) {
  if (!cpp()) return;
  bool reads = false;
  for (const auto* side : {&b.removed, &b.added}) {
    for (const CodeLine& l : *side) {
      // Only device code reads blockIdx, whatever its function is declared with.
      reads = reads || (!l.claimed && ReadsBlockIdx(l, nullptr));
    }
  }
  if (!reads) return;
  std::vector<CodeLine*> lines;
  std::set<char> old_dims, new_dims;
  // Names derived from the block index in this block (`row = blockIdx.x`, then
  // `batch = row / s_q`): lines defining them are part of the remap.
  std::set<std::string> derived;
  auto defined = [](const CodeLine& l) -> std::string {
    for (size_t i = 0; i + 1 < l.tokens.size(); ++i) {
      if (l.tokens[i].kind == TokenKind::kIdentifier && l.tokens[i + 1].text == "=") {
        return l.tokens[i].text;
      }
    }
    return "";
  };
  auto uses_derived = [&](const CodeLine& l) {
    bool rhs = false;
    for (const Token& t : l.tokens) {
      if (t.text == "=") rhs = true;
      if (rhs && t.kind == TokenKind::kIdentifier && derived.count(t.text)) return true;
    }
    return false;
  };
  for (int pass = 0; pass < 3; ++pass) {
    for (const auto* side : {&b.removed, &b.added}) {
      for (const CodeLine& l : *side) {
        if (!l.claimed && (ReadsBlockIdx(l, nullptr) || uses_derived(l)) && !defined(l).empty()) {
          derived.insert(defined(l));
        }
      }
    }
  }
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (l.claimed) continue;
      const bool index_def = std::any_of(l.tokens.begin(), l.tokens.end(), [](const Token& t) {
        return t.kind == TokenKind::kIdentifier &&
               (HasWord(t.text, {"idx", "index"}) || t.text == "idx");
      });
      if (ReadsBlockIdx(l, l.added ? &new_dims : &old_dims) || index_def || uses_derived(l)) {
        lines.push_back(&l);
      }
    }
  }
  if (lines.empty()) return;
  std::string dims;
  for (char d : old_dims) {
    if (new_dims.count(d)) continue;
    // Still read somewhere else in the kernel?
    std::vector<int64_t> still;
    for (const CodeLine* l : lines) {
      if (!l->added) continue;
      const std::string want = std::string("blockIdx . ") + d;
      still = FunctionLinesWhere(
          *l,
          [&](const std::string& code, const std::vector<Token>& t) {
            return code.find("blockIdx") != std::string::npos &&
                   CanonicalCode(t).find(want) != std::string::npos;
          },
          1);
      break;
    }
    dims +=
        std::string(" blockIdx.") + d + " is no longer read here" +
        (still.empty() ? ""
                       : " (the kernel still reads it at line " + std::to_string(still[0]) + ")") +
        ";";
  }
  std::string grid;
  if (const int64_t at = FirstChangedLine(&IsLaunchLine, &first_launch_line_)) {
    grid = " The launch grid changes at line " + std::to_string(at) + ".";
  }
  Report(kBlockIndex, lines,
         OldToNew(lines) + InFunction(lines) + ":" + dims +
             " every block must still get exactly one (batch, sequence, head) tile, and the grid "
             "launched must have the shape this mapping divides." +
             grid + " Check s_q > 1 with several batches and heads.");
}

void FileReview::Tma(ChangeBlock& b) {
  if (!cpp()) return;
  std::vector<CodeLine*> lines;
  for (auto* side : {&b.removed, &b.added}) {
    for (CodeLine& l : *side) {
      if (!l.claimed && IsTmaLine(l)) lines.push_back(&l);
    }
  }
  if (lines.empty()) return;
  // Show the lines that build the descriptor first.
  std::stable_partition(lines.begin(), lines.end(), [](const CodeLine* l) {
    for (size_t i = 0; i + 1 < l->tokens.size(); ++i) {
      if ((IsTmaBuilder(l->tokens[i].text) && l->tokens[i + 1].text == "(") ||
          IsTmaArrayName(l->tokens[i].text)) {
        return true;
      }
    }
    return false;
  });
  Report(kTma, lines, [&](const std::vector<CodeLine*>& run) {
    std::string box, strides, offset, function, clamp;
    int old_clamps = 0, new_clamps = 0;
    for (const CodeLine* l : run) {
      if (function.empty() || (l->added && !l->function.empty())) {
        if (l->added || function.empty()) function = l->function;
      }
      for (const Token& t : l->tokens) (l->added ? new_clamps : old_clamps) += IsClampToken(t);
      if (!l->added) {
        // A clamp the old descriptor applied (min(BLOCK_M, shape_m)).
        for (const char* name : {"min", "max"}) {
          const std::string c = CallText(l->source, name, 0);
          if (!c.empty() && clamp.empty()) clamp = c;
        }
        continue;
      }
      for (const Token& t : l->tokens) {
        if (!IsTmaArrayName(t.text)) continue;
        const std::string v = BracedValue(*l);
        if (v.empty()) continue;
        if (HasWord(t.text, {"smem", "box"}) && box.empty()) box = v;
        if (HasWord(t.text, {"stride", "strides"}) && !HasWord(t.text, {"elem", "element"}) &&
            strides.empty()) {
          strides = v;
        }
      }
      // A builder handed an offset base pointer: that address must stay 16-B aligned.
      for (size_t i = 0; i + 3 < l->tokens.size(); ++i) {
        if (IsTmaBuilder(l->tokens[i].text) && l->tokens[i + 1].text == "(" &&
            l->tokens[i + 2].kind == TokenKind::kIdentifier && l->tokens[i + 3].text == "+") {
          offset = l->tokens[i + 2].text;
        }
      }
    }
    std::string what =
        " Each box dimension must be at most 256 elements, the innermost box row "
        "a multiple of 16 B, every global stride a multiple of 16 B, and the "
        "global address 16-B aligned.";
    if (!box.empty()) what += " Box " + box + ": at most 256 for the largest tile and padding?";
    if (!strides.empty()) {
      what += " Strides " + strides +
              ": multiples of 16 B for every shape (N a multiple of 8 for 2-byte types)?";
    }
    if (!offset.empty()) what += " The base `" + offset + " + ...` must stay 16-B aligned.";
    if (!clamp.empty() && old_clamps > new_clamps) {
      what += " The old descriptor clamped a dimension (`" + clamp +
              "`) and the new one does not: is a box larger than the tensor (TMA clips it) what "
              "the shared-memory tile and the store expect?";
    }
    return OldToNew(run) + (function.empty() ? "" : " in " + function + "()") + "." + what +
           " A descriptor that breaks these fails at encode time, or silently clips at the edge: "
           "sweep shapes that are not multiples of the tile.";
  });
}

}  // namespace av
