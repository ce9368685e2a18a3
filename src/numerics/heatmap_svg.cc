#include "numerics/heatmap_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/markup.h"

namespace av {
namespace {

struct Rgb {
  double r, g, b;
};
Rgb Mix(Rgb a, Rgb b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

std::string Hex(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(c.r)),
                static_cast<int>(std::lround(c.g)), static_cast<int>(std::lround(c.b)));
  return buf;
}

// 0 white; (0, 1] white to blue; (1, 1000] yellow, red, dark red on log10; NaN/inf purple.
std::string Colour(double ratio) {
  const Rgb white{255, 255, 255}, blue{107, 174, 214}, yellow{254, 224, 139}, red{215, 48, 39},
      dark{103, 0, 13};
  if (std::isinf(ratio) || std::isnan(ratio)) return "#54278f";
  if (ratio <= 0) return Hex(white);
  if (ratio <= 1) return Hex(Mix(white, blue, ratio));
  double t = std::min(std::log10(ratio) / 3.0, 1.0);
  return Hex(t < 0.5 ? Mix(yellow, red, t * 2) : Mix(red, dark, (t - 0.5) * 2));
}

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// `text` in lines of at most `max_chars` characters, broken at spaces (a word longer than
// a line is cut), so a long case id never runs past the picture's right edge.
std::vector<std::string> WrapWords(const std::string& text, size_t max_chars) {
  std::vector<std::string> lines(1);
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    while (word.size() > max_chars) {
      if (!lines.back().empty()) lines.emplace_back();
      lines.back() = word.substr(0, max_chars);
      word.erase(0, max_chars);
      lines.emplace_back();
    }
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > max_chars)
      lines.emplace_back();
    if (!word.empty()) lines.back() += (lines.back().empty() ? "" : " ") + word;
    i = j + 1;
  }
  if (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  return lines;
}

}  // namespace

