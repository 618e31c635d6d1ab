#include "tuner/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/strings.h"

namespace tunefarm::tuner {
namespace {

constexpr double kWidth = 720, kPanelHeight = 300;
constexpr double kLeft = 70, kRight = 190, kTop = 30, kBottom = 45;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string Number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string Panel(const ChartPanel& panel, double y0) {
  double x_max = 0, y_max = 0;
  for (const ChartSeries& s : panel.series)
    for (const auto& [x, y] : s.points) {
      if (std::isfinite(x)) x_max = std::max(x_max, x);
      if (std::isfinite(y)) y_max = std::max(y_max, y);
    }
  if (x_max <= 0) x_max = 1;
  if (y_max <= 0) y_max = 1;
  y_max *= 1.05;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kPanelHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + plot_w * x / x_max; };
  auto py = [&](double y) { return y0 + kTop + plot_h * (1 - y / y_max); };
  std::string out;
  StrAppend(&out, "<text x=\"", kLeft, "\" y=\"", y0 + 18, "\" font-size=\"14\" font-weight=\"bold\">",
            Escape(panel.title), "</text>\n");
  StrAppend(&out, "<rect x=\"", kLeft, "\" y=\"", y0 + kTop, "\" width=\"", plot_w, "\" height=\"", plot_h,
            "\" fill=\"none\" stroke=\"#888\"/>\n");
  for (int i = 0; i <= 4; ++i) {
    const double xv = x_max * i / 4, yv = y_max * i / 4;
    StrAppend(&out, "<text x=\"", px(xv), "\" y=\"", y0 + kTop + plot_h + 15,
              "\" font-size=\"11\" text-anchor=\"middle\">", Number(xv), "</text>\n");
    StrAppend(&out, "<text x=\"", kLeft - 5, "\" y=\"", py(yv) + 4, "\" font-size=\"11\" text-anchor=\"end\">",
              Number(yv), "</text>\n");
    StrAppend(&out, "<line x1=\"", kLeft, "\" y1=\"", py(yv), "\" x2=\"", kLeft + plot_w, "\" y2=\"", py(yv),
              "\" stroke=\"#eee\"/>\n");
  }
  StrAppend(&out, "<text x=\"", kLeft + plot_w / 2, "\" y=\"", y0 + kPanelHeight - 8,
            "\" font-size=\"12\" text-anchor=\"middle\">", Escape(panel.x_label), "</text>\n");
  StrAppend(&out, "<text x=\"14\" y=\"", y0 + kTop + plot_h / 2, "\" font-size=\"12\" text-anchor=\"middle\" ",
            "transform=\"rotate(-90 14 ", y0 + kTop + plot_h / 2, ")\">", Escape(panel.y_label), "</text>\n");
  for (size_t i = 0; i < panel.series.size(); ++i) {
    const ChartSeries& s = panel.series[i];
    const char* color = kColors[i % (sizeof kColors / sizeof kColors[0])];
    std::string points;
    for (const auto& [x, y] : s.points)
      if (std::isfinite(x) && std::isfinite(y)) StrAppend(&points, Number(px(x)), ",", Number(py(y)), " ");
    StrAppend(&out, "<polyline fill=\"none\" stroke=\"", color, "\" stroke-width=\"1.8\" points=\"", points, "\"/>\n");
    const double ly = y0 + kTop + 14 + 16 * static_cast<double>(i);
    StrAppend(&out, "<line x1=\"", kLeft + plot_w + 10, "\" y1=\"", ly - 4, "\" x2=\"", kLeft + plot_w + 28, "\" y2=\"",
              ly - 4, "\" stroke=\"", color, "\" stroke-width=\"2\"/>\n");
    StrAppend(&out, "<text x=\"", kLeft + plot_w + 32, "\" y=\"", ly, "\" font-size=\"11\">", Escape(s.name),
              "</text>\n");
  }
  return out;
}

}  // namespace

std::string LineChartsSvg(const std::vector<ChartPanel>& panels) {
  const double height = kPanelHeight * static_cast<double>(std::max<size_t>(1, panels.size()));
  std::string out = StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", kWidth, "\" height=\"", height,
                           "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  for (size_t i = 0; i < panels.size(); ++i) out += Panel(panels[i], kPanelHeight * static_cast<double>(i));
  out += "</svg>\n";
  return out;
}

}  // namespace tunefarm::tuner
