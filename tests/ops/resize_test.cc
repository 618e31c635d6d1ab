// ops::Resize against its definition written out: every combination of one tap per resized axis,
// weights multiplied, indices clamped into the axis, extrapolation where an axis's weights are 0.
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

}  // namespace
}  // namespace tunefarm::ops::testing
