#include "compile/ptxas_line.h"

#include <cctype>
#include <charconv>
#include <limits>

namespace av {
namespace {

// A cursor over one line with the few consuming helpers the formats need.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  std::string_view rest() const { return s_; }
  bool Done() const { return s_.empty(); }
  bool Eat(std::string_view prefix) {
    if (s_.substr(0, prefix.size()) != prefix) return false;
    s_.remove_prefix(prefix.size());
    return true;
  }
  void SkipSpaces() {
    while (!s_.empty() && (s_.front() == ' ' || s_.front() == '\t')) s_.remove_prefix(1);
  }
  // Decimal, no sign; fails on overflow past int64.
  bool Int(int64_t* out) {
    size_t n = 0;
    while (n < s_.size() && s_[n] >= '0' && s_[n] <= '9') ++n;
    if (n == 0 || n > 18) return false;
    auto r = std::from_chars(s_.data(), s_.data() + n, *out);
    if (r.ec != std::errc()) return false;
    s_.remove_prefix(n);
    return true;
  }
  // A count as ptxas prints it, also when it is not one ptxas would print: an optional
  // '-' and any number of digits. *bad when negative or over `max` (then *out is -1).
  bool Count(int64_t max, int64_t* out, bool* bad) {
    bool negative = !s_.empty() && s_.front() == '-';
    size_t n = negative ? 1 : 0;
    size_t digits = n;
    while (digits < s_.size() && s_[digits] >= '0' && s_[digits] <= '9') ++digits;
    if (digits == n) return false;
    int64_t v = 0;
    bool over = digits - n > 18;
    if (!over) {
      auto r = std::from_chars(s_.data() + n, s_.data() + digits, v);
      over = r.ec != std::errc();
    }
    s_.remove_prefix(digits);
    if (negative || over || v > max) {
      *bad = true;
      *out = -1;
    } else {
      *out = v;
    }
    return true;
  }
  bool Hex(int64_t* out) {
    if (!Eat("0x") && !Eat("0X")) return false;
    size_t n = 0;
    while (n < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[n]))) ++n;
    if (n == 0 || n > 15) return false;
    auto r = std::from_chars(s_.data(), s_.data() + n, *out, 16);
    if (r.ec != std::errc()) return false;
    s_.remove_prefix(n);
    return true;
  }
  // Text up to (not including) `delim`; consumes the delimiter too.
  bool Until(std::string_view delim, std::string_view* out) {
    size_t at = s_.find(delim);
    if (at == std::string_view::npos) return false;
    *out = s_.substr(0, at);
    s_.remove_prefix(at + delim.size());
    return true;
  }

 private:
  std::string_view s_;
};

bool SmallInt(Cursor* c, int* out) {
  int64_t v = 0;
  if (!c->Int(&v) || v > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(v);
  return true;
}

// One "N bytes X" / "N registers" / "used N barriers" item of a Used or module line:
// false when the item is not one we know. A known item with a bad count is listed in
// `bad_items` (and still returns true: the line was understood).
bool ParseItem(std::string_view item, UsedLine* out) {
  std::string_view trimmed = TrimSpaces(item);
  Cursor c(trimmed);
  bool bad = false;
  int64_t n = 0;
  auto keep_bad = [&]() {
    if (bad) out->bad_items.push_back(std::string(trimmed.substr(0, 200)));
    return true;
  };
  if (c.Eat("used ")) {
    if (!c.Count(kMaxPtxasBarriers, &n, &bad) || !c.Eat(" barriers") || !c.Done()) return false;
    if (!bad) out->barriers = static_cast<int>(n);
    return keep_bad();
  }
  if (!c.Count(kMaxPtxasBytes, &n, &bad)) return false;
  if (c.Eat(" registers")) {
    if (!c.Done()) return false;
    if (n > kMaxPtxasRegisters) bad = true;
    if (!bad) out->registers = static_cast<int>(n);
    return keep_bad();
  }
  if (c.Eat(" textures") || c.Eat(" samplers") || c.Eat(" surfaces")) return c.Done();
  if (!c.Eat(" bytes ")) return false;
  int64_t* field = nullptr;
  if (c.Eat("smem")) {
    field = &out->smem_bytes;
  } else if (c.Eat("gmem")) {
    field = &out->gmem_bytes;
  } else if (c.Eat("cumulative stack size")) {
    field = &out->cumulative_stack_bytes;
  } else if (c.Eat("cmem[")) {
    int bank = 0;
    if (!SmallInt(&c, &bank) || !c.Eat("]") || !c.Done()) return false;
    if (!bad) out->cmem.push_back({bank, n});
    return keep_bad();
  } else if (c.Eat("lmem")) {
    // Old toolkits; the stack line carries local memory now.
  } else {
    return false;
  }
  if (!c.Done()) return false;
  if (field != nullptr && !bad) *field = n;
  return keep_bad();
}

}  // namespace

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string_view StripTimestamp(std::string_view line) {
  // YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM] then a space (GitHub Actions, GitLab).
  if (line.size() < 20 || line[4] != '-' || line[7] != '-' ||
      (line[10] != 'T' && line[10] != ' ') || line[13] != ':' || line[16] != ':') {
    return line;
  }
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}) {
    if (line[i] < '0' || line[i] > '9') return line;
  }
  size_t end = line.find(' ', 19);
  if (end == std::string_view::npos || end > 40) return line;
  return line.substr(end + 1);
}

