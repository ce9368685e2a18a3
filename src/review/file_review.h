// The per-file half of the built-in reviewer (rules.cc drives it): one FileReview per code
// file runs the rules over that file's change blocks in precedence order, so each changed
// line is reported by one rule at most, with the whole diff in view for counts and
// cross-references (a host-side shared-memory size and the kernel's, a grid and the
// kernel's block index). Rule families live in rules_*.cc. Internal to review/; one
// thread per FileReview.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "findings/finding.h"
#include "review/change_blocks.h"
#include "review/rules.h"

namespace av {

// Rule ids (stable: [review] disable names them, reports and SARIF key on them).
namespace rule_id {
inline constexpr std::string_view kSmem = "smem.declaration_changed";
inline constexpr std::string_view kSmemHost = "smem.host_size_changed";
inline constexpr std::string_view kSmemLayout = "smem.layout_changed";
inline constexpr std::string_view kTile = "tile.constant_changed";
inline constexpr std::string_view kCandidates = "tile.candidates_changed";
inline constexpr std::string_view kSplit = "splitk.split_constant_changed";
inline constexpr std::string_view kGuard = "guard.bound_loosened";
inline constexpr std::string_view kClamp = "guard.clamp_added";
inline constexpr std::string_view kBoundary = "guard.boundary_changed";
inline constexpr std::string_view kEarlyReturn = "guard.early_return_added";
inline constexpr std::string_view kCondition = "guard.condition_changed";
inline constexpr std::string_view kDefinition = "value.definition_changed";
inline constexpr std::string_view kMask = "mask.expression_changed";
inline constexpr std::string_view kCombine = "splitk.combine_changed";
inline constexpr std::string_view kSoftmax = "softmax.stability_changed";
inline constexpr std::string_view kAtomic = "atomics.introduced";
inline constexpr std::string_view kBarrier = "sync.barrier_removed";
inline constexpr std::string_view kNamedBarrier = "sync.named_barrier_changed";
inline constexpr std::string_view kBarrierAdded = "sync.barrier_added";
inline constexpr std::string_view kWidth = "arith.width_changed";
inline constexpr std::string_view kOrdering = "sync.memory_ordering_changed";
inline constexpr std::string_view kAccum = "accum.dtype_narrowed";
inline constexpr std::string_view kAccumWidened = "accum.dtype_widened";
inline constexpr std::string_view kFallback = "fallback.switch_removed";
inline constexpr std::string_view kInterface = "kernel.interface_changed";
inline constexpr std::string_view kGrid = "launch.grid_changed";
inline constexpr std::string_view kBlockIndex = "launch.block_index_remapped";
inline constexpr std::string_view kTma = "tma.descriptor_changed";
inline constexpr std::string_view kConfig = "package.config_changed";
inline constexpr std::string_view kPreprocessor = "preprocessor.condition_changed";
inline constexpr std::string_view kArchDispatch = "arch.dispatch_changed";
inline constexpr std::string_view kCallArgument = "call.argument_changed";
inline constexpr std::string_view kParameterInserted = "call.parameter_inserted";
inline constexpr std::string_view kIndexOffset = "index.offset_added";
inline constexpr std::string_view kSiblings = "change.siblings_unchanged";
inline constexpr std::string_view kTestsReduced = "tests.coverage_reduced";
inline constexpr std::string_view kCollective = "sync.collective_divergent";
inline constexpr std::string_view kTritonMask = "triton.access_mask_changed";
inline constexpr std::string_view kSwallowed = "fallback.error_swallowed";
inline constexpr std::string_view kTritonBlockPtr = "triton.block_ptr_changed";
inline constexpr std::string_view kZeroing = "buffer.zeroing_removed";
inline constexpr std::string_view kTritonAutotune = "triton.autotune_in_place";
inline constexpr std::string_view kVectorAccess = "memory.vectorized_access";
}  // namespace rule_id

// A code file under review with its change blocks.
struct ReviewedFile {
  ReviewCodeFile code;
  std::vector<ChangeBlock> blocks;
};

// Uses of a counted key (a barrier, an atomic, a fallback flag) across the diff: per file,
// and what added files add and deleted files remove (code that moved to a new file).
struct KeyCounts {
  std::vector<std::map<std::string, int>> removed, added;  // per file
  std::map<std::string, int> added_in_new_files, removed_in_deleted_files;
  // Per key: removals in files other than added ones that nothing added back (per file the
  // removed count above the added one), less what new files add.
  std::map<std::string, int> deficit;
};
KeyCounts CountKeys(const std::vector<ReviewedFile>& files,
                    std::vector<std::string> (*keys)(const CodeLine&));

// The counts every FileReview of one review shares (computed once: linear in the diff).
struct DiffCounts {
  KeyCounts barriers, atomics, fallbacks;
};
DiffCounts CountDiff(const std::vector<ReviewedFile>& files);

class FileReview {
 public:
  FileReview(std::vector<ReviewedFile>& files, size_t index, const DiffCounts& counts,
             const ReviewOptions& options, std::vector<Finding>* out);
  void Run();
  // rules_tests_changed.cc: a test file's change, for what it no longer checks (the code
  // rules never read test files).
  void RunTests();
  // rules_sibling_sites.cc: an edit made at one line while unchanged lines of the file still
  // read the old form. Runs after Run() and MergeNearbyFindings over this file's `merged`
  // findings: the question joins the finding of that line, or is a finding of its own.
  void SiblingSites(std::vector<Finding>* merged);
  // rules_collectives.cc, after the rules too: with a barrier added, the file's other
  // kernels that return early for some threads before a barrier, named on its finding.
  void ReturnsBeforeBarriers(std::vector<Finding>* merged);

