#include "review/change_blocks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <set>
#include <unordered_map>

#include "review/renames.h"

namespace av {
namespace {

// Tracks the enclosing function along one side of a hunk when the whole file is not known.
class FunctionTracker {
 public:
  FunctionTracker(SourceLanguage language, const std::string& section) : language_(language) {
    std::vector<Token> t = Tokenize(section);
    if (language_ == SourceLanguage::kPython) {
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (t[i].text == "def" && t[i + 1].kind == TokenKind::kIdentifier) {
          name_ = t[i + 1].text;
          indent_ = 0;
          break;
        }
      }
    } else if (language_ == SourceLanguage::kCpp) {
      // git's section line starts at column 0: "name(" there is a signature.
      name_ = SignatureName(t, section, /*allow_bare_name=*/true);
      if (!name_.empty()) {
        depth_ = 1;  // the hunk starts inside the body git named
        opened_ = true;
        kernel_ = section.find("__global__") != std::string::npos;
      }
    }
  }

  void Feed(std::string_view raw, const std::string& code, const std::vector<Token>& tokens) {
    if (code.empty()) return;
    if (language_ == SourceLanguage::kPython) {
      int indent = IndentOf(raw);
      if (!name_.empty() && indent <= indent_) name_.clear();
      size_t k = tokens.size() >= 3 && tokens[0].text == "async" ? 1 : 0;
      if (tokens.size() >= k + 2 && tokens[k].text == "def" &&
          tokens[k + 1].kind == TokenKind::kIdentifier) {
        name_ = tokens[k + 1].text;
        indent_ = indent;
      }
      return;
    }
    if (language_ != SourceLanguage::kCpp) return;
    if (code.find("__global__") != std::string::npos) in_kernel_signature_ = kernel_ = true;
    std::string sig = SignatureName(tokens, code, /*allow_bare_name=*/false);
    if (!sig.empty() && depth_ <= 0) {
      name_ = sig;
      depth_ = 0;
      opened_ = false;
    }
    for (const Token& tk : tokens) {
      if (tk.kind != TokenKind::kOperator) continue;
      if (tk.text == "{") {
        ++depth_;
        opened_ = true;
        in_kernel_signature_ = false;
      } else if (tk.text == "}") {
        --depth_;
        if (opened_ && depth_ <= 0) {
          name_.clear();
          depth_ = 0;
          opened_ = false;
          kernel_ = false;
        }
      }
    }
  }

  const std::string& name() const { return name_; }
  bool in_kernel_signature() const { return in_kernel_signature_; }
  bool kernel() const { return kernel_; }

 private:
  SourceLanguage language_;
  std::string name_;
  int depth_ = 0;
  bool opened_ = false;
  int indent_ = 0;
  bool in_kernel_signature_ = false;
  bool kernel_ = false;
};

std::vector<uint64_t> SortedHashes(const std::vector<Token>& tokens) {
  std::vector<uint64_t> h;
  h.reserve(tokens.size());
  for (const Token& t : tokens) h.push_back(std::hash<std::string>{}(t.text));
  std::sort(h.begin(), h.end());
  return h;
}

// Fills a code line's text fields from its stripped code.
void SetCode(CodeLine* cl) {
  const bool long_line = cl->code.size() > kMaxRuleLineBytes;
  cl->tokens = Tokenize(long_line ? std::string_view(cl->code).substr(0, kMaxRuleLineBytes)
                                  : std::string_view(cl->code));
  cl->token_hashes = SortedHashes(cl->tokens);
  cl->norm = CanonicalCode(cl->tokens);
  if (long_line) {
    cl->norm += " \x01" + std::to_string(std::hash<std::string>{}(cl->code));
    cl->source = cl->source.substr(0, 200);
  }
}

// Where a line sits according to the whole file's outline.
void SetContextFromOutline(const SourceOutline& outline, int64_t line, CodeLine* cl) {
  if (const OutlineFunction* f = outline.FunctionAt(line)) {
    cl->function = f->name;
    cl->function_kind = f->kind;
    cl->function_line = f->signature_line;
    cl->in_signature = SourceOutline::InSignature(*f, line);
    cl->in_kernel_signature = cl->in_signature && f->kind == FunctionKind::kKernel;
  }
  if (const OutlineScope* s = outline.ScopeAt(line)) {
    cl->scope_keyword = s->keyword;
    cl->scope_name = s->name;
  }
}

// Scope (enum/struct) from git's section header, for enum entries seen without the file:
// "@@ ... @@ enum NamedBarriers : int {".
void SectionScope(const std::string& section, std::string* keyword, std::string* name) {
  std::vector<Token> t = Tokenize(section);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].text == "enum" || t[i].text == "struct" || t[i].text == "class") {
      size_t n = i + 1;
      while (n < t.size() && (t[n].text == "class" || t[n].text == "struct")) ++n;
      if (n < t.size() && t[n].kind == TokenKind::kIdentifier) {
        *keyword = t[i].text == "enum" ? "enum" : t[i].text;
        *name = t[n].text;
      }
      return;
    }
    if (t[i].text == "(") return;
  }
}

