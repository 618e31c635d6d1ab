// A line chart as a self-contained SVG file: tuning curves (best GFLOP/s or estimated latency
// against trials) for people to look at, written by `tunefarm tune` and the search benches.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tunefarm::tuner {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

struct ChartPanel {
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
};

// One panel per chart, stacked vertically in one SVG document.
std::string LineChartsSvg(const std::vector<ChartPanel>& panels);

}  // namespace tunefarm::tuner