 private:
  // rules_sibling_sites.cc: a default or keyword value changed while other places of the
  // diff's files still give the name the old value. Runs with the block rules.
  void DefaultValuesChanged();
  // rules_sync.cc
  void Barriers();
  void Atomics();
  void Fallbacks();
  void MemoryOrdering(ChangeBlock& b);
  void NamedBarriers(ChangeBlock& b);
  void BarriersAdded(ChangeBlock& b);
  // rules_values.cc
  void WidenedDtypes(ChangeBlock& b);
  void Accumulators(ChangeBlock& b);
  void Constants(ChangeBlock& b);
  void TemplateArguments(ChangeBlock& b, std::vector<CodeLine*>* lines, std::string* what);
  long long NamedIntValue(const std::string& name) const;
  void Candidates(ChangeBlock& b);
  void Smem(ChangeBlock& b);
  void HostSmem(ChangeBlock& b);
  void SmemLayout(ChangeBlock& b);
  // rules_guards.cc
  void Guards(ChangeBlock& b);
  // Every comparison of removed guard line `r` is made again, with the same operator and
  // bound, by an added guard line of the same function (a bound moved, not removed).
  bool BoundTestedAgain(const CodeLine& r) const;
  // GuardStrength of one line, counting the comparisons of a guard's continuation lines.
  int StatementGuardStrength(const CodeLine& l) const;
  void Clamps(ChangeBlock& b);
  void EarlyReturns(ChangeBlock& b);
  void Boundaries(ChangeBlock& b);
  // rules_widths.cc: arith.width_changed.
  void Widths(ChangeBlock& b);
  void CastsWithoutOperand(ChangeBlock& b);
  // rules_condition_changed.cc
  // Conditions() runs these steps in turn.
  void Conditions(ChangeBlock& b);
  void RemovedAssertions(ChangeBlock& b);
  void MovedClamps(ChangeBlock& b);
  void ChangedBranchConditions(ChangeBlock& b);
  void ComparisonsAndExits(ChangeBlock& b);
  void NegatedConditions(ChangeBlock& b);
  // rules_python_conditions.cc: a Python `if`/`elif`/`while` whose bound test changed.
  void PythonConditions(ChangeBlock& b);
  // rules_definition_changed.cc
  void ChangedDefinitions(ChangeBlock& b);
  // t[from, to) with each name a local the diff declares in `at`'s function as a plain sum or
  // product, written out as that value; empty when no name was replaced.
  std::vector<Token> InlineNewLocals(const std::vector<Token>& t, size_t from, size_t to,
                                     const CodeLine& at);
  // rules_sync.cc
  void SpinWaits(ChangeBlock& b);
  // rules_triton_programs.cc: Triton program ids remapped, block pointers changed.
  void TritonProgramIds(ChangeBlock& b);
  void TritonBlockPointers(ChangeBlock& b);
  // rules_vector_access.cc: an access through a vector type the diff adds.
  void VectorizedAccesses(ChangeBlock& b);
  // rules_triton_autotune.cc: an autotuned kernel that writes what it reads.
  void TritonAutotuneInPlace();
  // rules_zeroing.cc: a buffer no longer zeroed (zeros -> empty, a memset removed).
  void ZeroingRemoved();
  // rules_swallowed_errors.cc: a catch-everything handler added that goes on.
  void SwallowedErrors(ChangeBlock& b);
  // rules_triton_access.cc: the mask, other, boundary check of a Triton load or store.
  void TritonAccesses(ChangeBlock& b);
  mutable bool triton_checked_ = false, triton_ = false;
  // rules_collectives.cc: a warp or block collective where lanes of one warp can diverge.
  void DivergentCollectives(ChangeBlock& b);
  // Per function (its body's first line): each definition of a name, in order, and whether
  // it reads the lane.
  struct LaneDef {
    int64_t line;
    std::string name;
    bool lane;
  };
  std::map<int64_t, std::vector<LaneDef>> lane_defs_;
  static bool LaneDefined(const std::vector<LaneDef>& defs, const std::string& name,
                          int64_t line);
  // The whole head file still names `key` as a token (a fallback switch not gone).
  bool HeadStillTests(const std::string& key) const;
  // A name the removed line reads (right of its `=`, not a callee) that the whole head file
  // no longer names; "" when every one is still there or the head file was not read.
  std::string NameGoneFromHead(const CodeLine& r) const;
  // The whole statement a line belongs to on its side (several lines when it is split),
  // from the whole file when read, else from the block's lines.
  struct Statement {
    std::string code;
    std::vector<Token> tokens;
    int64_t first = 0, last = 0;  // side lines
  };
  Statement StatementAround(const CodeLine& l) const;
  // The line is a statement by itself on its side (not a piece of one split over lines).
  bool WholeStatement(const CodeLine& l) const;
  // rules_condition_changed.cc: the first barrier and early exit of the branch a changed
  // condition guards, and the question for a bound replaced in a comparison.
  void BranchBarrierAndExit(const Statement& now, std::string* barrier, std::string* exit) const;
  std::string BoundQuestion(const CodeLine& a, const Statement& now, const std::string& dropped,
                            const std::string& added) const;
  // Side lines of this file's added (or removed) lines.
  std::set<int64_t> ChangedLines(bool added) const;
  // Unchanged head lines that use `name` (not its declaration): in the function around `l`
  // (the whole file when `l` is not in a function), outside the statement `own`; those after
  // it first, then (unless `after_only`) those before; "N (`code`), ...".
  std::string UnchangedUses(const CodeLine& l, const std::string& name, const Statement& own,
                            size_t limit, bool after_only) const;
  // Unchanged head lines of the whole file, outside `own`, whose tokens `want` accepts:
  // "N (`code`), ..." (at most `limit`).
  std::string UnchangedFileLines(const std::function<bool(const std::vector<Token>&)>& want,
                                 const Statement& own, size_t limit) const;
  // rules_definition_changed.cc: a changed `return` value (a predicate's test, an offset's
  // arithmetic), with the callers and the sibling computations that still read the old way.
  void ChangedReturns(ChangeBlock& b);
  // An argument list that now passes other strides (a tensor described with a new layout).
  void ChangedStrideArguments(ChangeBlock& b);
  // rules_kernel.cc
  void Interface(ChangeBlock& b);
  void LaunchGrid(ChangeBlock& b);
  void BlockIndex(ChangeBlock& b);
  void Tma(ChangeBlock& b);
  // rules_build_gates.cc: `#if` conditions gating code, Python choosing by arch, tile
  // tuples a tile-size function returns.
  void PreprocessorConditions(ChangeBlock& b);
  void ArchDispatch(ChangeBlock& b);
  void TileTuples(ChangeBlock& b);
  // A host function's branch whose body only returns a variant: asked as a dispatch.
  void HostDispatch(ChangeBlock& b);
  // Lines of functions the diff adds whole (no function of that name in the base file):
  // asked like an added file's lines.
  void AddedFunctions();
  // rules_call_sites.cc: an argument replaced or swapped at a call, a parameter inserted
  // mid-list (every positional call shifts), an offset added inside a subscript.
  void CallArguments(ChangeBlock& b);
  void ParametersInserted(ChangeBlock& b);
  // rules_python_params.cc: the same for a Python `def` (a Triton kernel, a host wrapper).
  void PythonParametersInserted(ChangeBlock& b);
  std::set<std::string> python_defs_done_;
  void IndexOffsets(ChangeBlock& b);
  // rules_tests_changed.cc
  void TestTolerances(ChangeBlock& b);
  void TestCases(ChangeBlock& b);
  void TestSkips(ChangeBlock& b);
  void TestCasesEdited();
  bool InNewTest(const CodeLine& a) const;
  std::string Where(const std::vector<CodeLine*>& lines) const;
  void TestAssertionsRemoved();
  std::vector<std::pair<CodeLine*, CodeLine*>> edited_cases_;  // removed, added
  // rules_attention.cc
  void Masks(ChangeBlock& b);
  void CombineAndSoftmax(ChangeBlock& b);