// A line's text with the parentheses around a whole initializer dropped: `x = (a * b);` and
// `x = a * b;` are one statement (only the parentheses that enclose everything between `=`
// and the final `;` go; `(a + b) * c` keeps its own).
std::string WithoutOuterParens(const CodeLine& l) {
  const std::vector<Token>& t = l.tokens;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text != "=" || t[i + 1].text != "(") continue;
    int depth = 0;
    size_t close = t.size();
    for (size_t k = i + 1; k < t.size(); ++k) {
      if (t[k].text == "(") ++depth;
      if (t[k].text == ")" && --depth == 0) {
        close = k;
        break;
      }
    }
    if (close + 2 != t.size() || t.back().text != ";") return l.norm;
    std::string s;
    for (size_t k = 0; k < t.size(); ++k) {
      if (k == i + 1 || k == close) continue;
      s += (s.empty() ? "" : " ") + t[k].text;
    }
    return s;
  }
  return l.norm;
}

// Removed lines that reappear unchanged (up to whitespace, and parentheses around a whole
// initializer) on the added side only moved.
void CancelMoved(ChangeBlock* b) {
  std::vector<std::string> added_keys;
  for (const CodeLine& a : b->added) added_keys.push_back(WithoutOuterParens(a));
  std::unordered_multimap<std::string_view, size_t> added;
  for (size_t j = 0; j < b->added.size(); ++j) added.emplace(added_keys[j], j);
  std::vector<bool> used(b->added.size(), false);
  std::vector<CodeLine> kept_removed;
  for (CodeLine& r : b->removed) {
    bool matched = false;
    const std::string key = WithoutOuterParens(r);
    auto [lo, hi] = added.equal_range(key);
    for (auto it = lo; it != hi; ++it) {
      if (!used[it->second]) {
        used[it->second] = matched = true;
        break;
      }
    }
    if (!matched) kept_removed.push_back(std::move(r));
  }
  std::vector<CodeLine> kept_added;
  for (size_t j = 0; j < b->added.size(); ++j) {
    if (!used[j]) kept_added.push_back(std::move(b->added[j]));
  }
  b->removed = std::move(kept_removed);
  b->added = std::move(kept_added);
}

// A block of code wrapped in a new scope (or unwrapped) is removed and added again one
// indent deeper or shallower, split into several change blocks by the unchanged lines
// between (a `#pragma`, a brace). A removed line whose text reappears on an added line of
// another block of the file, within 40 lines and at another indentation (or within 3 lines
// at the same one), only moved with its block: both cancel. (Within one block CancelMoved
// already does this.)
void CancelReindented(RawFileBlocks* f) {
  struct Place {
    size_t block, index;
  };
  std::unordered_multimap<std::string, Place> added;
  for (size_t bi = 0; bi < f->blocks.size(); ++bi) {
    const ChangeBlock& b = f->blocks[bi];
    for (size_t j = 0; j < b.added.size(); ++j) {
      added.emplace(WithoutOuterParens(b.added[j]), Place{bi, j});
    }
  }
  std::vector<std::vector<bool>> drop_added(f->blocks.size());
  for (size_t bi = 0; bi < f->blocks.size(); ++bi) {
    drop_added[bi].assign(f->blocks[bi].added.size(), false);
  }
  for (size_t bi = 0; bi < f->blocks.size(); ++bi) {
    ChangeBlock& b = f->blocks[bi];
    std::vector<CodeLine> kept;
    for (CodeLine& r : b.removed) {
      bool matched = false;
      auto [lo, hi] = added.equal_range(WithoutOuterParens(r));
      for (auto it = lo; it != hi && !matched; ++it) {
        const Place& p = it->second;
        if (p.block == bi || drop_added[p.block][p.index]) continue;
        const CodeLine& a = f->blocks[p.block].added[p.index];
        const int64_t apart = std::llabs(a.line->anchor - r.line->anchor);
        // Re-indented within 40 lines, or moved by a line or two at the same indentation.
        if (apart > 40) continue;
        if (IndentOf(a.line->text) == IndentOf(r.line->text) && apart > 3) continue;
        drop_added[p.block][p.index] = matched = true;
      }
      if (!matched) kept.push_back(std::move(r));
    }
    b.removed = std::move(kept);
  }
  for (size_t bi = 0; bi < f->blocks.size(); ++bi) {
    ChangeBlock& b = f->blocks[bi];
    std::vector<CodeLine> kept;
    for (size_t j = 0; j < b.added.size(); ++j) {
      if (!drop_added[bi][j]) kept.push_back(std::move(b.added[j]));
    }
    b.added = std::move(kept);
  }
  std::vector<ChangeBlock> nonempty;
  for (ChangeBlock& b : f->blocks) {
    if (!b.empty()) nonempty.push_back(std::move(b));
  }
  f->blocks = std::move(nonempty);
}

