// Resize's per-axis tables against ONNX's reference algorithm written out as it is there
// (onnx/reference/ops/op_resize.py): pad the data with edge values, take the n positions nearest
// to the coordinate (ties to the left, ratio 1 at an integer coordinate), weight them with the
// mode's coefficients. The tables use floor-based taps and clamping instead; this checks the two
// agree on every mode, coordinate rule and nearest rounding, over random extents and scales.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "compiler/graph/resize_tables.h"

namespace tunefarm::graph {
namespace {

double ReferenceCoordinate(const ResizeRule& rule, int64_t x, int64_t in, int64_t out, double scale, double r0,
                           double r1, bool* outside) {
  const std::string& m = rule.coordinate_transformation_mode;
  const double width = scale * static_cast<double>(in);
  *outside = false;
  if (m == "align_corners") return width == 1 ? 0 : x * (in - 1.0) / (width - 1);
  if (m == "asymmetric") return x / scale;
  if (m == "pytorch_half_pixel") return width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (m == "tf_crop_and_resize") {
    double c = out > 1 ? r0 * (in - 1.0) + x * (r1 - r0) * (in - 1.0) / (out - 1.0) : 0.5 * (r0 + r1) * (in - 1.0);
    *outside = c < 0 || c > in - 1.0;
    return c;
  }
  return (x + 0.5) / scale - 0.5;
}

double ReferenceInterpolate(const ResizeRule& rule, const std::vector<double>& data, int64_t x, int64_t out,
                            double scale, double r0, double r1, bool* outside) {
  const int64_t in = static_cast<int64_t>(data.size());
  const double c = ReferenceCoordinate(rule, x, in, out, scale, r0, r1, outside);
  if (*outside) return 0;
  const double c_int = std::floor(c);
  const double ratio = c == c_int ? 1.0 : c - c_int;
  std::vector<double> coeffs;
  if (rule.mode == "nearest") {
    if (ratio == 1.0) coeffs = {0, 1};
    else if (rule.nearest_mode == "round_prefer_floor") coeffs = {double(ratio <= 0.5), double(ratio > 0.5)};
    else if (rule.nearest_mode == "round_prefer_ceil") coeffs = {double(ratio < 0.5), double(ratio >= 0.5)};
    else if (rule.nearest_mode == "floor") coeffs = {1, 0};
    else coeffs = {0, 1};
  } else if (rule.mode == "linear") {
    coeffs = {1 - ratio, ratio};
  } else {
    const double A = rule.cubic_coeff_a;
    coeffs = {((A * (ratio + 1) - 5 * A) * (ratio + 1) + 8 * A) * (ratio + 1) - 4 * A,
              ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
              ((A + 2) * (1 - ratio) - (A + 3)) * (1 - ratio) * (1 - ratio) + 1,
              ((A * ((1 - ratio) + 1) - 5 * A) * ((1 - ratio) + 1) + 8 * A) * ((1 - ratio) + 1) - 4 * A};
  }
  const int64_t n = static_cast<int64_t>(coeffs.size()), pad = (n + 1) / 2;
  std::vector<double> padded;
  for (int64_t i = -pad; i < in + pad; ++i) padded.push_back(data[std::clamp<int64_t>(i, 0, in - 1)]);
  std::vector<int64_t> order(padded.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  const double xp = c + static_cast<double>(pad);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return std::fabs(xp - a) < std::fabs(xp - b); });
  std::vector<int64_t> idx(order.begin(), order.begin() + n);
  std::sort(idx.begin(), idx.end());
  if (rule.exclude_outside) {
    double sum = 0;
    for (int64_t t = 0; t < n; ++t) {
      if (idx[t] - pad < 0 || idx[t] - pad >= in) coeffs[t] = 0;
      sum += coeffs[t];
    }
    for (double& v : coeffs) v /= sum;
  }
  double value = 0;
  for (int64_t t = 0; t < n; ++t) value += coeffs[t] * padded[idx[t]];
  return value;
}

TEST(ResizeTables, AgreeWithTheReferenceAlgorithm) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1, 1);
  int checked = 0;
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* coords : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                               "tf_crop_and_resize"})
      for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
        for (bool exclude : {false, true}) {
          if (std::string(mode) != "nearest" && std::string(nearest) != "round_prefer_floor") continue;
          if (std::string(mode) != "cubic" && exclude) continue;
          ResizeRule rule{mode, coords, nearest, -0.5 - 0.25 * (checked % 2), exclude};
          ASSERT_TRUE(CheckResizeRule(rule).ok());
          for (int trial = 0; trial < 12; ++trial) {
            const int64_t in = 1 + static_cast<int64_t>(rng() % 9);
            // Scales of the forms conformance uses (0.5, 0.6, 2, 3) and arbitrary ones.
            const double scales[] = {0.5, 0.6, 0.8, 1.0, 1.7, 2.0, 3.0, 2.5 + unit(rng)};
            double scale = scales[rng() % 8];
            const int64_t out = std::max<int64_t>(1, static_cast<int64_t>(std::floor(scale * in)));
            if (trial % 3 == 0) scale = static_cast<double>(out) / in;  // as from `sizes`
            const double r0 = 0.2 * unit(rng), r1 = 1 + 0.2 * unit(rng);
            std::vector<double> data(in);
            for (double& v : data) v = unit(rng);
            ResizeTable table = MakeResizeTable(rule, in, out, scale, r0, r1);
            ASSERT_EQ(table.index.size(), static_cast<size_t>(out * table.taps));
            for (int64_t x = 0; x < out; ++x) {
              bool outside = false;
              const double want = ReferenceInterpolate(rule, data, x, out, scale, r0, r1, &outside);
              double got = 0, weights = 0;
              for (int64_t t = 0; t < table.taps; ++t) {
                const int64_t i = table.index[x * table.taps + t];
                ASSERT_TRUE(i >= 0 && i < in);
                got += table.weight[x * table.taps + t] * data[i];
                weights += table.weight[x * table.taps + t];
              }
              EXPECT_EQ(weights == 0, outside) << mode << " " << coords << " x " << x;
              if (!outside) {
                EXPECT_NEAR(got, want, 1e-9) << mode << " " << coords << " " << nearest << " in " << in << " out "
                                             << out << " scale " << scale << " x " << x;
              }
              ++checked;
            }
          }
        }
  EXPECT_GT(checked, 1000);
}

