// NCHW <-> NCHW[x]c layout transforms, weight packing and conv2d in NCHW[x]c, against plain
// loops (the conv is checked through the NCHW reference and the reference packers).
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/layout.h"
#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor UnpackReference(const HostTensor& t, int64_t channels) {
  Shape shape(t.shape.begin(), t.shape.end() - 1);
  shape[1] = channels;
  const int64_t x = t.shape.back();
  HostTensor out(t.dtype, shape);
  ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src = i;
    src[1] = i[1] / x;
    src.push_back(i[1] % x);
    out.at(i) = t.at(src);
  });
  return out;
}

// [K, Cg, R, S] -> [ceil(K/y), ceil(Cg/x), R, S, x, y].
HostTensor PackWeightReference(const HostTensor& w, int64_t x, int64_t y) {
  const int64_t k = w.shape[0], cg = w.shape[1];
  HostTensor out(w.dtype, {CeilDiv(k, y), CeilDiv(cg, x), w.shape[2], w.shape[3], x, y});
  ForEachIndex(out.shape, [&](const std::vector<int64_t>& i) {
    int64_t ko = i[0] * y + i[5], ci = i[1] * x + i[4];
    out.at(i) = ko < k && ci < cg ? w.at({ko, ci, i[2], i[3]}) : 0;
  });
  return out;
}

TEST(Layout, NchwToNchwcAndBackEveryDTypeWithPaddedChannels) {
  uint64_t seed = 1;
  for (DType t : DTypesOf(DTypeSet::kAny)) {
    for (const auto& [shape, block] : {std::pair<Shape, int64_t>{{2, 8, 3, 5}, 4}, {{1, 5, 4, 3}, 4}, {{1, 3, 7}, 8},
                                       {{2, 6, 2, 3, 2}, 2}, {{1, 1, 1, 1}, 1}}) {
      HostTensor x = Random(t, shape, seed++, -100, 100);
      HostTensor packed = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return NchwToNchwc(b, in[0], block); });
      EXPECT_TRUE(AllClose(packed, PackReference(x, block))) << te::DTypeName(t) << " " << ShapeString(shape);
      HostTensor back = RunOp({packed}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return NchwcToNchw(b, in[0], shape[1]);
      });
      EXPECT_TRUE(AllClose(back, x)) << te::DTypeName(t) << " " << ShapeString(shape);
      EXPECT_TRUE(AllClose(back, UnpackReference(packed, shape[1])));
    }
  }
}

TEST(Layout, PackConv2dWeight) {
  uint64_t seed = 20;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const auto& [shape, x, y] : {std::tuple<Shape, int64_t, int64_t>{{8, 4, 3, 3}, 4, 4}, {{6, 5, 1, 3}, 4, 8},
                                      {{8, 1, 3, 3}, 1, 4}, {{3, 3, 2, 2}, 2, 2}}) {
      HostTensor w = Random(t, shape, seed++);
      HostTensor got = RunOp({w}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return PackConv2dWeight(b, in[0], x, y); });
      EXPECT_TRUE(AllClose(got, PackWeightReference(w, x, y))) << ShapeString(shape) << " x " << x << " y " << y;
    }
  }
}

TEST(Layout, RejectsBadArguments) {
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {4})}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return NchwToNchwc(b, in[0], 4);
  })));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {1, 2, 3, 4})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                                                    return NchwcToNchw(b, in[0], 9);  // 2 blocks of 4
                                                  })));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {1, 2, 3, 4})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                                                    return NchwToNchwc(b, in[0], 0);
                                                  })));
}

struct NchwcCase {
  ConvCase conv;
  int64_t x, y, xi;  // data block, output block, weight input block
};