// A constant the file's removed lines define (`constexpr uint32_t rank = 2;`) and that the
// new side never names: its uses were inlined. A removed line equal to an added one once
// the constant is substituted (and `[2 - 1]` folded) carried no change, and the definition
// itself goes when every use it had went that way.
void CancelInlinedConstants(RawFileBlocks* f) {
  std::map<std::string, std::string> constants;
  for (const ChangeBlock& b : f->blocks) {
    for (const CodeLine& r : b.removed) {
      const auto& t = r.tokens;
      // [static] [constexpr|const] TYPE NAME = NUMBER ;
      if (t.size() < 5 || t.back().text != ";" || t[t.size() - 2].kind != TokenKind::kNumber ||
          t[t.size() - 3].text != "=" || t[t.size() - 4].kind != TokenKind::kIdentifier) {
        continue;
      }
      bool constant = false;
      for (size_t i = 0; i + 4 < t.size(); ++i)
        constant |= t[i].text == "constexpr" || t[i].text == "const";
      const std::string& name = t[t.size() - 4].text;
      if (constant && !f->new_ids.count(name)) constants[name] = t[t.size() - 2].text;
    }
  }
  if (constants.empty()) return;
  auto substituted = [&](const CodeLine& r, bool* changed) {
    std::vector<Token> s;
    for (const Token& t : r.tokens) {
      auto it = t.kind == TokenKind::kIdentifier ? constants.find(t.text) : constants.end();
      *changed |= it != constants.end();
      s.push_back(it != constants.end() ? Token{TokenKind::kNumber, it->second} : t);
    }
    // Fold "A op B" between delimiters: [2 - 1] -> [1].
    auto delim = [](const std::string& x) {
      return x == "[" || x == "]" || x == "(" || x == ")" || x == "," || x == "=" || x == ";" ||
             x == "{" || x == "}";
    };
    auto integer = [](const Token& t, long long* v) {
      if (t.kind != TokenKind::kNumber || t.text.empty()) return false;
      char* end = nullptr;
      *v = std::strtoll(t.text.c_str(), &end, 10);
      return *end == '\0';
    };
    for (size_t i = 1; i + 3 < s.size();) {
      long long a = 0, c = 0;
      const std::string& op = s[i + 1].text;
      if (delim(s[i - 1].text) && delim(s[i + 3].text) && (op == "+" || op == "-" || op == "*") &&
          integer(s[i], &a) && integer(s[i + 2], &c) && a < (1 << 20) && c < (1 << 20) &&
          a > -(1 << 20) && c > -(1 << 20)) {
        s[i].text = std::to_string(op == "+" ? a + c : op == "-" ? a - c : a * c);
        s.erase(s.begin() + static_cast<long>(i) + 1, s.begin() + static_cast<long>(i) + 3);
        continue;
      }
      ++i;
    }
    return CanonicalCode(s);
  };
  std::map<std::string, int> uses_left;  // uses of each constant not cancelled
  for (ChangeBlock& b : f->blocks) {
    std::unordered_multimap<std::string, size_t> added;
    for (size_t j = 0; j < b.added.size(); ++j) added.emplace(b.added[j].norm, j);
    std::vector<bool> used(b.added.size(), false), drop(b.removed.size(), false);
    for (size_t i = 0; i < b.removed.size(); ++i) {
      bool changed = false;
      const std::string norm = substituted(b.removed[i], &changed);
      if (!changed) continue;
      auto [lo, hi] = added.equal_range(norm);
      for (auto it = lo; it != hi; ++it) {
        if (!used[it->second]) {
          used[it->second] = drop[i] = true;
          break;
        }
      }
      if (drop[i]) continue;
      for (const Token& t : b.removed[i].tokens) {
        if (constants.count(t.text)) ++uses_left[t.text];
      }
    }
    std::vector<CodeLine> kr, ka;
    for (size_t i = 0; i < b.removed.size(); ++i) {
      if (!drop[i]) kr.push_back(std::move(b.removed[i]));
    }
    for (size_t j = 0; j < b.added.size(); ++j) {
      if (!used[j]) ka.push_back(std::move(b.added[j]));
    }
    b.removed = std::move(kr);
    b.added = std::move(ka);
  }
  // The definitions themselves: their only remaining use is the definition line.
  for (ChangeBlock& b : f->blocks) {
    std::vector<CodeLine> kr;
    for (CodeLine& r : b.removed) {
      const auto& t = r.tokens;
      const bool def = t.size() >= 5 && t[t.size() - 3].text == "=" &&
                       constants.count(t[t.size() - 4].text) &&
                       uses_left[t[t.size() - 4].text] <= 1;
      if (!def) kr.push_back(std::move(r));
    }
    b.removed = std::move(kr);
  }
  std::vector<ChangeBlock> kept;
  for (ChangeBlock& b : f->blocks) {
    if (!b.empty()) kept.push_back(std::move(b));
  }
  f->blocks = std::move(kept);
}

