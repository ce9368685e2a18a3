#include "review/file_review.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "review/rule_vocabulary.h"

namespace av {
namespace {

std::string_view o_line(const SourceOutline* o, int64_t n) {
  std::string_view raw = o->Line(n);
  return raw.size() > kMaxRuleLineBytes ? raw.substr(0, kMaxRuleLineBytes) : raw;
}

}  // namespace

FileReview::FileReview(std::vector<ReviewedFile>& files, size_t index, const DiffCounts& counts,
                       const ReviewOptions& options, std::vector<Finding>* out)
    : files_(files),
      index_(index),
      counts_(counts),
      code_(files[index].code),
      blocks_(files[index].blocks),
      options_(options),
      out_(out) {}

void FileReview::Run() {
  // Whole-diff counts first (moved code is silent), then per-block rules in precedence
  // order; a line is reported by one rule only. The order puts the specific question before
  // the generic one: a PDL load before "split-k combine", a named-barrier enum before
  // "softmax", a TMA descriptor's box before "bounds check", a clamp before "interface".
  Barriers();
  Atomics();
  Fallbacks();
  // A deleted file's lines are the whole file going away: only the counts above (which see
  // whether its barriers or fallbacks came back elsewhere) judge it.
  if (deleted()) return;
  if (added_file()) {
    // A new file has no old version to compare with: only what it declares and how it
    // synchronises are questions (resources, barriers, PDL, TMA, launch bounds); "did the
    // mask change" on every line of new code is noise.
    for (ChangeBlock& b : blocks_) {
      MemoryOrdering(b);
      NamedBarriers(b);
      Candidates(b);
      Smem(b);
      HostSmem(b);
      Tma(b);
      LaunchGrid(b);
    }
    return;
  }
  AddedFunctions();
  ZeroingRemoved();
  DefaultValuesChanged();
  TritonAutotuneInPlace();
  for (ChangeBlock& b : blocks_) {
    MemoryOrdering(b);
    NamedBarriers(b);
    DivergentCollectives(b);
    BarriersAdded(b);
    SpinWaits(b);
    PreprocessorConditions(b);
    Accumulators(b);
    Constants(b);
    TileTuples(b);
    Candidates(b);
    Smem(b);
    HostSmem(b);
    SmemLayout(b);
    Tma(b);
    HostDispatch(b);
    TritonAccesses(b);
    TritonBlockPointers(b);
    SwallowedErrors(b);
    EarlyReturns(b);
    Clamps(b);
    NegatedConditions(b);
    PythonConditions(b);
    Conditions(b);
    Guards(b);
    ComparisonsAndExits(b);
    Boundaries(b);
    LaunchGrid(b);
    BlockIndex(b);
    TritonProgramIds(b);
    ArchDispatch(b);
    CastsWithoutOperand(b);
    Widths(b);
    VectorizedAccesses(b);
    IndexOffsets(b);
    ChangedDefinitions(b);
    ChangedReturns(b);
    ChangedStrideArguments(b);
    CallArguments(b);
    ParametersInserted(b);
    PythonParametersInserted(b);
    Interface(b);
    Masks(b);
    CombineAndSoftmax(b);
  }
}

void FileReview::AddedFunctions() {
  const SourceOutline* head = Outline(true);
  const SourceOutline* base = Outline(false);
  if (head == nullptr || base == nullptr) return;
  std::set<std::string> old_names;
  for (const OutlineFunction& f : base->functions) old_names.insert(f.name);
  const std::set<int64_t> added = ChangedLines(true);
  // Head line ranges of functions added whole.
  std::vector<std::pair<int64_t, int64_t>> fresh;
  for (const OutlineFunction& f : head->functions) {
    if (f.name.empty() || old_names.count(f.name) || f.kind == FunctionKind::kUnknown) continue;
    bool whole = true;
    CommentStripper strip(code_.language);
    for (int64_t n = f.header_line; n <= f.close_line && whole; ++n) {
      whole = added.count(n) > 0 || strip.Strip(o_line(head, n)).empty();
    }
    if (whole) fresh.push_back({f.header_line, f.close_line});
  }
  if (fresh.empty()) return;
  for (ChangeBlock& b : blocks_) {
    ChangeBlock own;
    std::vector<CodeLine*> originals;
    for (CodeLine& l : b.added) {
      if (l.claimed) continue;
      for (const auto& [lo, hi] : fresh) {
        if (l.side_line() >= lo && l.side_line() <= hi) {
          own.added.push_back(l);
          originals.push_back(&l);
          break;
        }
      }
    }
    if (own.added.empty()) continue;
    // What an added file asks (Run): declarations and synchronisation, not "changed".
    MemoryOrdering(own);
    NamedBarriers(own);
    Candidates(own);
    Smem(own);
    HostSmem(own);
    Tma(own);
    LaunchGrid(own);
    for (CodeLine* l : originals) l->claimed = true;
  }
}

bool FileReview::Enabled(std::string_view rule) const {
  return std::find(options_.disabled_rules.begin(), options_.disabled_rules.end(), rule) ==
         options_.disabled_rules.end();
}

void FileReview::Report(std::string_view rule_id, std::vector<CodeLine*> lines,
                        const MessageFn& message) {
  if (lines.empty() || !Enabled(rule_id)) return;
  const RuleInfo* rule = FindRule(rule_id);
  // Base-side findings name the old file and its lines: the file is gone from head.
  const bool base_side = deleted();
  auto position = [&](const CodeLine* l) {
    return base_side ? l->line->old_line : l->line->anchor;
  };
  // New-side lines; a pure deletion is placed where it sat.
  const bool any_added =
      std::any_of(lines.begin(), lines.end(), [](const CodeLine* l) { return l->added; });
  std::vector<CodeLine*> placed;
  for (CodeLine* l : lines) {
    l->claimed = true;
    if (base_side || l->added || !any_added) placed.push_back(l);
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [&](const CodeLine* a, const CodeLine* b) { return position(a) < position(b); });
  // Runs no longer than kMaxFindingSpan lines each: a question about a 1000-line span has
  // no place a reader can look at.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const CodeLine* l : placed) {
    if (runs.empty() || position(l) - runs.back().first >= kMaxFindingSpan) {
      runs.push_back({position(l), position(l)});
    } else {
      runs.back().second = position(l);
    }
  }
  // Every line shows in the run it sits in: a removed line before the first added one goes
  // with the first run.
  auto run_of = [&](const CodeLine* l) {
    const int64_t at = base_side ? l->line->old_line : l->line->anchor;
    for (size_t r = 0; r < runs.size(); ++r) {
      if (at <= runs[r].second + (l->added ? 0 : 1)) return r;
    }
    return runs.size() - 1;
  };
  std::vector<Finding> made(runs.size());
  std::vector<int> old_lines(runs.size(), 0), new_lines(runs.size(), 0);
  for (size_t r = 0; r < runs.size(); ++r) {
    Finding& f = made[r];
    f.rule = std::string(rule->id);
    f.severity = rule->severity;
    f.component = code_.component;
    f.file = base_side ? code_.file->old_path : code_.file->path();
    f.side = base_side ? "base" : "head";
    f.checklist_item = gemm() && rule->gemm_item != 0 ? rule->gemm_item : rule->checklist_item;
    f.related_items = rule->related_items;
    if (f.checklist_item != rule->checklist_item) {
      std::replace(f.related_items.begin(), f.related_items.end(), f.checklist_item,
                   rule->checklist_item);
    }
    f.title = std::string(rule->title);
    f.verify = VerifyCommand(*rule, options_);
    f.line = runs[r].first;
    f.end_line = runs[r].second;
  }
  std::vector<std::vector<CodeLine*>> run_lines(runs.size());
  for (CodeLine* l : lines) {
    const size_t r = run_of(l);
    run_lines[r].push_back(l);
    Finding& f = made[r];
    if (f.function.empty()) f.function = l->function;
    std::string& side = l->added ? f.new_text : f.old_text;
    int& count = l->added ? new_lines[r] : old_lines[r];
    if (count < 6) {
      if (!side.empty()) side += '\n';
      side += Shorten(l->source, 200);
    }
    ++count;
  }
  for (size_t r = 0; r < made.size(); ++r) {
    made[r].message = message(run_lines[r]);
    out_->push_back(std::move(made[r]));
  }
}

