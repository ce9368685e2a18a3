#include "review/change_blocks.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace av {
namespace {

bool IsKeyword(std::string_view s) {
  static const std::set<std::string_view> kKeywords = {
      "if",        "for",           "while",  "switch", "return", "else",   "do",        "case",
      "sizeof",    "static_assert", "elif",   "def",    "class",  "struct", "namespace", "template",
      "typename",  "using",         "new",    "delete", "throw",  "catch",  "decltype",  "alignof",
      "co_return", "assert",        "lambda", "with",   "in",     "not",    "and",       "or"};
  return kKeywords.count(s) > 0;
}

// The name a C++ function definition line introduces, or "".
std::string CppSignatureName(const std::vector<Token>& t, std::string_view code) {
  if (t.empty() || code.empty() || code.back() == ';' || code[0] == '#') return "";
  if (t[0].kind == TokenKind::kIdentifier && IsKeyword(t[0].text)) return "";
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == TokenKind::kOperator && (t[i].text == "=" || t[i].text == "<<")) return "";
    if (t[i].text == "(") {
      // At least a type and a name before the parenthesis: "bool f(", "__global__ void k(".
      if (i < 2 || t[i - 1].kind != TokenKind::kIdentifier || IsKeyword(t[i - 1].text)) return "";
      return t[i - 1].text;
    }
  }
  return "";
}

// Tracks the enclosing function along one side of a hunk.
class FunctionTracker {
 public:
  FunctionTracker(SourceLanguage language, const std::string& section) : language_(language) {
    Tokenize(section).swap(section_tokens_);
    if (language_ == SourceLanguage::kPython) {
      auto& t = section_tokens_;
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (t[i].text == "def" && t[i + 1].kind == TokenKind::kIdentifier) {
          name_ = t[i + 1].text;
          indent_ = 0;
          break;
        }
      }
    } else if (language_ == SourceLanguage::kCpp) {
      name_ = CppSignatureName(section_tokens_, section);
      if (!name_.empty()) {
        depth_ = 1;  // the hunk starts inside the body git named
        opened_ = true;
      }
    }
  }

  void Feed(std::string_view raw, const std::string& code, const std::vector<Token>& tokens) {
    if (code.empty()) return;
    if (language_ == SourceLanguage::kPython) {
      int indent = IndentOf(raw);
      if (!name_.empty() && indent <= indent_) name_.clear();
      if (tokens.size() >= 2 && tokens[0].text == "def" &&
          tokens[1].kind == TokenKind::kIdentifier) {
        name_ = tokens[1].text;
        indent_ = indent;
      } else if (tokens.size() >= 3 && tokens[0].text == "async" && tokens[1].text == "def") {
        name_ = tokens[2].text;
        indent_ = indent;
      }
      return;
    }
    if (language_ != SourceLanguage::kCpp) return;
    if (code.find("__global__") != std::string::npos) in_kernel_signature_ = true;
    std::string sig = CppSignatureName(tokens, code);
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
        }
      }
    }
  }

  const std::string& name() const { return name_; }
  bool in_kernel_signature() const { return in_kernel_signature_; }

 private:
  SourceLanguage language_;
  std::vector<Token> section_tokens_;
  std::string name_;
  int depth_ = 0;
  bool opened_ = false;
  int indent_ = 0;
  bool in_kernel_signature_ = false;
};

// Words after which a name followed by "(" is called, not declared: `await f(x)`.
bool IsCallPrefix(std::string_view s) {
  static const std::set<std::string_view> kWords = {"await",
                                                    "yield",
                                                    "raise",
                                                    "goto",
                                                    "co_await",
                                                    "co_yield",
                                                    "is",
                                                    "as",
                                                    "import",
                                                    "from",
                                                    "del",
                                                    "print",
                                                    "typeid",
                                                    "noexcept",
                                                    "requires",
                                                    "operator",
                                                    "const_cast",
                                                    "static_cast",
                                                    "reinterpret_cast",
                                                    "dynamic_cast"};
  return kWords.count(s) > 0;
}