RawFileBlocks BuildRawBlocks(const ReviewCodeFile& rf) {
  const FileDiff& file = *rf.file;
  const SourceLanguage language = rf.language;
  RawFileBlocks out;
  std::vector<ChangeBlock>& blocks = out.blocks;
  auto note_ids = [](const std::vector<Token>& tokens, std::set<std::string>* ids) {
    for (const Token& t : tokens) {
      if (t.kind == TokenKind::kIdentifier) ids->insert(t.text);
    }
  };
  for (const Hunk& hunk : file.hunks) {
    CommentStripper old_strip(language), new_strip(language);
    FunctionTracker old_fn(language, hunk.section), new_fn(language, hunk.section);
    std::string section_keyword, section_scope;
    if (language == SourceLanguage::kCpp)
      SectionScope(hunk.section, &section_keyword, &section_scope);
    if (language == SourceLanguage::kPython) {
      // A hunk can start in the middle of a docstring; its prose is not code.
      std::vector<std::string_view> old_side, new_side;
      for (const DiffLine& dl : hunk.lines) {
        if (dl.kind != DiffLineKind::kAdd) old_side.push_back(dl.text);
        if (dl.kind != DiffLineKind::kDelete) new_side.push_back(dl.text);
      }
      old_strip.StartInsideString(OpenDocstringAtStart(old_side));
      new_strip.StartInsideString(OpenDocstringAtStart(new_side));
    }
    ChangeBlock cur;
    auto close = [&] {
      if (cur.empty()) return;
      CancelMoved(&cur);
      if (!cur.empty()) blocks.push_back(std::move(cur));
      cur = ChangeBlock();
    };
    // Without the whole file, an enum opened inside the hunk names its entries' scope.
    auto track_scope = [&](const std::string& code) {
      std::string keyword, name;
      if (code.find('{') != std::string::npos) SectionScope(code, &keyword, &name);
      if (!name.empty()) {
        section_keyword = keyword;
        section_scope = name;
      } else if (!code.empty() && code[0] == '}') {
        section_keyword.clear();
        section_scope.clear();
      }
    };
    for (const DiffLine& dl : hunk.lines) {
      if (dl.kind == DiffLineKind::kContext) {
        close();
        std::string_view text = dl.text;
        if (text.size() > kMaxRuleLineBytes) text = text.substr(0, kMaxRuleLineBytes);
        std::string oc = old_strip.Strip(text);
        std::string nc = new_strip.Strip(text);
        std::vector<Token> ot = Tokenize(oc), nt = Tokenize(nc);
        note_ids(ot, &out.old_ids);
        note_ids(nt, &out.new_ids);
        old_fn.Feed(dl.text, oc, ot);
        new_fn.Feed(dl.text, nc, nt);
        if (language == SourceLanguage::kCpp) track_scope(nc);
        continue;
      }
      const bool added = dl.kind == DiffLineKind::kAdd;
      CodeLine cl;
      cl.line = &dl;
      cl.added = added;
      cl.code = (added ? new_strip : old_strip).Strip(dl.text, &cl.source);
      if (language == SourceLanguage::kPython && LooksLikeProse(cl.code)) {
        cl.code.clear();
        cl.source.clear();
      }
      SetCode(&cl);
      note_ids(cl.tokens, added ? &out.new_ids : &out.old_ids);
      FunctionTracker& fn = added ? new_fn : old_fn;
      const SourceOutline* outline = added ? rf.head : rf.base;
      if (outline != nullptr) {
        SetContextFromOutline(*outline, cl.side_line(), &cl);
        fn.Feed(dl.text, cl.code, cl.tokens);
      } else {
        // The line belongs to the function that encloses it, decided before its own braces.
        cl.function = fn.name();
        cl.in_kernel_signature =
            fn.in_kernel_signature() || cl.code.find("__global__") != std::string::npos;
        cl.in_signature = cl.in_kernel_signature;
        fn.Feed(dl.text, cl.code, cl.tokens);
        if (cl.function.empty()) cl.function = fn.name();  // the line is itself a signature
        if (fn.kernel()) cl.function_kind = FunctionKind::kKernel;
        if (language == SourceLanguage::kPython && !cl.function.empty()) {
          cl.function_kind = FunctionKind::kPython;
        }
        if (language == SourceLanguage::kCpp) track_scope(cl.code);
        cl.scope_keyword = section_keyword;
        cl.scope_name = section_scope;
      }
      if (cl.code.empty()) continue;
      (added ? cur.added : cur.removed).push_back(std::move(cl));
    }
    close();
  }
  if (language == SourceLanguage::kCpp) CancelInlinedConstants(&out);
  CancelReindented(&out);
  return out;
}