  // file_review.cc: shared helpers.
  bool Enabled(std::string_view rule) const;
  // One finding per run of `lines` no longer than kMaxFindingSpan (lines are claimed); the
  // message of each is built from the lines of its run.
  using MessageFn = std::function<std::string(const std::vector<CodeLine*>& run)>;
  void Report(std::string_view rule_id, std::vector<CodeLine*> lines, const MessageFn& message);
  void Report(std::string_view rule_id, std::vector<CodeLine*> lines, const std::string& message) {
    Report(rule_id, std::move(lines), [&](const std::vector<CodeLine*>&) { return message; });
  }
  std::string Example(const std::vector<CodeLine*>& lines, bool added) const;
  std::string OldToNew(const std::vector<CodeLine*>& lines) const;
  // " in NAME()" for the function the lines sit in, when known.
  std::string InFunction(const std::vector<CodeLine*>& lines) const;
  // The whole file on the lines' side, or null.
  const SourceOutline* Outline(bool head) const { return head ? code_.head : code_.base; }
  // Lines of the function around `l` (on its side) whose comment-free code satisfies
  // `want`; at most `limit`, the line itself excluded.
  template <typename Pred>
  std::vector<int64_t> FunctionLinesWhere(const CodeLine& l, Pred want, size_t limit) const;
  bool cpp() const { return code_.language == SourceLanguage::kCpp; }
  bool python() const { return code_.language == SourceLanguage::kPython; }
  bool gemm() const { return code_.kind.gemm; }
  ComponentKind kind() const { return code_.kind.kind; }
  bool deleted() const { return code_.file->status == FileStatus::kDeleted; }
  bool added_file() const { return code_.file->status == FileStatus::kAdded; }
  // Where another file of the diff changes a line satisfying `want`: "path:line", or "".
  template <typename Pred>
  std::string ElsewhereInDiff(Pred want) const;
  // The first changed line of this file satisfying `want`, or 0 (memoised by `slot`).
  int64_t FirstChangedLine(bool (*want)(const CodeLine&, bool python), int64_t* slot) const;