TEST(Conv2dNchwc, MatchesTheNchwReferenceForEveryBlocking) {
  std::vector<NchwcCase> cases;
  auto conv = [](int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s, Conv2dParams p) {
    return ConvCase{n, c, h, w, k, r, s, p};
  };
  Conv2dParams plain, strided{{2, 2}, {1, 1, 1, 1}, {1, 1}, 1}, dilated{{1, 2}, {2, 1, 0, 2}, {2, 1}, 1};
  cases.push_back({conv(1, 8, 7, 7, 8, 3, 3, strided), 4, 4, 4});
  cases.push_back({conv(2, 8, 5, 6, 16, 3, 3, plain), 4, 8, 4});
  cases.push_back({conv(1, 5, 6, 5, 6, 3, 3, dilated), 4, 4, 4});   // C and K padded to the blocks
  cases.push_back({conv(1, 3, 5, 5, 5, 1, 1, plain), 2, 4, 2});
  cases.push_back({conv(1, 8, 6, 6, 8, 3, 3, Conv2dParams{{1, 1}, {1, 1, 1, 1}, {1, 1}, 8}), 4, 4, 1});  // depthwise
  cases.push_back({conv(1, 8, 5, 7, 16, 3, 3, Conv2dParams{{2, 1}, {1, 1, 1, 1}, {1, 1}, 8}), 4, 8, 1});  // multiplier 2
  cases.push_back({conv(1, 8, 6, 5, 8, 3, 3, Conv2dParams{{1, 1}, {0, 1, 0, 1}, {1, 1}, 2}), 4, 4, 4});  // grouped
  cases.push_back({conv(1, 8, 6, 5, 12, 3, 3, Conv2dParams{{1, 1}, {1, 0, 1, 0}, {1, 1}, 2}), 2, 4, 2});
  uint64_t seed = 40;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const NchwcCase& nc : cases) {
      const ConvCase& c = nc.conv;
      HostTensor x = Random(t, {c.n, c.c, c.h, c.w}, seed++);
      HostTensor w = Random(t, {c.k, c.c / c.p.groups, c.r, c.s}, seed++);
      HostTensor want = PackReference(Conv2dReference(x, w, c.p), nc.y);
      HostTensor data = PackReference(x, nc.x), weight = PackWeightReference(w, nc.xi, nc.y);
      HostTensor got = RunOp({data, weight}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Conv2dNchwc(b, in[0], in[1], c.p);
      });
      EXPECT_TRUE(AllClose(got, want, 1e-5, 1e-5))
          << te::DTypeName(t) << " data " << ShapeString(data.shape) << " weight " << ShapeString(weight.shape)
          << " groups " << c.p.groups;
    }
  }
}

TEST(Conv2dNchwc, ComposesWithTheLayoutTransformsInOneDag) {
  Conv2dParams p{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1};
  HostTensor x = Random(DType::kFloat32, {1, 6, 5, 5}, 90), w = Random(DType::kFloat32, {5, 6, 3, 3}, 91);
  HostTensor got = RunOp({x, w}, [&](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
    auto data = NchwToNchwc(b, in[0], 4);
    auto weight = PackConv2dWeight(b, in[1], 4, 4);
    if (!data.ok() || !weight.ok()) return absl::InternalError("layout");
    auto conv = Conv2dNchwc(b, *data, *weight, p);
    if (!conv.ok()) return conv.status();
    return NchwcToNchw(b, *conv, 5);
  });
  EXPECT_TRUE(AllClose(got, Conv2dReference(x, w, p), 1e-5, 1e-5));
}

TEST(Conv2dNchwc, RejectsMismatchedBlocking) {
  auto status = [](Shape ds, Shape ws, Conv2dParams p) {
    return BuildStatus({HostTensor(DType::kFloat32, ds), HostTensor(DType::kFloat32, ws)},
                       [&](DagBuilder& b, const std::vector<Tensor>& in) { return Conv2dNchwc(b, in[0], in[1], p); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 5, 5, 4}, {2, 3, 3, 3, 4, 4}, {})));  // 12 != 8 input channels
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 5, 5}, {2, 2, 3, 3, 4, 4}, {})));     // rank
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 5, 5, 4}, {2, 2, 3, 3, 4, 4}, Conv2dParams{{1, 1}, {}, {1, 1}, 3})));
}

}  // namespace
}  // namespace tunefarm::ops::testing
