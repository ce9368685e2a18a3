#include "compile/ptxas_log.h"

#include <deque>
#include <map>

#include "compile/demangle.h"
#include "compile/ptxas_line.h"

namespace av {
namespace {

// The attribution state. ptxas prints each block as
//   Compiling entry function 'K' for 'sm_X'   (names K and arch)
//   Function properties for K                 (names K)
//       N bytes stack frame, ...              (anonymous)
//   Used N registers, ...                     (anonymous)
//   Compile time = T ms                       (anonymous)
// Parallel builds interleave blocks; anonymous lines go to the oldest block waiting for
// that kind of line (each process writes its lines in order, so arrival order is the
// best evidence there is), and the report says when that guess was needed.
class Parser {
 public:
  explicit Parser(std::string_view source) { report_.source = std::string(source); }

  void Line(std::string_view raw, int number, bool last_without_newline);
  PtxasReport Finish();

 private:
  // Past kMaxDiagnosticsPerKind of one kind (overflows excepted: one per kernel) the
  // diagnostic is only counted, so that memory stays a small multiple of the log.
  PtxasDiagnostic& Diagnose(Severity sev, std::string kind, std::string tool, std::string message,
                            int line) {
    int& seen = per_kind_[kind];
    bool overflow = kind == "smem_overflow" || kind == "resource_overflow";
    if (++seen > kMaxDiagnosticsPerKind && !overflow) {
      ++report_.suppressed_diagnostics;
      if (sev == Severity::kError) ++report_.suppressed_errors;
      dropped_ = PtxasDiagnostic();
      return dropped_;
    }
    PtxasDiagnostic d;
    d.severity = sev;
    d.kind = std::move(kind);
    d.tool = std::move(tool);
    d.message = std::move(message);
    d.log_line = line;
    report_.diagnostics.push_back(std::move(d));
    return report_.diagnostics.back();
  }
  // Pops the oldest waiting block; notes interleaving when several were waiting.
  int PopOldest(std::deque<int>* q, int line) {
    if (q->empty()) return -1;
    if (q->size() > 1) {
      ++ambiguous_;
      if (first_ambiguous_line_ == 0) first_ambiguous_line_ = line;
    }
    int k = q->front();
    q->pop_front();
    return k;
  }
  // Both return false when the line was not fully understood (a cut last line).
  bool HandlePtxas(const PtxasLine& pl, int number, bool last_without_newline);
  bool HandleUsed(std::string_view items, int number, bool last_without_newline);
  void ResolveOverflowArchs();

