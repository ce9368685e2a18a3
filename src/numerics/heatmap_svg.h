// The SVG heatmap of a failing output: its HeatGrid (rows x heads, or m x n for GEMMs)
// coloured by error / tolerance, with axis labels, sequence ticks and a legend. Blue
// shades are within tolerance, yellow to dark red above it (log scale to 1000x), purple
// a NaN/inf mismatch. A writer: it formats what Localisation holds. Pure; any thread.
#pragma once

#include <string>

#include "numerics/localise.h"

namespace av {

std::string RenderHeatmapSvg(const Localisation& localisation, const std::string& title);

}  // namespace av
