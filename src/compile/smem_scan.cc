#include "compile/smem_scan.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "compile/int_expr.h"

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

// The ')' that closes the '(' at `open`, looking at most `limit` characters ahead; npos
// when there is none that close.
size_t MatchingClose(std::string_view text, size_t open, size_t limit) {
  int depth = 0;
  for (size_t i = open; i < text.size() && i < open + limit; ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return i;
  }
  return std::string::npos;
}

// The expression inside casts: `(void*)k`, `(const void*)&k`, `reinterpret_cast<void*>(&k)`
// and `static_cast<...>(k)` -> `k` / `&k`.
std::string StripCasts(std::string expr) {
  for (int hop = 0; hop < 4; ++hop) {
    expr = Trim(expr);
    if (!expr.empty() && expr.front() == '(') {
      size_t close = MatchingClose(expr, 0, expr.size());
      if (close == std::string::npos || close + 1 >= expr.size()) return expr;
      expr = expr.substr(close + 1);
      continue;
    }
    bool cast = false;
    for (std::string_view c : {"reinterpret_cast<", "static_cast<", "const_cast<"}) {
      if (expr.rfind(c, 0) != 0) continue;
      size_t open = expr.find('(', c.size());
      size_t close = open == std::string::npos ? open : MatchingClose(expr, open, expr.size());
      if (close == std::string::npos) return expr;
      expr = expr.substr(open + 1, close - open - 1);
      cast = true;
      break;
    }
    if (!cast) return expr;
  }
  return expr;
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
    // A C-style cast first: `void const* k = (void const*) cutlass::device_kernel<K>;`.
    if (text[r] == '(') {
      size_t close = MatchingClose(text, r, 200);
      if (close == std::string::npos) continue;
      r = text.find_first_not_of(" \t\r\n", close + 1);
      if (r == std::string::npos) break;
    }
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
      // Template arguments hold expressions: `kHeadDim <= 128`, `a >= b`, `p->x` (as
      // flash-attention's `&flash_fwd_kernel<Traits, ..., Kernel_traits::kHeadDim <= 128,
      // ...>` does) are operators, not brackets.
      const char next = end + 1 < text.size() ? text[end + 1] : '\0';
      const char prev = end > 0 ? text[end - 1] : '\0';
      const bool op = (c == '<' || c == '>') && (next == '=' || (c == '>' && prev == '-'));
      if (c == '<' && !op)
        ++angle;
      else if (c == '>' && angle > 0 && !op)
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

// Launch calls that take the dynamic shared memory as an argument, or (smem_arg -1) in a
// launch configuration set before the call.
struct LaunchApi {
  std::string_view fn;
  int kernel_arg;
  int smem_arg;
  std::string_view config_field;
};
constexpr LaunchApi kLaunchApis[] = {
    {"cudaLaunchKernel", 0, 4, ""},             // (func, grid, block, args, sharedMem, stream)
    {"cudaLaunchCooperativeKernel", 0, 4, ""},  // the same
    {"cuLaunchKernel", 0, 7, ""},               // (f, gx, gy, gz, bx, by, bz, sharedMemBytes, ...)
    {"cuLaunchCooperativeKernel", 0, 7, ""},    // the same
    {"cudaLaunchKernelEx", 1, -1, "dynamicSmemBytes"},  // (&config, kernel, args...)
    {"cuLaunchKernelEx", 1, -1, "sharedMemBytes"},      // (&config, f, params, extra)
};

// The value last assigned to `field` before `before` (`cfg.dynamicSmemBytes = smem;`, or
// `.dynamicSmemBytes = smem,` in a designated initialiser); when there is none, text that
// is no compile-time constant, so the site counts as set at run time.
std::string ConfigField(const std::string& text, size_t before, std::string_view field) {
  for (size_t at = text.rfind(field, before); at != std::string::npos && at > 0;
       at = text.rfind(field, at - 1)) {
    if (IsIdent(text[at - 1]) || (at + field.size() < text.size() &&
                                  IsIdent(text[at + field.size()]))) {
      continue;
    }
    size_t eq = text.find_first_not_of(" \t\r\n", at + field.size());
    if (eq == std::string::npos || text[eq] != '=' ||
        (eq + 1 < text.size() && text[eq + 1] == '=')) {
      continue;
    }
    size_t end = eq + 1;
    int depth = 0;
    for (; end < text.size() && end < eq + 400; ++end) {
      char c = text[end];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth-- == 0) break;
      if (depth == 0 && (c == ';' || c == ',')) break;
    }
    return Trim(std::string_view(text).substr(eq + 1, end - eq - 1));
  }
  return std::string(field) + " (not set before the call)";
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
    site.kernel = StripCasts(site.kernel);
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
  for (const LaunchApi& api : kLaunchApis) {
    size_t at = 0;
    while ((at = text.find(api.fn, at)) != std::string::npos) {
      size_t start = at;
      at += api.fn.size();
      if ((start > 0 && IsIdent(text[start - 1])) || (at < text.size() && IsIdent(text[at])))
        continue;  // cudaLaunchKernel inside cudaLaunchKernelEx, or a longer name
      size_t open = text.find_first_not_of(" \t\r\n", at);
      if (open != std::string::npos && text[open] == '<') {  // cudaLaunchKernelEx<Args...>(
        open = text.find('(', open);
      }
      if (open == std::string::npos || text[open] != '(') continue;
      size_t close = MatchingClose(text, open, text.size());
      if (close == std::string::npos) break;
      std::vector<std::string> args =
          SplitArgs(std::string_view(text).substr(open + 1, close - open - 1));
      if (static_cast<int>(args.size()) <= std::max(api.kernel_arg, api.smem_arg)) continue;
      DynamicSmemSite site;
      site.line = LineOf(text, start);
      site.via = std::string(api.fn);
      site.kernel = args[api.kernel_arg];
      std::string value = api.smem_arg >= 0 ? args[api.smem_arg]
                                            : ConfigField(text, start, api.config_field);
      finish(std::move(site), value, start);
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
    if (args.size() < 2) continue;
    if (args.size() == 2) args.push_back("0");  // k<<<grid, block>>>: no dynamic shared memory
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