// Code a rewrite moved into a new file (from a deleted file, or out of a modified one): a
// removed line that reappears unchanged in another file, where one of the two files is
// added or deleted whole, carried no change.
void CancelMovedAcrossFiles(const std::vector<ReviewCodeFile>& files,
                            std::vector<RawFileBlocks>* raw) {
  struct Where {
    size_t file, block, line;
  };
  std::unordered_multimap<std::string_view, Where> removed;
  for (size_t f = 0; f < raw->size(); ++f) {
    for (size_t b = 0; b < (*raw)[f].blocks.size(); ++b) {
      const auto& lines = (*raw)[f].blocks[b].removed;
      for (size_t l = 0; l < lines.size(); ++l) removed.emplace(lines[l].norm, Where{f, b, l});
    }
  }
  if (removed.empty()) return;
  std::vector<std::vector<std::vector<bool>>> drop_removed(raw->size()), drop_added(raw->size());
  for (size_t f = 0; f < raw->size(); ++f) {
    for (const ChangeBlock& b : (*raw)[f].blocks) {
      drop_removed[f].emplace_back(b.removed.size(), false);
      drop_added[f].emplace_back(b.added.size(), false);
    }
  }
  bool any = false;
  for (size_t f = 0; f < raw->size(); ++f) {
    const bool added_file = files[f].file->status == FileStatus::kAdded;
    for (size_t b = 0; b < (*raw)[f].blocks.size(); ++b) {
      const auto& lines = (*raw)[f].blocks[b].added;
      for (size_t l = 0; l < lines.size(); ++l) {
        auto [lo, hi] = removed.equal_range(lines[l].norm);
        for (auto it = lo; it != hi; ++it) {
          const Where& w = it->second;
          const bool deleted_file = files[w.file].file->status == FileStatus::kDeleted;
          // Two diffs of one path (a patch series) are successive edits, not a move.
          const bool same_path = files[w.file].file->path() == files[f].file->path();
          if (w.file == f || same_path || !(added_file || deleted_file) ||
              drop_removed[w.file][w.block][w.line]) {
            continue;
          }
          drop_removed[w.file][w.block][w.line] = true;
          drop_added[f][b][l] = true;
          any = true;
          break;
        }
      }
    }
  }
  if (!any) return;
  for (size_t f = 0; f < raw->size(); ++f) {
    std::vector<ChangeBlock> kept;
    for (size_t b = 0; b < (*raw)[f].blocks.size(); ++b) {
      ChangeBlock& block = (*raw)[f].blocks[b];
      ChangeBlock out;
      for (size_t l = 0; l < block.removed.size(); ++l) {
        if (!drop_removed[f][b][l]) out.removed.push_back(std::move(block.removed[l]));
      }
      for (size_t l = 0; l < block.added.size(); ++l) {
        if (!drop_added[f][b][l]) out.added.push_back(std::move(block.added[l]));
      }
      if (!out.empty()) kept.push_back(std::move(out));
    }
    (*raw)[f].blocks = std::move(kept);
  }
}

