// ops::Resize against its definition written out: every combination of one tap per resized axis,
// weights multiplied, indices clamped into the axis, extrapolation where an axis's weights are 0.
// ops::GridSample against ONNX's reference algorithm written out, in every mode and padding.
#include <array>
#include <cmath>

#include "compiler/ops/grid_sample.h"
#include "compiler/ops/resize.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

struct AxisTable {
  int axis;
  HostTensor index, weight;  // weight empty: unweighted
};

HostTensor Reference(const HostTensor& x, const std::vector<AxisTable>& axes, std::optional<double> extrapolation) {
  Shape shape = x.shape;
  for (const AxisTable& a : axes) shape[a.axis] = a.index.shape[0];
  HostTensor out(x.dtype, shape);
  ForEachIndex(shape, [&](const std::vector<int64_t>& o) {
    double total = 0;
    bool outside = false;
    std::vector<int64_t> tap(axes.size(), 0);
    while (true) {
      std::vector<int64_t> at = o;
      double w = 1;
      for (size_t d = 0; d < axes.size(); ++d) {
        const AxisTable& a = axes[d];
        const int64_t raw = static_cast<int64_t>(a.index.at({o[a.axis], tap[d]}));
        at[a.axis] = std::clamp<int64_t>(raw, 0, x.shape[a.axis] - 1);
        if (!a.weight.data.empty()) w *= a.weight.at({o[a.axis], tap[d]});
      }
      total += w * x.at(at);
      size_t d = 0;
      for (; d < axes.size() && ++tap[d] == axes[d].index.shape[1]; ++d) tap[d] = 0;
      if (d == axes.size()) break;
    }
    for (const AxisTable& a : axes) {
      if (a.weight.data.empty()) continue;
      double sum = 0;
      for (int64_t t = 0; t < a.index.shape[1]; ++t) sum += a.weight.at({o[a.axis], t});
      outside = outside || sum <= 0.5;
    }
    out.at(o) = extrapolation && outside ? *extrapolation : StoreAs(x.dtype, total);
  });
  return out;
}

absl::StatusOr<Tensor> Build(DagBuilder& b, const std::vector<Tensor>& in, const std::vector<AxisTable>& axes,
                             std::optional<double> extrapolation) {
  std::vector<ResizeAxis> tables;
  size_t next = 1;
  for (const AxisTable& a : axes) {
    ResizeAxis r{a.axis, in[next++], std::nullopt};
    if (!a.weight.data.empty()) r.weight = in[next++];
    tables.push_back(r);
  }
  return Resize(b, in[0], tables, extrapolation);
}

std::vector<HostTensor> Inputs(const HostTensor& x, const std::vector<AxisTable>& axes) {
  std::vector<HostTensor> in = {x};
  for (const AxisTable& a : axes) {
    in.push_back(a.index);
    if (!a.weight.data.empty()) in.push_back(a.weight);
  }
  return in;
}

TEST(Resize, WeightedTablesOnTwoAxesMatchTheDefinition) {
  uint64_t seed = 7;
  for (int64_t taps : {2, 4}) {
    for (DType t : {DType::kFloat32, DType::kFloat64}) {
      HostTensor x = Random(t, {2, 3, 5, 4}, seed++);
      std::vector<AxisTable> axes;
      for (auto [axis, out] : {std::pair{2, 7}, std::pair{3, 3}}) {
        // Indices from -2 to in + 1: the kernel clamps the ones outside the axis.
        HostTensor index = Random(DType::kInt64, {out, taps}, seed++, -2, static_cast<double>(x.shape[axis] + 1));
        HostTensor weight = Random(t, {out, taps}, seed++, -0.5, 1.5);
        axes.push_back({axis, index, weight});
      }
      HostTensor got = RunOp(Inputs(x, axes), [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Build(b, in, axes, std::nullopt);
      });
      EXPECT_TRUE(AllClose(got, Reference(x, axes, std::nullopt), 1e-6, 1e-6)) << "taps " << taps;
    }
  }
}

