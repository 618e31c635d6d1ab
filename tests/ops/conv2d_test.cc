// Conv2d (NCHW) against a direct-loop reference.
#include "compiler/ops/conv2d.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

TEST(Conv2d, StridePaddingDilationGroupsEveryFloatDType) {
  uint64_t seed = 1;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const ConvCase& c : ConvCases()) {
      HostTensor x = Random(t, {c.n, c.c, c.h, c.w}, seed++);
      HostTensor w = Random(t, {c.k, c.c / c.p.groups, c.r, c.s}, seed++);
      HostTensor got = RunOp({x, w}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Conv2d(b, in[0], in[1], c.p);
      });
      EXPECT_TRUE(AllClose(got, Conv2dReference(x, w, c.p), 1e-5, 1e-5))
          << te::DTypeName(t) << " input " << ShapeString(x.shape) << " weight " << ShapeString(w.shape)
          << " groups " << c.p.groups;
    }
  }
}

// int32: the integer convolutions of quantized models (ConvInteger, QLinearConv) run on int32
// operands; small values keep every sum exact, so the reference's double arithmetic agrees.
TEST(Conv2d, Int32IsExact) {
  uint64_t seed = 200;
  for (const ConvCase& c : ConvCases()) {
    HostTensor x = Random(DType::kInt32, {c.n, c.c, c.h, c.w}, seed++, -128, 127);
    HostTensor w = Random(DType::kInt32, {c.k, c.c / c.p.groups, c.r, c.s}, seed++, -128, 127);
    HostTensor got = RunOp({x, w}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Conv2d(b, in[0], in[1], c.p); });
    EXPECT_TRUE(AllClose(got, Conv2dReference(x, w, c.p))) << "input " << ShapeString(x.shape) << " groups " << c.p.groups;
  }
}

TEST(Conv2d, ShortFormMatchesAndPad2dPadsTheLastTwoAxes) {
  HostTensor x = Random(DType::kFloat32, {1, 2, 3, 4}, 40);
  HostTensor padded = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
    return Pad2d(b, in[0], {1, 0, 2, 3}, 7.0);
  });
  HostTensor want(DType::kFloat32, {1, 2, 6, 7});
  ForEachIndex(want.shape, [&](const std::vector<int64_t>& i) {
    int64_t y = i[2] - 1, xx = i[3];
    want.at(i) = y >= 0 && y < 3 && xx < 4 ? x.at({i[0], i[1], y, xx}) : 7.0;
  });
  EXPECT_TRUE(AllClose(padded, want));
}

TEST(Conv2d, RejectsBadShapes) {
  auto status = [](Shape xs, Shape ws, Conv2dParams p, DType t = DType::kFloat32) {
    return BuildStatus({HostTensor(t, xs), HostTensor(t, ws)},
                       [&](DagBuilder& b, const std::vector<Tensor>& in) { return Conv2d(b, in[0], in[1], p); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5, 5}, {4, 2, 3, 3}, {})));               // channels
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 4, 5, 5}, {3, 2, 3, 3}, {{1, 1}, {}, {1, 1}, 2})));  // K % groups
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 2, 2}, {4, 3, 3, 3}, {})));               // kernel too big
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5}, {4, 3, 3, 3}, {})));                  // rank
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5, 5}, {4, 3, 3, 3}, {}, DType::kInt8)));  // dtype (int32 is the one integer type)
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5, 5}, {4, 3, 3, 3}, {{0, 1}, {}, {1, 1}, 1})));  // stride
}

}  // namespace
}  // namespace tunefarm::ops::testing