std::string FileReview::Example(const std::vector<CodeLine*>& lines, bool added) const {
  for (const CodeLine* l : lines) {
    if (l->added == added) return "`" + Shorten(l->source, 100) + "`";
  }
  return "";
}

std::string FileReview::OldToNew(const std::vector<CodeLine*>& lines) const {
  std::string o = Example(lines, false), n = Example(lines, true);
  if (!o.empty() && !n.empty()) return o + " -> " + n;
  if (!o.empty()) return o + " removed";
  return n + " added";
}

std::string FileReview::InFunction(const std::vector<CodeLine*>& lines) const {
  for (const CodeLine* l : lines) {
    if (!l->function.empty()) return " in " + l->function + "()";
  }
  return "";
}

int64_t FileReview::FirstChangedLine(bool (*want)(const CodeLine&, bool python),
                                     int64_t* slot) const {
  if (*slot >= 0) return *slot;
  *slot = 0;
  for (const ChangeBlock& b : blocks_) {
    for (const auto* side : {&b.removed, &b.added}) {
      for (const CodeLine& l : *side) {
        if (*slot == 0 && want(l, python())) *slot = l.line->anchor;
      }
    }
  }
  return *slot;
}

KeyCounts CountKeys(const std::vector<ReviewedFile>& files,
                    std::vector<std::string> (*keys)(const CodeLine&)) {
  KeyCounts c;
  c.removed.resize(files.size());
  c.added.resize(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const FileStatus status = files[i].code.file->status;
    for (const ChangeBlock& b : files[i].blocks) {
      for (const CodeLine& l : b.removed) {
        for (const std::string& k : keys(l)) {
          ++c.removed[i][k];
          if (status == FileStatus::kDeleted) ++c.removed_in_deleted_files[k];
        }
      }
      for (const CodeLine& l : b.added) {
        for (const std::string& k : keys(l)) {
          ++c.added[i][k];
          if (status == FileStatus::kAdded) ++c.added_in_new_files[k];
        }
      }
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].code.file->status == FileStatus::kAdded) continue;
    for (const auto& [k, n] : c.removed[i]) {
      auto it = c.added[i].find(k);
      const int left = n - (it == c.added[i].end() ? 0 : it->second);
      if (left > 0) c.deficit[k] += left;
    }
  }
  for (auto& [k, n] : c.deficit) {
    auto it = c.added_in_new_files.find(k);
    if (it != c.added_in_new_files.end()) n -= it->second;
  }
  return c;
}