std::string_view FirstQuoted(std::string_view s) {
  size_t a = s.find('\'');
  if (a == std::string_view::npos) return {};
  size_t b = s.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return s.substr(a + 1, b - a - 1);
}

bool ParsePtxasLine(std::string_view line, PtxasLine* out) {
  size_t at = line.find("ptxas ");
  while (at != std::string_view::npos) {
    Cursor c(line.substr(at + 6));
    PtxasLine pl;
    bool ok = false;
    if (c.Eat("info")) {
      pl.level = PtxasLevel::kInfo, ok = true;
    } else if (c.Eat("warning")) {
      pl.level = PtxasLevel::kWarning, ok = true;
    } else if (c.Eat("error")) {
      pl.level = PtxasLevel::kError, ok = true;
    } else if (c.Eat("fatal")) {
      pl.level = PtxasLevel::kFatal, ok = true;
    } else {
      // "ptxas /tmp/x.ptx, line 12; error   : ..."
      std::string_view file;
      int64_t n = 0;
      if (c.Until(", line ", &file) && c.Int(&n) && c.Eat("; ") && n < (1 << 30)) {
        pl.file = file;
        pl.file_line = static_cast<int>(n);
        if (c.Eat("error"))
          pl.level = PtxasLevel::kError, ok = true;
        else if (c.Eat("warning"))
          pl.level = PtxasLevel::kWarning, ok = true;
        else if (c.Eat("fatal"))
          pl.level = PtxasLevel::kFatal, ok = true;
      }
    }
    if (ok) {
      c.SkipSpaces();
      if (c.Eat(":")) {
        c.SkipSpaces();
        pl.payload = TrimSpaces(c.rest());
        *out = pl;
        return true;
      }
    }
    at = line.find("ptxas ", at + 1);
  }
  return false;
}

bool ParseCompilingEntry(std::string_view payload, CompilingEntry* out) {
  Cursor c(payload);
  return c.Eat("Compiling entry function '") && c.Until("' for '", &out->name) &&
         c.Until("'", &out->arch) && c.Done() && !out->name.empty();
}

bool ParseFunctionProperties(std::string_view payload, std::string_view* name) {
  Cursor c(payload);
  if (!c.Eat("Function properties for ")) return false;
  *name = TrimSpaces(c.rest());
  if (name->size() >= 2 && name->front() == '\'' && name->back() == '\'') {
    *name = name->substr(1, name->size() - 2);
  }
  return !name->empty();
}

bool ConsumeUsedPrefix(std::string_view payload, std::string_view* items) {
  Cursor c(payload);
  if (!c.Eat("Used ")) return false;
  *items = c.rest();
  return true;
}

bool ParseUsedItems(std::string_view items, UsedLine* out) {
  bool all = true;
  while (!items.empty()) {
    size_t comma = items.find(',');
    std::string_view item = items.substr(0, comma);
    if (!ParseItem(item, out)) all = false;
    if (comma == std::string_view::npos) break;
    items.remove_prefix(comma + 1);
  }
  return all && out->bad_items.empty() && out->registers >= 0;
}

bool ParseModuleLine(std::string_view payload, UsedLine* out) {
  UsedLine tmp;
  std::string_view items = payload;
  while (true) {
    size_t comma = items.find(',');
    std::string_view item = TrimSpaces(items.substr(0, comma));
    if (!(item.find("gmem") != std::string_view::npos ||
          item.find("cmem[") != std::string_view::npos) ||
        !ParseItem(item, &tmp) || !tmp.bad_items.empty()) {
      return false;
    }
    if (comma == std::string_view::npos) break;
    items.remove_prefix(comma + 1);
  }
  *out = tmp;
  return true;
}

bool ParseCompileTime(std::string_view payload, double* ms) {
  Cursor c(payload);
  if (!c.Eat("Compile time = ")) return false;
  std::string_view rest = c.rest();
  size_t space = rest.find(' ');
  if (space == std::string_view::npos || rest.substr(space) != " ms") return false;
  double v = 0;
  auto r = std::from_chars(rest.data(), rest.data() + space, v);
  bool number = r.ec == std::errc() && r.ptr == rest.data() + space;
  *ms = number && v >= 0 && v < 1e12 ? v : -1;
  return true;
}

bool ParseRegisterOverride(std::string_view payload, RegisterOverride* out) {
  Cursor c(payload);
  int64_t old_limit = 0, limit = 0;
  if (!(c.Eat("Overriding maximum register limit ") && c.Int(&old_limit) && c.Eat(" for '") &&
        c.Until("' with", &out->name))) {
    return false;
  }
  c.SkipSpaces();
  if (!c.Int(&limit) || limit > 100000 || !c.Eat(" of maxrregcount option")) return false;
  out->limit = static_cast<int>(limit);
  return true;
}

