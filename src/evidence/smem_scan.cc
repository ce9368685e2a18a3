#include "evidence/smem_scan.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "evidence/int_expr.h"

namespace av {
namespace {

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The source with comments and string literals blanked (same length, newlines kept), so
// that positions and line numbers stay valid and commented-out calls are not found.
std::string BlankCommentsAndStrings(std::string_view s) {
  std::string out(s);
  size_t i = 0;
  while (i < out.size()) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i) {
        if (out[i] != '\n') out[i] = ' ';
      }
    } else if (out[i] == '"') {
      ++i;
      while (i < out.size() && out[i] != '"' && out[i] != '\n') {
        if (out[i] == '\\' && i + 1 < out.size()) out[i++] = ' ';
        out[i++] = ' ';
      }
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// Collects `constexpr T NAME = EXPR;`, `const T NAME = EXPR;` and `#define NAME EXPR`
// whose EXPR evaluates with the constants found before it; the others' definitions go to
// `unevaluated` (NAME -> "constexpr T NAME = EXPR", cut at 120 characters).
IntConstants CollectConstants(const std::string& text,
                              std::map<std::string, std::string>* unevaluated) {
  IntConstants constants;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + pos, nl - pos);
    pos = nl + 1;
    std::string t = Trim(line);
    std::string name, expr;
    if (t.rfind("#define ", 0) == 0) {
      std::string_view rest = std::string_view(t).substr(8);
      size_t i = 0;
      while (i < rest.size() && IsIdent(rest[i])) ++i;
      if (i == 0 || (i < rest.size() && rest[i] == '(')) continue;  // function-like macro
      name = std::string(rest.substr(0, i));
      expr = Trim(rest.substr(i));
    } else if (t.find("const") != std::string::npos && t.find('=') != std::string::npos &&
               t.back() == ';') {
      size_t eq = t.find('=');
      if (eq + 1 < t.size() && t[eq + 1] == '=') continue;
      size_t end = eq;
      while (end > 0 && std::isspace(static_cast<unsigned char>(t[end - 1]))) --end;
      size_t start = end;
      while (start > 0 && IsIdent(t[start - 1])) --start;
      std::string_view before = std::string_view(t).substr(0, start);
      if (before.find("constexpr") == std::string_view::npos &&
          before.find("const ") == std::string_view::npos) {
        continue;
      }
      name = t.substr(start, end - start);
      expr = Trim(std::string_view(t).substr(eq + 1, t.size() - eq - 2));
    } else {
      continue;
    }
    if (name.empty() || expr.empty()) continue;
    auto v = EvaluateIntExpression(expr, constants);
    if (v.ok()) {
      constants[name] = *v;
    } else {
      std::string def = t.back() == ';' ? t.substr(0, t.size() - 1) : t;
      (*unevaluated)[name] = def.size() > 120 ? def.substr(0, 117) + "..." : def;
    }
  }
  return constants;
}

struct Alias {
  size_t pos;
  std::string name, expr;
};