// Names a line declares: "float s = ...", "int i;", "T* p)", Python "x = ...", "for x in",
// functions ("void LoadTile(", "def load("), types ("struct Tile", "class Tile",
// "using Tile =", "typedef float Acc;").
void AddDeclaredNames(const std::vector<Token>& t, std::set<std::string>* out) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdentifier || IsKeyword(t[i].text)) continue;
    const std::string next = i + 1 < t.size() ? t[i + 1].text : "";
    const std::string prev = i > 0 ? t[i - 1].text : "";
    size_t p = i;
    while (p > 0 && (t[p - 1].text == "*" || t[p - 1].text == "&")) --p;
    const bool after_type = p > 0 && t[p - 1].kind == TokenKind::kIdentifier &&
                            !IsKeyword(t[p - 1].text) && !IsCallPrefix(t[p - 1].text);
    const bool declarator = next.empty() || next == "=" || next == ";" || next == "," ||
                            next == ")" || next == "[" || next == "{" || next == ":";
    if (after_type && declarator) out->insert(t[i].text);
    // A function: "name(" after nothing but a return type and specifiers
    // ("template <int N> __device__ float* Load(", not "if (a && Load(").
    if (after_type && next == "(") {
      bool prefix = true;
      for (size_t k = 0; k < p && prefix; ++k) {
        const Token& x = t[k];
        prefix = (x.kind == TokenKind::kIdentifier &&
                  (!IsKeyword(x.text) || x.text == "template" || x.text == "typename")) ||
                 x.kind == TokenKind::kNumber || x.text == "::" || x.text == "<" || x.text == ">" ||
                 x.text == "*" || x.text == "&" || x.text == ",";
      }
      if (prefix) out->insert(t[i].text);
    }
    if (i == 0 && next == "=") out->insert(t[i].text);  // Python assignment
    if (prev == "for" || prev == "def" || prev == "struct" || prev == "class" || prev == "union" ||
        prev == "enum" || (prev == "using" && next == "=")) {
      out->insert(t[i].text);
    }
  }
}

std::set<std::string> DeclaredNames(const std::vector<Token>& t) {
  std::set<std::string> names;
  AddDeclaredNames(t, &names);
  return names;
}

bool IsRenamable(const Token& t) { return t.kind == TokenKind::kIdentifier && !IsKeyword(t.text); }

// The name pairs (old, new) at the positions where two lines differ, when they differ
// only in renamable names; empty otherwise.
std::vector<std::pair<std::string, std::string>> NameDifferences(const CodeLine& r,
                                                                 const CodeLine& a) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (r.tokens.size() != a.tokens.size()) return {};
  for (size_t i = 0; i < r.tokens.size(); ++i) {
    const Token& x = r.tokens[i];
    const Token& y = a.tokens[i];
    if (x.kind == y.kind && x.text == y.text) continue;
    if (!IsRenamable(x) || !IsRenamable(y)) return {};
    pairs.emplace_back(x.text, y.text);
  }
  return pairs;
}

// The name a removed line declares and the matching added line declares in its place:
// the lines agree up to that name and on the token after it ("void LoadKeyTile(" ->
// "void LoadKvTile(", whatever the parameters do).
bool DeclarationRename(const CodeLine& r, const CodeLine& a,
                       std::pair<std::string, std::string>* pair) {
  const size_t n = std::min(r.tokens.size(), a.tokens.size());
  size_t i = 0;
  while (i < n && r.tokens[i].kind == a.tokens[i].kind && r.tokens[i].text == a.tokens[i].text) ++i;
  if (i >= n || !IsRenamable(r.tokens[i]) || !IsRenamable(a.tokens[i])) return false;
  const bool r_last = i + 1 == r.tokens.size(), a_last = i + 1 == a.tokens.size();
  if (r_last != a_last || (!r_last && r.tokens[i + 1].text != a.tokens[i + 1].text)) return false;
  if (!DeclaredNames(r.tokens).count(r.tokens[i].text) ||
      !DeclaredNames(a.tokens).count(a.tokens[i].text)) {
    return false;
  }
  *pair = {r.tokens[i].text, a.tokens[i].text};
  return true;
}

