// Trilu against a plain loop (every k sign, upper and lower, batched), and IsNaN / IsInf on
// special values, interpreted and compiled.
#include <cmath>
#include <limits>

#include "compiler/ops/float_class.h"
#include "compiler/ops/triangular.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

TEST(Triangular, EveryOffsetBothTrianglesAndBatches) {
  uint64_t seed = 1;
  for (const Shape& shape : {Shape{4, 4}, Shape{3, 5}, Shape{2, 5, 3}, Shape{2, 1, 3, 4}})
    for (DType t : {DType::kFloat32, DType::kInt64})
      for (bool upper : {true, false})
        for (int64_t k : {-7, -1, 0, 2, 6}) {
          HostTensor x = Random(t, shape, seed++, -9, 9);
          HostTensor want = x;
          ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
            const int64_t offset = i[i.size() - 1] - i[i.size() - 2];
            if (upper ? offset < k : offset > k) want.at(i) = 0;
          });
          TriangularParams p{upper, k};
          HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Triangular(b, in[0], p); });
          EXPECT_TRUE(AllClose(got, want)) << ShapeString(shape) << " upper " << upper << " k " << k;
        }
  HostTensor vector = Random(DType::kFloat32, {5}, 1);
  EXPECT_FALSE(BuildStatus({vector}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                 return Triangular(b, in[0], {});
               }).ok());
}

TEST(FloatClass, NaNAndEachInfinity) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    HostTensor x(t, {6});
    x.data = {1.5, nan, inf, -inf, 0, -2};
    auto run = [&](const OpFn& op) {
      HostTensor interpreted = RunOp({x}, op);
      auto dag = BuildOpDag({x}, op);
      EXPECT_TRUE(dag.ok());
      auto compiled = RunSharedObject(**dag, {x});
      EXPECT_TRUE(compiled.ok() && AllClose(*compiled, interpreted)) << "compiled and interpreted differ";
      return interpreted;
    };
    HostTensor want(DType::kBool, {6});
    want.data = {0, 1, 0, 0, 0, 0};
    EXPECT_TRUE(AllClose(run([](DagBuilder& b, const std::vector<Tensor>& in) { return IsNaN(b, in[0]); }), want));
    const std::pair<bool, bool> signs[] = {{true, true}, {true, false}, {false, true}, {false, false}};
    for (auto [positive, negative] : signs) {
      want.data = {0, 0, positive ? 1.0 : 0.0, negative ? 1.0 : 0.0, 0, 0};
      auto op = [&](DagBuilder& b, const std::vector<Tensor>& in) { return IsInf(b, in[0], positive, negative); };
      EXPECT_TRUE(AllClose(run(op), want)) << te::DTypeName(t) << " positive " << positive << " negative " << negative;
    }
  }
  HostTensor ints = Random(DType::kInt32, {3}, 1);
  EXPECT_FALSE(BuildStatus({ints}, [](DagBuilder& b, const std::vector<Tensor>& in) { return IsNaN(b, in[0]); }).ok());
}

}  // namespace
}  // namespace tunefarm::ops::testing