  PtxasReport report_;
  std::deque<int> awaiting_props_, awaiting_stack_, awaiting_used_, awaiting_time_;
  std::map<std::string, int> register_option_;  // name -> maxrregcount, until its block
  int64_t module_gmem_ = -1;
  std::string last_arch_;
  bool in_compiler_context_ = false;  // lines after "file(3): error: ..." echo the source
  int ambiguous_ = 0;
  int first_ambiguous_line_ = 0;
  int last_ptxas_error_line_ = 0;
  std::map<std::string, int> per_kind_;
  PtxasDiagnostic dropped_;  // where a suppressed diagnostic is written
};

bool Parser::HandleUsed(std::string_view items, int number, bool last_without_newline) {
  UsedLine used;
  bool understood = ParseUsedItems(items, &used);
  if (!understood && used.bad_items.empty()) {
    Diagnose(Severity::kWarning, "unknown_line", "ptxas",
             "unrecognized item in a 'Used' line: " + std::string(items.substr(0, 200)), number);
  }
  // A cut last line ("Used 4") leaves its block open: the log is truncated there.
  if (used.registers < 0 && used.bad_items.empty() && last_without_newline) return false;
  // Every other Used line closes the oldest open block, whatever it says, so that a line
  // we cannot read never shifts the lines after it onto other kernels.
  int k = PopOldest(&awaiting_used_, number);
  if (k < 0) {
    Diagnose(Severity::kWarning, "unknown_line", "ptxas",
             "'Used' line with no 'Compiling entry function' before it", number);
    return understood;
  }
  PtxasKernel& kernel = report_.kernels[k];
  kernel.complete = true;
  awaiting_time_.push_back(k);
  if (used.registers < 0 || !used.bad_items.empty()) {
    std::string what = used.bad_items.empty()
                           ? "no register count"
                           : "a count no ptxas prints (\"" + used.bad_items.front() + "\")";
    PtxasDiagnostic& d = Diagnose(Severity::kError, "bad_count", "attnverify",
                                  "the 'Used' line of " + kernel.demangled + " for " + kernel.arch +
                                      " has " + what + ": its resources are unknown",
                                  number);
    d.function = kernel.mangled;
    d.arch = kernel.arch;
    kernel.bad_count = true;
    return true;
  }
  kernel.registers = used.registers;
  kernel.barriers = used.barriers;
  if (used.cumulative_stack_bytes >= 0) kernel.cumulative_stack_bytes = used.cumulative_stack_bytes;
  kernel.smem_bytes = used.smem_bytes >= 0 ? used.smem_bytes : 0;
  kernel.cmem = used.cmem;
  return understood;
}

bool Parser::HandlePtxas(const PtxasLine& pl, int number, bool last_without_newline) {
  std::string_view p = pl.payload;
  if (pl.level == PtxasLevel::kInfo) {
    CompilingEntry entry;
    if (ParseCompilingEntry(p, &entry)) {
      PtxasKernel k;
      k.mangled = std::string(entry.name);
      k.demangled = DemangleKernelName(entry.name);
      k.arch = std::string(entry.arch);
      k.line = number;
      k.gmem_bytes = module_gmem_;
      auto opt = register_option_.find(k.mangled);
      if (opt != register_option_.end()) {
        k.max_registers_option = opt->second;
        register_option_.erase(opt);
      }
      last_arch_ = k.arch;
      int index = static_cast<int>(report_.kernels.size());
      report_.kernels.push_back(std::move(k));
      awaiting_props_.push_back(index);
      awaiting_used_.push_back(index);
      return true;
    }
    std::string_view name;
    if (ParseFunctionProperties(p, &name)) {
      for (auto it = awaiting_props_.begin(); it != awaiting_props_.end(); ++it) {
        if (report_.kernels[*it].mangled == name) {
          awaiting_stack_.push_back(*it);
          awaiting_props_.erase(it);
          return true;
        }
      }
      PtxasKernel d;  // a device function (not inlined): stack and spills only
      d.is_entry = false;
      d.mangled = std::string(name);
      d.demangled = DemangleKernelName(name);
      d.arch = last_arch_;
      d.line = number;
      awaiting_stack_.push_back(static_cast<int>(report_.kernels.size()));
      report_.kernels.push_back(std::move(d));
      return true;
    }
    std::string_view items;
    if (ConsumeUsedPrefix(p, &items)) return HandleUsed(items, number, last_without_newline);
    double ms = 0;
    if (ParseCompileTime(p, &ms)) {
      int k = PopOldest(&awaiting_time_, number);
      if (k >= 0 && ms >= 0) report_.kernels[k].compile_time_ms = ms;
      return true;
    }
    RegisterOverride ro;
    if (ParseRegisterOverride(p, &ro)) {
      register_option_[std::string(ro.name)] = ro.limit;
      return true;
    }
    UsedLine module;
    if (ParseModuleLine(p, &module)) {
      module_gmem_ = module.gmem_bytes >= 0 ? module.gmem_bytes : 0;
      return true;
    }
    Diagnose(Severity::kWarning, "unknown_line", "ptxas",
             "unrecognized ptxas info: " + std::string(p.substr(0, 200)), number);
    return false;
  }
  // Errors and warnings.
  bool is_error = pl.level != PtxasLevel::kWarning;
  Severity sev = is_error ? Severity::kError : Severity::kWarning;
  if (is_error) last_ptxas_error_line_ = number;
  PtxasDiagnostic& d =
      Diagnose(sev, is_error ? "ptxas_error" : "ptxas_warning", "ptxas", std::string(p), number);
  d.source_file = std::string(pl.file);
  d.source_line = pl.file_line;
  SmemOverflow of;
  SpillWarning sw;
  if (ParseOverflow(p, &of)) {
    d.kind = of.what == "shared" ? "smem_overflow" : "resource_overflow";
    d.function = std::string(of.name);
    d.bytes = of.bytes;
    d.max_bytes = of.max_bytes;
  } else if (ParseSpillWarning(p, &sw)) {
    d.kind = "register_spill";
    d.function = std::string(sw.name);
    d.bytes = sw.stores + sw.loads;
  } else if (ParseLocalMemoryWarning(p, &sw)) {
    d.kind = "local_memory";
    d.function = std::string(sw.name);
    d.bytes = sw.stores;
  } else {
    if (p.find("register") != std::string_view::npos ||
        p.find("maxrregcount") != std::string_view::npos) {
      d.kind = "register_limit";
    }
    d.function = std::string(FirstQuoted(p));
  }
  return true;
}

void Parser::Line(std::string_view raw, int number, bool last_without_newline) {
  std::string_view line = raw;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  line = StripTimestamp(line);
  ++report_.total_lines;
  bool known = true;
  PtxasLine pl;
  CompilerMessage cm;
  if (TrimSpaces(line).empty()) {
    in_compiler_context_ = false;
  } else if (ParsePtxasLine(line, &pl)) {
    in_compiler_context_ = false;
    if (!HandlePtxas(pl, number, last_without_newline) && last_without_newline) {
      report_.truncated = true;
      Diagnose(Severity::kWarning, "truncated", "attnverify",
               "the log ends in the middle of a line: " + std::string(line.substr(0, 200)), number);
    }
  } else if (StackLine st; ParseStackLine(line, &st)) {
    int k = PopOldest(&awaiting_stack_, number);
    if (k < 0) {
      Diagnose(Severity::kWarning, "unknown_line", "ptxas",
               "stack-frame line with no 'Function properties' before it", number);
    } else {
      PtxasKernel& kernel = report_.kernels[k];
      kernel.stack_frame_bytes = st.stack_frame;
      kernel.spill_store_bytes = st.spill_stores;
      kernel.spill_load_bytes = st.spill_loads;
      if (st.bad) {
        PtxasDiagnostic& d =
            Diagnose(Severity::kError, "bad_count", "attnverify",
                     "the stack-frame line of " + kernel.demangled +
                         (kernel.arch.empty() ? "" : " for " + kernel.arch) +
                         " has a count no ptxas prints: its stack and spills are unknown",
                     number);
        d.function = kernel.mangled;
        d.arch = kernel.arch;
        kernel.bad_count = true;
      }
    }
  } else if (ParseCompilerMessage(line, &cm)) {
    in_compiler_context_ = true;
    bool err = cm.severity == Severity::kError;
    PtxasDiagnostic& d =
        Diagnose(cm.severity,
                 std::string(cm.file.empty() ? (err ? "nvcc_error" : "nvcc_warning")
                                             : (err ? "compile_error" : "compile_warning")),
                 std::string(cm.tool), std::string(cm.message), number);
    d.source_file = std::string(cm.file);
    d.source_line = cm.line;
    if (cm.severity == Severity::kNote) d.kind = "note";
  } else if (line.find("too many resources requested for launch") != std::string_view::npos) {
    Diagnose(Severity::kError, "launch_out_of_resources", "runtime",
             std::string(TrimSpaces(line).substr(0, 400)), number);
  } else if (IsErrorSummary(line) || in_compiler_context_) {
    // "1 error detected in the compilation of ..." or the echoed source and caret.
  } else {
    known = false;
  }
  if (known) {
    ++report_.recognized_lines;
    return;
  }
  if (last_without_newline) {
    report_.truncated = true;
    Diagnose(Severity::kWarning, "truncated", "attnverify",
             "the log ends in the middle of a line: " + std::string(line.substr(0, 200)), number);
    return;
  }
  ++report_.unknown_lines;
  if (report_.unknown_lines <= kMaxUnknownLineWarnings) {
    Diagnose(Severity::kNote, "unknown_line", "attnverify",
             "not a compiler line: " + std::string(line.substr(0, 200)), number);
  }
}

// ptxas reports "uses too much shared data" before the block of that entry and without
// the arch: match it to the block with that name and exactly those static bytes, else
// to the first later block with that name.
void Parser::ResolveOverflowArchs() {
  std::vector<bool> claimed(report_.kernels.size(), false);
  for (PtxasDiagnostic& d : report_.diagnostics) {
    if (d.kind != "smem_overflow" && d.kind != "resource_overflow") continue;
    int best = -1;
    for (size_t i = 0; i < report_.kernels.size(); ++i) {
      const PtxasKernel& k = report_.kernels[i];
      if (claimed[i] || !k.is_entry || k.mangled != d.function) continue;
      bool bytes_match = d.kind == "smem_overflow" && k.smem_bytes == d.bytes;
      if (bytes_match) {
        best = static_cast<int>(i);
        break;
      }
      if (best < 0 && k.line > d.log_line) best = static_cast<int>(i);
    }
    if (best >= 0) {
      claimed[best] = true;
      d.arch = report_.kernels[best].arch;
    }
  }
}

PtxasReport Parser::Finish() {
  for (int k : awaiting_used_) {
    const PtxasKernel& kernel = report_.kernels[k];
    bool after_error = last_ptxas_error_line_ > kernel.line;
    if (!after_error) report_.truncated = true;
    Diagnose(after_error ? Severity::kNote : Severity::kWarning,
             after_error ? "incomplete" : "truncated", "attnverify",
             "the block of " + kernel.demangled + " for " + kernel.arch + " (line " +
                 std::to_string(kernel.line) + ") has no 'Used N registers' line" +
                 (after_error ? " (ptxas stopped after an error)" : ": the log is truncated"),
             kernel.line);
  }
  if (ambiguous_ > 0) {
    Diagnose(Severity::kWarning, "interleaved", "attnverify",
             "output of parallel compiles is interleaved: " + std::to_string(ambiguous_) +
                 " anonymous lines were given to the oldest waiting block (first at line " +
                 std::to_string(first_ambiguous_line_) + ")",
             first_ambiguous_line_);
  }
  ResolveOverflowArchs();
  for (const auto& [kind, n] : per_kind_) {
    if (n <= kMaxDiagnosticsPerKind || kind == "smem_overflow" || kind == "resource_overflow")
      continue;
    PtxasDiagnostic d;
    d.severity = Severity::kNote;
    d.kind = "suppressed";
    d.tool = "attnverify";
    d.message = std::to_string(n - kMaxDiagnosticsPerKind) + " more \"" + kind +
                "\" diagnostics are counted but not listed";
    report_.diagnostics.push_back(std::move(d));
  }
  return std::move(report_);
}

}  // namespace

int PtxasReport::CountErrors() const {
  int n = suppressed_errors;
  for (const auto& d : diagnostics) n += d.severity == Severity::kError;
  return n;
}

std::vector<const PtxasKernel*> PtxasReport::EntryKernels() const {
  std::vector<const PtxasKernel*> out;
  for (const auto& k : kernels) {
    if (k.is_entry) out.push_back(&k);
  }
  return out;
}

Result<PtxasReport> ParsePtxasLog(std::string_view text, std::string_view source) {
  if (text.size() > kMaxPtxasLogBytes) {
    return InvalidInput(std::string(source) + ": log of " + std::to_string(text.size()) +
                        " bytes is over the " + std::to_string(kMaxPtxasLogBytes) + "-byte limit");
  }
  Parser parser(source);
  // Lines end in "\n", "\r\n" or a lone "\r" (old Mac tools, progress output): a log
  // written with CR only is as readable as any other.
  int number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    bool last = end == std::string_view::npos;
    std::string_view line = text.substr(pos, last ? std::string_view::npos : end - pos);
    parser.Line(line, ++number, last);
    if (last) break;
    pos = end + 1;
    if (text[end] == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
  }
  return parser.Finish();
}

}  // namespace av