// The code line's tokens with `renames` applied, joined like `norm`.
std::string RenamedNorm(const CodeLine& l, const std::map<std::string, std::string>& renames) {
  std::string out;
  for (const Token& t : l.tokens) {
    if (!out.empty()) out += ' ';
    auto it = t.kind == TokenKind::kIdentifier ? renames.find(t.text) : renames.end();
    out += it != renames.end() ? it->second : t.text;
  }
  return out;
}

// True when `removed` and `added` differ only by the diff's consistent `renames` and by
// renaming names the old lines declare, one-to-one, to names the old code did not use
// (so swapping s_q and s_k, expf -> exp2f, False -> True or float -> half are not renames).
bool IsRenameOnly(const ChangeBlock& b, const std::map<std::string, std::string>& renames) {
  std::vector<const Token*> old_t, new_t;
  std::set<std::string> old_ids, new_ids, declared;
  for (const CodeLine& l : b.removed) {
    AddDeclaredNames(l.tokens, &declared);
    for (const Token& t : l.tokens) {
      old_t.push_back(&t);
      if (t.kind == TokenKind::kIdentifier) old_ids.insert(t.text);
    }
  }
  for (const CodeLine& l : b.added) {
    for (const Token& t : l.tokens) {
      new_t.push_back(&t);
      if (t.kind == TokenKind::kIdentifier) new_ids.insert(t.text);
    }
  }
  if (old_t.empty() || old_t.size() != new_t.size()) return false;
  std::map<std::string, std::string> fwd, back;
  bool renamed = false;
  for (size_t i = 0; i < old_t.size(); ++i) {
    const Token& a = *old_t[i];
    const Token& c = *new_t[i];
    if (a.kind != c.kind) return false;
    if (a.kind != TokenKind::kIdentifier) {
      if (a.text != c.text) return false;
      continue;
    }
    if (IsKeyword(a.text) || IsKeyword(c.text)) {
      if (a.text != c.text) return false;
      continue;
    }
    auto g = renames.find(a.text);
    if (g != renames.end() && g->second == c.text) {
      renamed = true;
      continue;
    }
    auto f = fwd.find(a.text);
    if (f != fwd.end() && f->second != c.text) return false;
    auto r = back.find(c.text);
    if (r != back.end() && r->second != a.text) return false;
    fwd[a.text] = c.text;
    back[c.text] = a.text;
    if (a.text != c.text) {
      if (old_ids.count(c.text) || new_ids.count(a.text) || !declared.count(a.text)) return false;
      renamed = true;
    }
  }
  return renamed;
}

// One file's blocks before renames are looked at, with the names each side shows.
struct RawFileBlocks {
  std::vector<ChangeBlock> blocks;
  std::set<std::string> old_ids, new_ids;  // removed + context lines, added + context lines
};

RawFileBlocks BuildRawBlocks(const FileDiff& file, SourceLanguage language) {
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
      // Lines that reappear unchanged (up to whitespace) on the other side only moved.
      std::vector<bool> used(cur.added.size(), false);
      std::vector<CodeLine> kept_removed;
      for (CodeLine& r : cur.removed) {
        bool matched = false;
        for (size_t j = 0; j < cur.added.size(); ++j) {
          if (!used[j] && cur.added[j].norm == r.norm) {
            used[j] = true;
            matched = true;
            break;
          }
        }
        if (!matched) kept_removed.push_back(std::move(r));
      }
      std::vector<CodeLine> kept_added;
      for (size_t j = 0; j < cur.added.size(); ++j) {
        if (!used[j]) kept_added.push_back(std::move(cur.added[j]));
      }
      cur.removed = std::move(kept_removed);
      cur.added = std::move(kept_added);
      if (!cur.empty()) blocks.push_back(std::move(cur));
      cur = ChangeBlock();
    };
    for (const DiffLine& dl : hunk.lines) {
      if (dl.kind == DiffLineKind::kContext) {
        close();
        std::string oc = old_strip.Strip(dl.text);
        std::string nc = new_strip.Strip(dl.text);
        std::vector<Token> ot = Tokenize(oc), nt = Tokenize(nc);
        note_ids(ot, &out.old_ids);
        note_ids(nt, &out.new_ids);
        old_fn.Feed(dl.text, oc, ot);
        new_fn.Feed(dl.text, nc, nt);
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
      cl.tokens = Tokenize(cl.code);
      note_ids(cl.tokens, added ? &out.new_ids : &out.old_ids);
      FunctionTracker& fn = added ? new_fn : old_fn;
      // The line belongs to the function that encloses it, decided before its own braces.
      cl.function = fn.name();
      cl.in_kernel_signature =
          fn.in_kernel_signature() || cl.code.find("__global__") != std::string::npos;
      fn.Feed(dl.text, cl.code, cl.tokens);
      if (cl.function.empty()) cl.function = fn.name();  // the line is itself a signature
      if (cl.code.empty()) continue;
      for (const Token& t : cl.tokens) {
        if (!cl.norm.empty()) cl.norm += ' ';
        cl.norm += t.text;
      }
      (added ? cur.added : cur.removed).push_back(std::move(cl));
    }
    close();
  }
  return out;
}