std::vector<RawFileBlocks> BuildAllRawBlocks(const std::vector<ReviewCodeFile>& files) {
  std::vector<RawFileBlocks> raw;
  raw.reserve(files.size());
  for (const ReviewCodeFile& f : files) raw.push_back(BuildRawBlocks(f));
  CancelMovedAcrossFiles(files, &raw);
  return raw;
}

}  // namespace

std::vector<std::string> IdentifierWords(std::string_view identifier) {
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) words.push_back(ToLower(cur));
    cur.clear();
  };
  for (size_t i = 0; i < identifier.size(); ++i) {
    char c = identifier[i];
    if (c == '_' || c == '$') {
      flush();
      continue;
    }
    bool upper = std::isupper(static_cast<unsigned char>(c));
    bool prev_lower = i > 0 && (std::islower(static_cast<unsigned char>(identifier[i - 1])) ||
                                std::isdigit(static_cast<unsigned char>(identifier[i - 1])));
    bool next_lower =
        i + 1 < identifier.size() && std::islower(static_cast<unsigned char>(identifier[i + 1]));
    bool prev_upper = i > 0 && std::isupper(static_cast<unsigned char>(identifier[i - 1]));
    if (upper && (prev_lower || (prev_upper && next_lower))) flush();
    cur += c;
  }
  flush();
  return words;
}

bool OutlineMatchesDiff(const SourceOutline& outline, const FileDiff& file, bool head_side) {
  for (const Hunk& h : file.hunks) {
    for (const DiffLine& dl : h.lines) {
      if (dl.kind == (head_side ? DiffLineKind::kDelete : DiffLineKind::kAdd)) continue;
      const int64_t n = head_side ? dl.new_line : dl.old_line;
      std::string_view want = dl.text;
      if (!want.empty() && want.back() == '\r') want.remove_suffix(1);
      if (n < 1 || n > static_cast<int64_t>(outline.lines.size()) || outline.Line(n) != want) {
        return false;
      }
    }
  }
  return true;
}

std::map<std::string, std::string> ConsistentRenames(const std::vector<ReviewCodeFile>& files) {
  return FindRenames(BuildAllRawBlocks(files));
}

std::vector<std::vector<ChangeBlock>> BuildDiffChangeBlocks(
    const std::vector<ReviewCodeFile>& files) {
  std::vector<RawFileBlocks> raw = BuildAllRawBlocks(files);
  const std::map<std::string, std::string> renames = FindRenames(raw);
  std::vector<std::vector<ChangeBlock>> out;
  out.reserve(raw.size());
  for (RawFileBlocks& f : raw) {
    std::vector<ChangeBlock> kept;
    for (ChangeBlock& b : f.blocks) {
      if (!renames.empty()) {
        // A removed line that equals an added one once renamed only carried the rename.
        std::unordered_multimap<std::string_view, size_t> added;
        for (size_t j = 0; j < b.added.size(); ++j) added.emplace(b.added[j].norm, j);
        std::vector<bool> used(b.added.size(), false);
        std::vector<CodeLine> kept_removed;
        for (CodeLine& r : b.removed) {
          const std::string renamed = RenamedNorm(r, renames);
          bool matched = false;
          if (renamed != r.norm) {
            auto [lo, hi] = added.equal_range(renamed);
            for (auto it = lo; it != hi; ++it) {
              if (!used[it->second]) {
                used[it->second] = matched = true;
                break;
              }
            }
          }
          if (!matched) kept_removed.push_back(std::move(r));
        }
        std::vector<CodeLine> kept_added;
        for (size_t j = 0; j < b.added.size(); ++j) {
          if (!used[j]) kept_added.push_back(std::move(b.added[j]));
        }
        b.removed = std::move(kept_removed);
        b.added = std::move(kept_added);
      }
      if (!b.empty() && !IsRenameOnly(b, renames)) kept.push_back(std::move(b));
    }
    out.push_back(std::move(kept));
  }
  return out;
}

std::vector<ChangeBlock> BuildChangeBlocks(const FileDiff& file, SourceLanguage language) {
  ReviewCodeFile f;
  f.file = &file;
  f.language = language;
  return std::move(BuildDiffChangeBlocks({f}).front());
}

}  // namespace av
