#include "review/renames.h"

#include <algorithm>

namespace av {

bool IsKeyword(std::string_view s) {
  static const std::set<std::string_view> kKeywords = {
      "if",        "for",           "while",  "switch", "return", "else",   "do",        "case",
      "sizeof",    "static_assert", "elif",   "def",    "class",  "struct", "namespace", "template",
      "typename",  "using",         "new",    "delete", "throw",  "catch",  "decltype",  "alignof",
      "co_return", "assert",        "lambda", "with",   "in",     "not",    "and",       "or"};
  return kKeywords.count(s) > 0;
}

namespace {

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
    bool after_type = p > 0 && t[p - 1].kind == TokenKind::kIdentifier &&
                      !IsKeyword(t[p - 1].text) && !IsCallPrefix(t[p - 1].text);
    // `T* p` declares p; `a / b * c;` multiplies: a pointer declarator's type follows the
    // statement's start, a bracket, a comma or a specifier, never an operator or an operand.
    if (after_type && p < i && p >= 2) {
      const Token& q = t[p - 2];
      after_type = q.text == "(" || q.text == "," || q.text == "{" || q.text == ";" ||
                   q.text == "<" || q.text == "::" || q.text == ":" ||
                   (q.kind == TokenKind::kIdentifier && !IsKeyword(q.text) && q.text != "return");
    }
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

}  // namespace

std::string RenamedNorm(const CodeLine& l, const std::map<std::string, std::string>& renames) {
  std::vector<Token> t = l.tokens;
  for (Token& x : t) {
    auto it = x.kind == TokenKind::kIdentifier ? renames.find(x.text) : renames.end();
    if (it != renames.end()) x.text = it->second;
  }
  return CanonicalCode(t);
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

void PairingRange(size_t index, size_t removed, size_t added, size_t* begin, size_t* end) {
  if (added <= 2 * kPairingWindow + 1) {
    *begin = 0;
    *end = added;
    return;
  }
  const size_t center = removed == 0 ? 0 : index * added / removed;
  *begin = center > kPairingWindow ? center - kPairingWindow : 0;
  *end = std::min(added, center + kPairingWindow + 1);
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
      for (size_t ri = 0; ri < b.removed.size(); ++ri) {
        const CodeLine& r = b.removed[ri];
        size_t lo = 0, hi = 0;
        PairingRange(ri, b.removed.size(), b.added.size(), &lo, &hi);
        size_t best = b.added.size();
        std::vector<std::pair<std::string, std::string>> best_pairs;
        for (size_t j = lo; j < hi; ++j) {
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
        for (size_t j = lo; j < hi; ++j) {
          std::pair<std::string, std::string> p;
          if (DeclarationRename(r, b.added[j], &p)) {
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

}  // namespace av