TEST(ResizeTables, UnresizedAxesAreIdentities) {
  for (const char* coords : {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"})
    for (const char* mode : {"nearest", "linear", "cubic"}) {
      ResizeRule rule{mode, coords};
      EXPECT_TRUE(MakeResizeTable(rule, 5, 5, 1.0, 0, 1).IsIdentity(5)) << mode << " " << coords;
      EXPECT_FALSE(MakeResizeTable(rule, 5, 10, 2.0, 0, 1).IsIdentity(5)) << mode << " " << coords;
    }
  // A crop is not an identity even when the extent stays.
  EXPECT_FALSE(MakeResizeTable({"linear", "tf_crop_and_resize"}, 5, 5, 1.0, 0.2, 0.8).IsIdentity(5));
}

TEST(ResizeTables, UnknownRulesAreNamedErrors) {
  EXPECT_NE(CheckResizeRule({"bicubic"}).message().find("mode 'bicubic'"), std::string::npos);
  EXPECT_NE(CheckResizeRule({"linear", "half_pixel_symmetric"}).message().find("half_pixel_symmetric"),
            std::string::npos);
  EXPECT_NE(CheckResizeRule({"nearest", "half_pixel", "round"}).message().find("nearest_mode 'round'"),
            std::string::npos);
}

}  // namespace
}  // namespace tunefarm::graph