TEST(Resize, NearestGathersAnyDtypeWithoutWeights) {
  uint64_t seed = 21;
  for (DType t : {DType::kUInt8, DType::kInt32, DType::kFloat32}) {
    HostTensor x = Random(t, {3, 4, 2}, seed++, 0, 100);
    std::vector<AxisTable> axes = {{0, Random(DType::kInt64, {5, 1}, seed++, 0, 2), {}},
                                   {1, Random(DType::kInt64, {2, 1}, seed++, 0, 3), {}}};
    HostTensor got = RunOp(Inputs(x, axes), [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Build(b, in, axes, std::nullopt);
    });
    EXPECT_TRUE(AllClose(got, Reference(x, axes, std::nullopt))) << te::DTypeName(t);
  }
}

TEST(Resize, PositionsWhoseWeightsAreZeroTakeTheExtrapolationValue) {
  HostTensor x = Random(DType::kFloat32, {4, 4}, 3);
  HostTensor index(DType::kInt64, {3, 2}), weight(DType::kFloat32, {3, 2});
  index.data = {0, 1, 2, 3, 3, 3};
  weight.data = {0.25, 0.75, 0, 0, 1, 0};  // row 1 is outside the input
  std::vector<AxisTable> axes = {{1, index, weight}};
  HostTensor got = RunOp(Inputs(x, axes), [&](DagBuilder& b, const std::vector<Tensor>& in) {
    return Build(b, in, axes, -7.5);
  });
  EXPECT_TRUE(AllClose(got, Reference(x, axes, -7.5), 1e-6, 1e-6));
  EXPECT_EQ(got.at({2, 1}), -7.5);
}

TEST(Resize, BadTablesAreErrors) {
  HostTensor x = Random(DType::kInt32, {4, 4}, 3);
  HostTensor index(DType::kInt64, {3, 2}), weight(DType::kFloat32, {3, 2});
  // Two taps need weights; weights need a float input.
  EXPECT_FALSE(BuildStatus({x, index}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                 return Resize(b, in[0], {{0, in[1], std::nullopt}}, std::nullopt);
               }).ok());
  EXPECT_FALSE(BuildStatus({x, index, weight}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                 return Resize(b, in[0], {{0, in[1], in[2]}}, std::nullopt);
               }).ok());
  HostTensor one_tap(DType::kInt64, {3, 1});
  EXPECT_FALSE(BuildStatus({x, one_tap, one_tap}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                 return Resize(b, in[0], {{0, in[1], std::nullopt}, {0, in[2], std::nullopt}}, std::nullopt);
               }).ok()) << "a repeated axis";
}

// GridSample for one sample of one [H, W] plane, as PyTorch defines it (ONNX follows it): nearest
// rounds ties to even; nearest and bilinear pad the coordinate, bicubic each tap. Written as
// scalar code; the conformance cases pin bilinear in each padding and bicubic with zeros.
double ReflectValue(double v, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (v < lo) {
    const double d = lo - v, turns = std::floor(d / range), rest = d - turns * range;
    return std::fmod(turns, 2) == 0 ? lo + rest : hi - rest;
  }
  if (v > hi) {
    const double d = v - hi, turns = std::floor(d / range), rest = d - turns * range;
    return std::fmod(turns, 2) == 0 ? hi - rest : lo + rest;
  }
  return v;
}