namespace {

size_t CommonSuffix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

// The same question, about different lines: the messages end alike.
bool SharesQuestion(const std::string& a, const std::string& b, std::string_view rule) {
  // A changed definition's message is its own (its value, its uses): never one question.
  if (rule == rule_id::kDefinition) return a == b;
  return a == b || CommonSuffix(a, b) >= 40;
}

// Two messages that ask the same question about different lines ("`a` added: Q" and
// "`b` added: Q") become "`a` added; `b` added: Q"; others are joined.
std::string MergedMessage(const std::string& a, const std::string& b) {
  const size_t common = CommonSuffix(a, b);
  if (common >= 40) {
    // Cut at the start of the shared question: a ':' or '.' followed by a space.
    size_t cut = a.size() - common;
    while (cut < a.size() &&
           !((a[cut] == ':' || a[cut] == '.') && cut + 1 < a.size() && a[cut + 1] == ' ')) {
      ++cut;
    }
    const size_t b_cut = b.size() - (a.size() - cut);
    if (cut < a.size() && b_cut <= b.size()) {
      return a.substr(0, cut) + "; " + b.substr(0, b_cut) + a.substr(cut);
    }
  }
  return a + " " + b;
}

// The message with the function's name and every number masked: the same fix made in two
// functions of one file (a kernel and its twin) asks the same question.
std::string MaskedMessage(const Finding& f) {
  std::string m = f.message;
  if (!f.function.empty()) {
    const std::string name = f.function + "()";
    for (size_t p = m.find(name); p != std::string::npos; p = m.find(name, p + 1)) {
      m.replace(p, name.size(), "F()");
    }
  }
  std::string out;
  for (char c : m) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += c;
    }
  }
  return out;
}

bool Twins(const Finding& a, const Finding& b) {
  return !a.function.empty() && !b.function.empty() && a.function != b.function &&
         a.file == b.file && MaskedMessage(a) == MaskedMessage(b);
}

// The same edit (the same lines before and after) with the same question, wherever it is:
// a fix repeated in functors the outline names no function for, or in several files.
bool SameEdit(const Finding& a, const Finding& b) {
  return a.rule == b.rule && (!a.old_text.empty() || !a.new_text.empty()) &&
         a.old_text == b.old_text && a.new_text == b.new_text &&
         MaskedMessage(a) == MaskedMessage(b);
}

}  // namespace