bool ParseOverflow(std::string_view payload, SmemOverflow* out) {
  Cursor c(payload);
  if (!(c.Eat("Entry function '") && c.Until("' uses too much ", &out->name) &&
        c.Until(" data (", &out->what))) {
    return false;
  }
  return c.Hex(&out->bytes) && c.Eat(" bytes, ") && c.Hex(&out->max_bytes) && c.Eat(" max)");
}

bool ParseSpillWarning(std::string_view payload, SpillWarning* out) {
  Cursor c(payload);
  return c.Eat("Registers are spilled to local memory in function '") &&
         c.Until("', ", &out->name) && c.Int(&out->stores) && c.Eat(" bytes spill stores, ") &&
         c.Int(&out->loads) && c.Eat(" bytes spill loads");
}

bool ParseLocalMemoryWarning(std::string_view payload, SpillWarning* out) {
  Cursor c(payload);
  return c.Eat("Local memory used for function '") &&
         c.Until("', size of stack frame: ", &out->name) && c.Int(&out->stores) && c.Eat(" bytes");
}

bool ParseStackLine(std::string_view line, StackLine* out) {
  Cursor c(TrimSpaces(line));
  bool bad = false;
  bool ok = c.Count(kMaxPtxasBytes, &out->stack_frame, &bad) && c.Eat(" bytes stack frame, ") &&
            c.Count(kMaxPtxasBytes, &out->spill_stores, &bad) && c.Eat(" bytes spill stores, ") &&
            c.Count(kMaxPtxasBytes, &out->spill_loads, &bad) && c.Eat(" bytes spill loads") &&
            c.Done();
  if (!ok) return false;
  if (bad) {
    out->bad = true;
    out->stack_frame = out->spill_stores = out->spill_loads = -1;
  }
  return true;
}

bool ParseCompilerMessage(std::string_view line, CompilerMessage* out) {
  std::string_view t = TrimSpaces(line);
  Cursor c(t);
  if (c.Eat("nvcc ")) {
    std::string_view level;
    if (!c.Until(":", &level)) return false;
    level = TrimSpaces(level);
    if (level == "fatal" || level == "error")
      out->severity = Severity::kError;
    else if (level == "warning")
      out->severity = Severity::kWarning;
    else
      return false;
    out->tool = "nvcc";
    out->file = {};
    out->line = 0;
    out->message = TrimSpaces(c.rest());
    return true;
  }
  // FILE(LINE): error: / warning #N-D: / catastrophic error: / remark
  static constexpr std::string_view kLevels[] = {
      "error", "catastrophic error", "fatal error", "warning", "note", "remark"};
  auto level_of = [](std::string_view rest, Severity* sev, std::string_view* msg) {
    for (std::string_view lv : kLevels) {
      if (rest.substr(0, lv.size()) != lv) continue;
      std::string_view after = rest.substr(lv.size());
      size_t colon = after.find(": ");
      // "warning #177-D: ..." carries a number between the level and the colon.
      if (colon == std::string_view::npos || (colon > 0 && after[0] != ' ') || colon > 16) continue;
      *sev = lv == "warning"                    ? Severity::kWarning
             : (lv == "note" || lv == "remark") ? Severity::kNote
                                                : Severity::kError;
      *msg = TrimSpaces(after.substr(colon + 2));
      return true;
    }
    return false;
  };
  size_t paren = t.find("): ");
  if (paren != std::string_view::npos) {
    size_t open = t.rfind('(', paren);
    int64_t n = 0;
    Cursor num(open == std::string_view::npos ? std::string_view()
                                              : t.substr(open + 1, paren - open - 1));
    if (open != std::string_view::npos && open > 0 && num.Int(&n) && num.Done() && n < (1 << 30) &&
        level_of(t.substr(paren + 3), &out->severity, &out->message)) {
      out->tool = "nvcc";
      out->file = t.substr(0, open);
      out->line = static_cast<int>(n);
      return true;
    }
  }
  // FILE:LINE:COL: level: message (gcc/clang, host code)
  size_t pos = 0;
  while ((pos = t.find(": ", pos)) != std::string_view::npos) {
    std::string_view head = t.substr(0, pos);
    std::string_view rest = t.substr(pos + 2);
    size_t c1 = head.find(':');
    if (c1 != std::string_view::npos && c1 > 0) {
      Cursor nums(head.substr(c1 + 1));
      int64_t ln = 0, col = 0;
      bool ok = nums.Int(&ln) && (nums.Done() || (nums.Eat(":") && nums.Int(&col) && nums.Done()));
      if (ok && ln < (1 << 30) && level_of(rest, &out->severity, &out->message)) {
        out->tool = "compiler";
        out->file = head.substr(0, c1);
        out->line = static_cast<int>(ln);
        return true;
      }
    }
    pos += 2;
  }
  return false;
}

bool IsErrorSummary(std::string_view line) {
  std::string_view t = TrimSpaces(line);
  return t.find(" detected in the compilation of ") != std::string_view::npos &&
         (t.find(" error") != std::string_view::npos);
}

}  // namespace av