// `auto k = &kernel<...>;`, `k = &kernel<...>;`, `void (*k)(Params) = &kernel;`: local
// variables that hold a kernel, so a call through `k` is keyed on the kernel.
std::vector<Alias> CollectAliases(const std::string& text) {
  std::vector<Alias> out;
  for (size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    if (eq == 0 || eq + 1 >= text.size() || text[eq + 1] == '=' ||
        std::string_view("=!<>+-*/%&|^").find(text[eq - 1]) != std::string_view::npos) {
      continue;
    }
    // Right side: [&] qualified::name[<...>] ;
    size_t r = text.find_first_not_of(" \t\r\n", eq + 1);
    if (r == std::string::npos) break;
    bool address = text[r] == '&';
    if (address) r = text.find_first_not_of(" \t\r\n", r + 1);
    if (r == std::string::npos ||
        !(std::isalpha(static_cast<unsigned char>(text[r])) || text[r] == '_' || text[r] == ':')) {
      continue;
    }
    size_t end = r;
    int angle = 0;
    while (end < text.size()) {
      char c = text[end];
      if (c == '<')
        ++angle;
      else if (c == '>' && angle > 0)
        --angle;
      else if (angle == 0 && !IsIdent(c) && c != ':')
        break;
      if (angle > 0 && (c == ';' || c == '{' || c == '}')) break;
      ++end;
    }
    size_t semi = text.find_first_not_of(" \t\r\n", end);
    if (semi == std::string::npos || text[semi] != ';' || angle != 0) continue;
    // Left side: NAME, or (*NAME)(...) of a function pointer.
    size_t l = eq;
    while (l > 0 && std::isspace(static_cast<unsigned char>(text[l - 1]))) --l;
    if (l > 0 && text[l - 1] == ')') {
      int depth = 0;
      while (l > 0) {
        char c = text[--l];
        if (c == ')') ++depth;
        if (c == '(' && --depth == 0) break;
      }
      while (l > 0 && std::isspace(static_cast<unsigned char>(text[l - 1]))) --l;
      if (l == 0 || text[l - 1] != ')') continue;
      --l;
    }
    size_t name_end = l;
    while (l > 0 && IsIdent(text[l - 1])) --l;
    if (l == name_end) continue;
    std::string name = text.substr(l, name_end - l);
    if (std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::string target = address ? "&" : "";
    target.append(text, r, end - r);
    out.push_back({eq, name, std::move(target)});
  }
  return out;
}

// The kernel behind a call's first argument when that is a local variable set before it.
void FollowAlias(const std::vector<Alias>& aliases, size_t at, DynamicSmemSite* site) {
  for (int hop = 0; hop < 4; ++hop) {
    std::string k = Trim(site->kernel);
    if (k.empty() || !std::all_of(k.begin(), k.end(), IsIdent)) return;
    const Alias* found = nullptr;
    for (const Alias& a : aliases) {
      if (a.pos < at && a.name == k) found = &a;
    }
    if (found == nullptr || found->expr == k) return;
    if (site->alias.empty()) site->alias = k;
    site->kernel = found->expr;
    at = found->pos;
  }
}

// Splits "a, f<1, 2>(x), c" at top-level commas (round, square, curly and angle brackets).
std::vector<std::string> SplitArgs(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  return out;
}

std::string BaseName(std::string_view kernel) {
  std::string k = Trim(kernel);
  k.erase(std::remove(k.begin(), k.end(), '&'), k.end());
  size_t lt = k.find('<');
  if (lt != std::string::npos) k = k.substr(0, lt);
  size_t colon = k.rfind("::");
  if (colon != std::string::npos) k = k.substr(colon + 2);
  // Casts such as (void*)kernel or reinterpret_cast<...>(kernel): keep the last identifier.
  size_t end = k.size();
  while (end > 0 && !IsIdent(k[end - 1])) --end;
  size_t start = end;
  while (start > 0 && IsIdent(k[start - 1])) --start;
  return k.substr(start, end - start);
}

int LineOf(const std::string& text, size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

}  // namespace

std::vector<DynamicSmemSite> ScanDynamicSmem(std::string_view source, const std::string& file) {
  std::vector<DynamicSmemSite> sites;
  if (source.size() > (size_t{64} << 20)) return sites;
  const std::string text = BlankCommentsAndStrings(source);
  std::map<std::string, std::string> unevaluated;
  const IntConstants constants = CollectConstants(text, &unevaluated);
  const std::vector<Alias> aliases = CollectAliases(text);
  auto finish = [&](DynamicSmemSite site, const std::string& value, size_t at) {
    site.file = file;
    site.value_expr = value;
    FollowAlias(aliases, at, &site);
    site.kernel_base = BaseName(site.kernel);
    auto v = EvaluateIntExpression(value, constants);
    if (v.ok()) {
      site.value = *v;
    } else if (auto u = unevaluated.find(Trim(value)); u != unevaluated.end()) {
      site.value_constexpr = u->second;
    }
    sites.push_back(std::move(site));
  };
  for (std::string_view fn : {"cudaFuncSetAttribute", "cuFuncSetAttribute"}) {
    size_t at = 0;
    while ((at = text.find(fn, at)) != std::string::npos) {
      size_t start = at;
      at += fn.size();
      if (start > 0 && IsIdent(text[start - 1])) continue;
      size_t open = text.find_first_not_of(" \t\r\n", at);
      if (open == std::string::npos || text[open] != '(') continue;
      int depth = 0;
      size_t close = open;
      for (; close < text.size(); ++close) {
        if (text[close] == '(') ++depth;
        if (text[close] == ')' && --depth == 0) break;
      }
      if (close >= text.size()) break;
      std::vector<std::string> args =
          SplitArgs(std::string_view(text).substr(open + 1, close - open - 1));
      if (args.size() != 3) continue;
      if (args[1].find("MaxDynamicSharedMemorySize") == std::string::npos &&
          args[1].find("MAX_DYNAMIC_SHARED_SIZE_BYTES") == std::string::npos) {
        continue;
      }
      DynamicSmemSite site;
      site.line = LineOf(text, start);
      site.via = std::string(fn);
      site.kernel = args[0];
      finish(std::move(site), args[2], start);
    }
  }
  size_t at = 0;
  while ((at = text.find("<<<", at)) != std::string::npos) {
    size_t start = at;
    size_t close = text.find(">>>", at + 3);
    if (close == std::string::npos) break;
    std::vector<std::string> args =
        SplitArgs(std::string_view(text).substr(at + 3, close - at - 3));
    at = close + 3;
    if (args.size() < 3) continue;
    // The kernel expression: back from "<<<" over identifiers, '::' and template arguments.
    size_t k = start;
    int angle = 0;
    while (k > 0) {
      char c = text[k - 1];
      if (c == '>')
        ++angle;
      else if (c == '<' && angle > 0)
        --angle;
      else if (angle == 0 && !IsIdent(c) && c != ':')
        break;
      --k;
    }
    DynamicSmemSite site;
    site.line = LineOf(text, start);
    site.via = "launch";
    site.kernel = Trim(std::string_view(text).substr(k, start - k));
    finish(std::move(site), args[2], start);
  }
  std::sort(sites.begin(), sites.end(),
            [](const DynamicSmemSite& a, const DynamicSmemSite& b) { return a.line < b.line; });
  return sites;
}

}  // namespace av