double SampleReference(const std::vector<double>& plane, int64_t H, int64_t W, double gx, double gy, GridSampleMode mode,
                       GridSamplePadding pad, bool align) {
  auto unnormalize = [&](double g, int64_t n) { return align ? (g + 1) / 2 * (n - 1) : ((g + 1) * n - 1) / 2; };
  const double lo = align ? 0 : -0.5;
  const double hi_x = align ? W - 1.0 : W - 0.5, hi_y = align ? H - 1.0 : H - 0.5;
  double x = unnormalize(gx, W), y = unnormalize(gy, H);
  if (mode == GridSampleMode::kNearest) {
    x = std::nearbyint(x);
    y = std::nearbyint(y);
  }
  // Bicubic pads each tap only (below), the others the coordinate too.
  if (pad == GridSamplePadding::kBorder && mode != GridSampleMode::kBicubic) {
    x = std::clamp(x, 0.0, W - 1.0);
    y = std::clamp(y, 0.0, H - 1.0);
  }
  if (pad == GridSamplePadding::kReflection && mode != GridSampleMode::kBicubic) {
    x = ReflectValue(x, lo, hi_x);
    y = ReflectValue(y, lo, hi_y);
  }
  auto pixel = [&](double px, double py) {
    if (pad == GridSamplePadding::kZeros) {
      if (px < 0 || px >= W || py < 0 || py >= H) return 0.0;
    } else if (pad == GridSamplePadding::kBorder) {
      px = std::clamp(px, 0.0, W - 1.0);
      py = std::clamp(py, 0.0, H - 1.0);
    } else {
      px = ReflectValue(px, lo, hi_x);
      py = ReflectValue(py, lo, hi_y);
    }
    const int64_t c = std::clamp<int64_t>(static_cast<int64_t>(px), 0, W - 1);
    const int64_t r = std::clamp<int64_t>(static_cast<int64_t>(py), 0, H - 1);
    return plane[r * W + c];
  };
  if (mode == GridSampleMode::kNearest) return pixel(x, y);
  const double x0 = std::floor(x), y0 = std::floor(y), tx = x - x0, ty = y - y0;
  if (mode == GridSampleMode::kBilinear)
    return (1 - ty) * ((1 - tx) * pixel(x0, y0) + tx * pixel(x0 + 1, y0)) +
           ty * ((1 - tx) * pixel(x0, y0 + 1) + tx * pixel(x0 + 1, y0 + 1));
  const double A = -0.75;
  auto coeffs = [&](double t) {
    return std::array<double, 4>{((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
                                 ((A + 2) * t - (A + 3)) * t * t + 1, ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1,
                                 ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A};
  };
  const auto cx = coeffs(tx), cy = coeffs(ty);
  double sum = 0;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i) sum += cy[j] * cx[i] * pixel(x0 - 1 + i, y0 - 1 + j);
  return sum;
}

TEST(GridSample, EveryModeAndPaddingWithAndWithoutAlignedCorners) {
  const int64_t N = 1, C = 2, H = 3, W = 4, Ho = 3, Wo = 4;
  uint64_t seed = 70;
  for (GridSampleMode mode : {GridSampleMode::kNearest, GridSampleMode::kBilinear, GridSampleMode::kBicubic})
    for (GridSamplePadding pad : {GridSamplePadding::kZeros, GridSamplePadding::kBorder, GridSamplePadding::kReflection})
      for (bool align : {false, true}) {
        HostTensor x = Random(DType::kFloat64, {N, C, H, W}, seed++);
        HostTensor grid = Random(DType::kFloat64, {N, Ho, Wo, 2}, seed++, -1.7, 1.7);  // some samples outside
        HostTensor want(DType::kFloat64, {N, C, Ho, Wo});
        ForEachIndex(want.shape, [&](const std::vector<int64_t>& i) {
          std::vector<double> plane(x.data.begin() + (i[0] * C + i[1]) * H * W, x.data.begin() + (i[0] * C + i[1] + 1) * H * W);
          want.at(i) = SampleReference(plane, H, W, grid.at({i[0], i[2], i[3], 0}), grid.at({i[0], i[2], i[3], 1}), mode, pad, align);
        });
        HostTensor got = RunOp({x, grid}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return GridSample(b, in[0], in[1], GridSampleParams{mode, pad, align});
        });
        EXPECT_TRUE(AllClose(got, want, 1e-9, 1e-9))
            << "mode " << static_cast<int>(mode) << " padding " << static_cast<int>(pad) << " align " << align;
      }
}

}  // namespace
}  // namespace tunefarm::ops::testing