std::string RenderHeatmapSvg(const Localisation& loc, const std::string& title) {
  const HeatGrid& h = loc.heat;
  const double left = 120, plot_w = 640, plot_h = 400;
  const double cw =
      std::clamp(plot_w / static_cast<double>(std::max<int64_t>(h.cols, 1)), 2.0, 32.0);
  const double ch =
      std::clamp(plot_h / static_cast<double>(std::max<int64_t>(h.rows, 1)), 1.5, 24.0);
  const double w = cw * static_cast<double>(h.cols), hh = ch * static_cast<double>(h.rows);
  const double width = left + w + 200;
  // The title (13 px bold, about 8 px a character) and the line under it (11 px, about
  // 6.5 px) are wrapped to the picture's width; the plot starts below them.
  const std::vector<std::string> title_lines =
      WrapWords(title, static_cast<size_t>((width - 16) / 8));
  const std::string subtitle = std::to_string(loc.errors) + " of " +
                               std::to_string(loc.elements) +
                               " elements out of tolerance; colour = max error / tolerance per cell";
  const std::vector<std::string> sub_lines =
      WrapWords(subtitle, static_cast<size_t>((width - 16) / 6.5));
  const double top = 56 + 16.0 * static_cast<double>(title_lines.size() - 1) +
                     14.0 * static_cast<double>(sub_lines.size() - 1);
  const double height = std::max(top + hh + 70, 360.0);
  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Fmt("%.0f", width) + "\" height=\"" +
       Fmt("%.0f", height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<title>" + EscapeMarkup(title) +
       "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  double text_y = 18;
  for (const std::string& line : title_lines) {
    s += "<text x=\"8\" y=\"" + Fmt("%.0f", text_y) + "\" font-size=\"13\" font-weight=\"bold\">" +
         EscapeMarkup(line) + "</text>\n";
    text_y += 16;
  }
  text_y += 2;
  for (const std::string& line : sub_lines) {
    s += "<text x=\"8\" y=\"" + Fmt("%.0f", text_y) + "\">" + EscapeMarkup(line) + "</text>\n";
    text_y += 14;
  }
  s += "<g shape-rendering=\"crispEdges\">\n";
  for (int64_t r = 0; r < h.rows; ++r) {
    for (int64_t c = 0; c < h.cols; ++c) {
      double v = h.ratio[static_cast<size_t>(r * h.cols + c)];
      if (v <= 0) continue;
      s += "<rect x=\"" + Fmt("%.2f", left + cw * static_cast<double>(c)) + "\" y=\"" +
           Fmt("%.2f", top + ch * static_cast<double>(r)) + "\" width=\"" + Fmt("%.2f", cw) +
           "\" height=\"" + Fmt("%.2f", ch) + "\" fill=\"" + Colour(v) + "\"><title>" +
           Fmt("%.3g", v) + "</title></rect>\n";
    }
  }
  s += "</g>\n<rect x=\"" + Fmt("%.0f", left) + "\" y=\"" + Fmt("%.0f", top) + "\" width=\"" +
       Fmt("%.2f", w) + "\" height=\"" + Fmt("%.2f", hh) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  // Axes: row ticks on the left, column ticks below.
  for (const auto& [row, label] : h.row_ticks) {
    double y = top + ch * static_cast<double>(row);
    s += "<line x1=\"" + Fmt("%.0f", left - 4) + "\" x2=\"" + Fmt("%.0f", left) + "\" y1=\"" +
         Fmt("%.2f", y) + "\" y2=\"" + Fmt("%.2f", y) + "\" stroke=\"#444\"/><text x=\"" +
         Fmt("%.0f", left - 6) + "\" y=\"" + Fmt("%.2f", y + 4) + "\" text-anchor=\"end\">" +
         EscapeMarkup(label) + "</text>\n";
  }
  for (int t = 0; t < 5 && h.cols > 0; ++t) {
    int64_t c = t * (h.cols - 1) / 4;
    if (t > 0 && c == (t - 1) * (h.cols - 1) / 4) continue;
    double x = left + cw * (static_cast<double>(c) + 0.5);
    s += "<text x=\"" + Fmt("%.2f", x) + "\" y=\"" + Fmt("%.2f", top + hh + 14) +
         "\" text-anchor=\"middle\">" + std::to_string(c * h.col_bucket) + "</text>\n";
  }
  std::string row_label =
      h.row_axis + (h.row_bucket > 1 ? " (" + std::to_string(h.row_bucket) + " per cell)" : "");
  std::string col_label =
      h.col_axis + (h.col_bucket > 1 ? " (" + std::to_string(h.col_bucket) + " per cell)" : "");
  s += "<text x=\"" + Fmt("%.2f", left + w / 2) + "\" y=\"" + Fmt("%.2f", top + hh + 32) +
       "\" text-anchor=\"middle\" font-weight=\"bold\">" + EscapeMarkup(col_label) + "</text>\n";
  s += "<text transform=\"translate(14," + Fmt("%.2f", top + hh / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" font-weight=\"bold\">" + EscapeMarkup(row_label) +
       "</text>\n";
  // Legend.
  const double lx = left + w + 30;
  s += "<text x=\"" + Fmt("%.0f", lx) + "\" y=\"" + Fmt("%.0f", top) +
       "\" font-weight=\"bold\">error / tolerance</text>\n";
  const std::pair<double, const char*> stops[] = {
      {0.25, "0.25"}, {0.5, "0.5"}, {1, "1 (tolerance)"}, {3, "3"},
      {10, "10"},     {100, "100"}, {1000, ">= 1000"},    {INFINITY, "NaN/inf mismatch"}};
  double y = top + 10;
  for (const auto& [v, label] : stops) {
    s += "<rect x=\"" + Fmt("%.0f", lx) + "\" y=\"" + Fmt("%.0f", y) +
         "\" width=\"16\" height=\"14\" fill=\"" + Colour(v) + "\" stroke=\"#888\"/><text x=\"" +
         Fmt("%.0f", lx + 22) + "\" y=\"" + Fmt("%.0f", y + 11) + "\">" + label + "</text>\n";
    y += 20;
  }
  s += "</svg>\n";
  return s;
}

}  // namespace av