  std::vector<ReviewedFile>& files_;
  size_t index_;
  const DiffCounts& counts_;
  mutable int64_t first_launch_line_ = -1, first_remap_line_ = -1;
  // The changed lines of each side (removed, added) by line number, for StatementAround
  // when the file was not read: built once, not once per statement (which made a diff-only
  // review quadratic in its size).
  const std::map<int64_t, const std::string*>& SideLines(bool added) const;
  mutable std::map<int64_t, const std::string*> side_lines_[2];
  mutable bool side_lines_built_[2] = {false, false};
  // The whole file on one side, each line's code (comments stripped, a `/* */` carried across
  // lines; its first kMaxRuleLineBytes) and tokens, built once: index n is line n, index 0 is
  // unused. Empty when the file was not read. The rules that read the whole file share it.
  struct FileLine {
    std::string code;
    std::vector<Token> tokens;
  };
  const std::vector<FileLine>& WholeFile(bool head) const;
  mutable std::vector<FileLine> whole_file_[2];
  mutable bool whole_file_built_[2] = {false, false};
  // Every token of the whole head file's code, built once (NameGoneFromHead).
  mutable std::set<std::string> head_names_;
  mutable bool head_names_built_ = false;
  // Python: the bracket depth at the start of each line of the whole file, per side (base,
  // head), built once (WholeStatement).
  mutable std::vector<int> bracket_depth_[2];
  const ReviewCodeFile& code_;
  std::vector<ChangeBlock>& blocks_;
  const ReviewOptions& options_;
  std::vector<Finding>* out_;
};

// rules_guards.cc: the comparisons of a Python line that order two values that vary
// (`start < end`), not a value against a literal (`n_groups <= 0`, `len(x) > 0`).
int PythonBounds(const CodeLine& l);

// rules_call_sites.cc: " The call at line 12 is not changed by this diff: ... Calls changed
// with it: lines 30, 41." for a signature's calls ("N, M" lists; `call` names them).
std::string CallsOfChangedSignature(const std::string& unchanged_calls,
                                    const std::string& changed_calls, const std::string& call);

// Findings of one rule on touching lines, or in one function a few lines apart, become one
// (never spanning more than kMaxFindingSpan lines).
void MergeNearbyFindings(std::vector<Finding>* findings);

// The same edit with the same question in several files (a fix applied file by file): asked
// once, at its first place, naming the others. Over the findings of a whole review.
void MergeSameEditsAcrossFiles(std::vector<Finding>* findings);

inline constexpr int64_t kMaxFindingSpan = 40;
inline constexpr int64_t kMergeGap = 12;

// ---- templates ---------------------------------------------------------------------------

template <typename Pred>
std::vector<int64_t> FileReview::FunctionLinesWhere(const CodeLine& l, Pred want,
                                                    size_t limit) const {
  std::vector<int64_t> found;
  const SourceOutline* o = Outline(l.added);
  if (o == nullptr) return found;
  const OutlineFunction* f = o->FunctionAt(l.side_line());
  if (f == nullptr) return found;
  CommentStripper strip(code_.language);
  for (int64_t n = f->header_line; n <= f->close_line && found.size() < limit; ++n) {
    std::string_view raw = o->Line(n);
    if (raw.size() > kMaxRuleLineBytes) raw = raw.substr(0, kMaxRuleLineBytes);
    const std::string code = strip.Strip(raw);
    if (n == l.side_line() || code.empty()) continue;
    if (want(code, Tokenize(code))) found.push_back(n);
  }
  return found;
}

template <typename Pred>
std::string FileReview::ElsewhereInDiff(Pred want) const {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (i == index_) continue;
    for (const ChangeBlock& b : files_[i].blocks) {
      for (const auto* side : {&b.added, &b.removed}) {
        for (const CodeLine& l : *side) {
          if (want(l, files_[i].code)) {
            return files_[i].code.file->path() + ":" + std::to_string(l.line->anchor);
          }
        }
      }
    }
  }
  return "";
}

}  // namespace av