// The consistent renames of a diff (see ConsistentRenames in the header). Each removed line
// is paired with the added line of its block that differs from it in the fewest names only.
std::map<std::string, std::string> FindRenames(const std::vector<RawFileBlocks>& files) {
  std::map<std::string, std::set<std::string>> targets, sources;
  std::set<std::pair<std::string, std::string>> declared;
  std::set<std::string> old_ids, new_ids;
  auto note = [&](const std::pair<std::string, std::string>& p) {
    targets[p.first].insert(p.second);
    sources[p.second].insert(p.first);
  };
  for (const RawFileBlocks& f : files) {
    old_ids.insert(f.old_ids.begin(), f.old_ids.end());
    new_ids.insert(f.new_ids.begin(), f.new_ids.end());
    for (const ChangeBlock& b : f.blocks) {
      std::vector<bool> used(b.added.size(), false);
      for (const CodeLine& r : b.removed) {
        size_t best = b.added.size();
        std::vector<std::pair<std::string, std::string>> best_pairs;
        for (size_t j = 0; j < b.added.size(); ++j) {
          if (used[j]) continue;
          auto pairs = NameDifferences(r, b.added[j]);
          if (!pairs.empty() && (best == b.added.size() || pairs.size() < best_pairs.size())) {
            best = j;
            best_pairs = std::move(pairs);
          }
        }
        if (best < b.added.size()) {
          used[best] = true;
          for (const auto& p : best_pairs) note(p);
        }
        for (const CodeLine& a : b.added) {
          std::pair<std::string, std::string> p;
          if (DeclarationRename(r, a, &p)) {
            declared.insert(p);
            note(p);
          }
        }
      }
    }
  }
  std::map<std::string, std::string> renames;
  for (const auto& [from, to] : declared) {
    if (targets[from].size() != 1 || sources[to].size() != 1) continue;  // renamed two ways
    if (new_ids.count(from) || old_ids.count(to)) continue;              // not gone, or not new
    renames[from] = to;
  }
  return renames;
}

std::vector<RawFileBlocks> BuildAllRawBlocks(const std::vector<ReviewCodeFile>& files) {
  std::vector<RawFileBlocks> raw;
  raw.reserve(files.size());
  for (const ReviewCodeFile& f : files) raw.push_back(BuildRawBlocks(*f.file, f.language));
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
        std::vector<bool> used(b.added.size(), false);
        std::vector<CodeLine> kept_removed;
        for (CodeLine& r : b.removed) {
          const std::string renamed = RenamedNorm(r, renames);
          bool matched = false;
          if (renamed != r.norm) {
            for (size_t j = 0; j < b.added.size(); ++j) {
              if (!used[j] && b.added[j].norm == renamed) {
                used[j] = matched = true;
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
  return std::move(BuildDiffChangeBlocks({ReviewCodeFile{&file, language}}).front());
}

}  // namespace av