void MergeNearbyFindings(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    return a.line != b.line ? a.line < b.line : a.rule < b.rule;
  });
  std::vector<Finding> out;
  for (Finding& f : *findings) {
    bool merged = false;
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      const bool touching = f.line <= it->end_line + 1;
      const bool same_function_near = f.function == it->function &&
                                      f.line <= it->end_line + kMergeGap &&
                                      SharesQuestion(it->message, f.message, f.rule);
      if (it->rule == f.rule && (touching || same_function_near) &&
          std::max(it->end_line, f.end_line) - it->line < kMaxFindingSpan) {
        it->end_line = std::max(it->end_line, f.end_line);
        if (!f.old_text.empty()) it->old_text += (it->old_text.empty() ? "" : "\n") + f.old_text;
        if (!f.new_text.empty()) it->new_text += (it->new_text.empty() ? "" : "\n") + f.new_text;
        if (it->message != f.message && it->message.size() < 600) {
          it->message = MergedMessage(it->message, f.message);
        }
        if (f.severity == Severity::kError) it->severity = Severity::kError;
        merged = true;
        break;
      }
      if (it->end_line + kMergeGap < f.line) break;
    }
    if (!merged) out.push_back(std::move(f));
  }
  // One question asked again and again in one function (a rewrite's new kernel) is asked
  // once, with the other places listed.
  std::vector<Finding> consolidated;
  std::vector<bool> gone(out.size(), false);
  for (size_t i = 0; i < out.size(); ++i) {
    if (gone[i]) continue;
    std::vector<size_t> same;
    for (size_t j = i + 1; j < out.size(); ++j) {
      if (!gone[j] && out[j].rule == out[i].rule &&
          ((!out[i].function.empty() && out[j].function == out[i].function &&
            SharesQuestion(out[i].message, out[j].message, out[i].rule)) ||
           Twins(out[i], out[j]) || SameEdit(out[i], out[j]))) {
        same.push_back(j);
      }
    }
    if (!same.empty()) {
      std::string at;
      for (size_t k = 0; k < same.size(); ++k) {
        const Finding& o = out[same[k]];
        gone[same[k]] = true;
        if (k >= 12) continue;
        at += (at.empty() ? "" : ", ") + std::to_string(o.line);
        // The first few with the code they show.
        const std::string& text = o.new_text.empty() ? o.old_text : o.new_text;
        if (k < 4 && !text.empty())
          at += " (`" + Shorten(text.substr(0, text.find('\n')), 80) + "`)";
        if (o.function != out[i].function && !o.function.empty()) at += " in " + o.function + "()";
      }
      if (same.size() > 12) at += " and " + std::to_string(same.size() - 12) + " more";
      out[i].message += std::string(" The same question applies at line") +
                        (same.size() == 1 ? " " : "s ") + at + ".";
    }
    consolidated.push_back(std::move(out[i]));
  }
  *findings = std::move(consolidated);
}

void MergeSameEditsAcrossFiles(std::vector<Finding>* findings) {
  std::vector<bool> gone(findings->size(), false);
  for (size_t i = 0; i < findings->size(); ++i) {
    if (gone[i]) continue;
    Finding& f = (*findings)[i];
    std::string at;
    size_t count = 0;
    for (size_t j = i + 1; j < findings->size(); ++j) {
      const Finding& o = (*findings)[j];
      // Across files the lines changed decide: the question around them differs only by
      // the places each file lists.
      if (gone[j] || o.file == f.file || o.rule != f.rule || o.old_text != f.old_text ||
          o.new_text != f.new_text || (o.old_text.empty() && o.new_text.empty())) {
        continue;
      }
      gone[j] = true;
      if (++count <= 8) at += (at.empty() ? "" : ", ") + o.file + ":" + std::to_string(o.line);
    }
    if (count == 0) continue;
    if (count > 8) at += " and " + std::to_string(count - 8) + " more";
    f.message += " The same change is made at " + at + ".";
  }
  std::vector<Finding> kept;
  for (size_t i = 0; i < findings->size(); ++i) {
    if (!gone[i]) kept.push_back(std::move((*findings)[i]));
  }
  *findings = std::move(kept);
}

}  // namespace av
