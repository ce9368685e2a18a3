#include "core/text_diff.h"

#include <algorithm>
#include <vector>

namespace av {
namespace {

std::vector<std::string_view> Lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) nl = s.size();
    out.push_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

struct Edit {
  char op;      // ' ', '-', '+'
  size_t a, b;  // line indices (old, new)
};

}  // namespace

std::string UnifiedLineDiff(std::string_view old_text, std::string_view new_text,
                            const std::string& old_name, const std::string& new_name) {
  if (old_text == new_text) return "";
  std::vector<std::string_view> a = Lines(old_text), b = Lines(new_text);
  std::string header = "--- " + old_name + "\n+++ " + new_name + "\n";
  if (static_cast<double>(a.size() + 1) * static_cast<double>(b.size() + 1) > 4e6) {
    return header + "(" + std::to_string(a.size()) + " lines -> " + std::to_string(b.size()) +
           " lines; too large to show)\n";
  }
  size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({' ', i++, j++});
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      edits.push_back({'+', i, j++});
    } else {
      edits.push_back({'-', i++, j});
    }
  }
  // Hunks: changes with up to three lines of context around them.
  const size_t kContext = 3;
  std::string out = header;
  size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == ' ') ++k;
    if (k == edits.size()) break;
    size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;
    size_t quiet = 0;
    for (size_t e = k; e < edits.size(); ++e) {
      if (edits[e].op == ' ') {
        if (++quiet > 2 * kContext) break;
      } else {
        quiet = 0;
        end = e;
      }
    }
    end = std::min(edits.size(), end + kContext + 1);
    size_t old_count = 0, new_count = 0;
    for (size_t e = start; e < end; ++e) {
      old_count += edits[e].op != '+';
      new_count += edits[e].op != '-';
    }
    out += "@@ -" + std::to_string(edits[start].a + (old_count ? 1 : 0)) + "," +
           std::to_string(old_count) + " +" + std::to_string(edits[start].b + (new_count ? 1 : 0)) +
           "," + std::to_string(new_count) + " @@\n";
    for (size_t e = start; e < end; ++e) {
      std::string_view line = edits[e].op == '+' ? b[edits[e].b] : a[edits[e].a];
      out += edits[e].op;
      out += line;
      out += '\n';
    }
    k = end;
  }
  return out;
}

}  // namespace av
