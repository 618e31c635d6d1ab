#include "compiler/graph/resize_tables.h"

#include <algorithm>
#include <cmath>

#include "common/strings.h"

namespace tunefarm::graph {
namespace {

bool OneOf(const std::string& v, std::initializer_list<const char*> options) {
  for (const char* o : options)
    if (v == o) return true;
  return false;
}

// The input coordinate output position x maps to; `outside` when it lies outside the input
// under tf_crop_and_resize (the output is then the extrapolation value).
double SourceCoordinate(const ResizeRule& rule, int64_t x, int64_t in, int64_t out, double scale, double roi_start,
                        double roi_end, bool* outside) {
  const std::string& mode = rule.coordinate_transformation_mode;
  const double length = scale * static_cast<double>(in);  // unrounded, as the reference has it
  const double xd = static_cast<double>(x), last = static_cast<double>(in - 1);
  *outside = false;
  if (mode == "align_corners") return length == 1 ? 0.0 : xd * last / (length - 1);
  if (mode == "asymmetric") return xd / scale;
  if (mode == "pytorch_half_pixel") return length == 1 ? -0.5 : (xd + 0.5) / scale - 0.5;
  if (mode == "tf_half_pixel_for_nn") return (xd + 0.5) / scale;
  if (mode == "tf_crop_and_resize") {
    const double c = out > 1 ? roi_start * last + xd * (roi_end - roi_start) * last / static_cast<double>(out - 1)
                             : 0.5 * (roi_start + roi_end) * last;
    *outside = c < 0 || c > last;
    return c;
  }
  return (xd + 0.5) / scale - 0.5;  // half_pixel
}

// Weights of the taps floor(c) - taps/2 + 1 .. floor(c) + taps/2 at fraction r = c - floor(c).
std::vector<double> Coefficients(const ResizeRule& rule, double r) {
  if (rule.mode == "linear") return {1 - r, r};
  const double a = rule.cubic_coeff_a;
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 <= d < 2
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };      // 0 <= d < 1
  return {far(1 + r), near(r), near(1 - r), far(2 - r)};
}

int64_t NearestIndex(const ResizeRule& rule, double c) {
  const double f = std::floor(c), r = c - f;
  if (r == 0) return static_cast<int64_t>(f);
  bool up = false;
  if (rule.nearest_mode == "round_prefer_floor") up = r > 0.5;
  else if (rule.nearest_mode == "round_prefer_ceil") up = r >= 0.5;
  else if (rule.nearest_mode == "ceil") up = true;
  return static_cast<int64_t>(f) + (up ? 1 : 0);
}

}  // namespace

bool ResizeTable::IsIdentity(int64_t in) const {
  if (extrapolates || static_cast<int64_t>(index.size()) != in * taps) return false;
  for (int64_t o = 0; o < in; ++o)
    for (int64_t t = 0; t < taps; ++t) {
      const double w = weight[o * taps + t];
      if (w != 0 && (w != 1 || index[o * taps + t] != o)) return false;
    }
  return true;
}

absl::Status CheckResizeRule(const ResizeRule& rule) {
  if (!OneOf(rule.mode, {"nearest", "linear", "cubic"}))
    return absl::InvalidArgumentError(StrCat("mode '", rule.mode, "' is not nearest, linear or cubic"));
  if (!OneOf(rule.coordinate_transformation_mode, {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                                   "tf_half_pixel_for_nn", "tf_crop_and_resize"}))
    return absl::InvalidArgumentError(
        StrCat("coordinate_transformation_mode '", rule.coordinate_transformation_mode, "' is not supported"));
  if (!OneOf(rule.nearest_mode, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}))
    return absl::InvalidArgumentError(StrCat("nearest_mode '", rule.nearest_mode, "' is not supported"));
  return absl::OkStatus();
}

ResizeTable MakeResizeTable(const ResizeRule& rule, int64_t in, int64_t out, double scale, double roi_start,
                            double roi_end) {
  ResizeTable table;
  table.taps = rule.mode == "nearest" ? 1 : rule.mode == "linear" ? 2 : 4;
  table.index.reserve(out * table.taps);
  table.weight.reserve(out * table.taps);
  for (int64_t x = 0; x < out; ++x) {
    bool outside = false;
    const double c = SourceCoordinate(rule, x, in, out, scale, roi_start, roi_end, &outside);
    table.extrapolates = table.extrapolates || outside;
    std::vector<int64_t> taps;
    std::vector<double> w;
    if (rule.mode == "nearest") {
      taps = {NearestIndex(rule, c)};
      w = {1.0};
    } else {
      const double f = std::floor(c);
      w = Coefficients(rule, c - f);
      const int64_t first = static_cast<int64_t>(f) - (table.taps / 2 - 1);
      for (int64_t t = 0; t < table.taps; ++t) taps.push_back(first + t);
      if (rule.exclude_outside) {
        double total = 0;
        for (int64_t t = 0; t < table.taps; ++t) {
          if (taps[t] < 0 || taps[t] >= in) w[t] = 0;
          total += w[t];
        }
        for (double& v : w) v = total != 0 ? v / total : 0;
      }
    }
    for (int64_t t = 0; t < table.taps; ++t) {
      table.index.push_back(std::clamp<int64_t>(taps[t], 0, in - 1));  // the reference pads with edge values
      table.weight.push_back(outside ? 0.0 : w[t]);
    }
  }
  return table;
}

}  // namespace tunefarm::graph
