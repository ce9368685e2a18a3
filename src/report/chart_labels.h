// Labels for the HTML report's charts: a kernel name longer than a chart's label column is
// cut in the middle (its start names the kernel, its end holds the template arguments and
// parameters that usually tell instantiations apart), and labels that still coincide for
// different names are numbered (" #1", " #2", in order), so no two bars read the same.
// Pure; header-only.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace av {

inline std::string ElideLabel(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars || max_chars < 5) return s;
  const size_t keep = max_chars - 3;
  return s.substr(0, (keep + 1) / 2) + "..." + s.substr(s.size() - keep / 2);
}

// One label per name, each at most max_chars (+ " #n") characters; equal names get equal
// labels, different names different ones.
inline std::vector<std::string> ChartLabels(const std::vector<std::string>& names,
                                            size_t max_chars) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<std::string>> names_of;  // label -> names, first seen first
  for (const std::string& n : names) {
    out.push_back(ElideLabel(n, max_chars));
    std::vector<std::string>& v = names_of[out.back()];
    if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const std::vector<std::string>& v = names_of[out[i]];
    if (v.size() < 2) continue;
    out[i] += " #" + std::to_string(std::find(v.begin(), v.end(), names[i]) - v.begin() + 1);
  }
  return out;
}

}  // namespace av
