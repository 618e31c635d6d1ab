// The ops added for ONNX coverage: Round's ties, Mod / Fmod signs, Xor, PRelu, Expand, Tile,
// Copy, against plain C++ references.
#include <cmath>

#include "compiler/ops/binary.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/unary.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor Values(DType t, Shape shape, std::vector<double> v) {
  HostTensor h(t, std::move(shape));
  h.data = std::move(v);
  return h;
}

TEST(Unary, RoundTiesGoToEven) {
  HostTensor x = Values(DType::kFloat32, {8}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4999, -3.7});
  HostTensor want = Values(DType::kFloat32, {8}, {-2, -2, -0, 0, 2, 2, 2, -4});
  HostTensor got = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Unary(b, in[0], {UnaryOp::kRound, std::nullopt, std::nullopt});
  });
  EXPECT_TRUE(AllClose(got, want));
}

TEST(Binary, ModTakesTheDivisorsSignAndFmodTheDividends) {
  for (DType t : {DType::kInt32, DType::kInt8, DType::kFloat32, DType::kFloat64}) {
    HostTensor x = Values(t, {6}, {-7, 7, -7, 7, 5, 0});
    HostTensor y = Values(t, {6}, {3, -3, -3, 3, 5, 4});
    HostTensor mod = Values(t, {6}, {2, -2, -1, 1, 0, 0});
    HostTensor fmod = Values(t, {6}, {-1, 1, -1, 1, 0, 0});
    auto run = [&](BinaryOp op) {
      return RunOp({x, y}, [op](DagBuilder& b, const std::vector<Tensor>& in) { return Binary(b, in[0], in[1], op); });
    };
    EXPECT_TRUE(AllClose(run(BinaryOp::kMod), mod)) << te::DTypeName(t);
    EXPECT_TRUE(AllClose(run(BinaryOp::kFmod), fmod)) << te::DTypeName(t);
  }
  HostTensor x = Values(DType::kUInt8, {2}, {200, 7}), y = Values(DType::kUInt8, {2}, {7, 0});
  HostTensor got = RunOp({x, y}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Binary(b, in[0], in[1], BinaryOp::kMod);
  });
  EXPECT_TRUE(AllClose(got, Values(DType::kUInt8, {2}, {4, 7})));  // x mod 0 is x: no trap
}

TEST(Binary, XorAndPReluBroadcast) {
  HostTensor a = Values(DType::kBool, {2, 2}, {0, 1, 0, 1}), c = Values(DType::kBool, {2}, {0, 1});
  HostTensor got = RunOp({a, c}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Binary(b, in[0], in[1], BinaryOp::kXor);
  });
  EXPECT_TRUE(AllClose(got, Values(DType::kBool, {2, 2}, {0, 0, 0, 0})));
  HostTensor x = Values(DType::kFloat32, {2, 2}, {-2, 3, -4, 0}), slope = Values(DType::kFloat32, {2}, {0.5, 0.25});
  got = RunOp({x, slope}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Binary(b, in[0], in[1], BinaryOp::kPRelu);
  });
  EXPECT_TRUE(AllClose(got, Values(DType::kFloat32, {2, 2}, {-1, 3, -2, 0})));
}

TEST(Transform, ExpandTileAndCopy) {
  HostTensor x = Values(DType::kInt64, {2, 1}, {1, 2});
  HostTensor got = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Expand(b, in[0], {2, 1, 3}); });
  EXPECT_TRUE(AllClose(got, Values(DType::kInt64, {2, 2, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2})));
  got = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Tile(b, in[0], {2, 2}); });
  EXPECT_TRUE(AllClose(got, Values(DType::kInt64, {4, 2}, {1, 1, 2, 2, 1, 1, 2, 2})));
  got = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Copy(b, in[0]); });
  EXPECT_TRUE(AllClose(got, x));
  EXPECT_FALSE(BuildStatus({x}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Tile(b, in[0], {2}); }).ok());
  EXPECT_FALSE(BuildStatus({x}, [](DagBuilder& b, const std::vector<Tensor>& in) { return Expand(b, in[0], {3, 3}); }).ok());
}

}  // namespace
}  // namespace tunefarm::ops::testing
