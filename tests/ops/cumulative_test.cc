// CumSum along every axis, inclusive or exclusive, forward or reverse, against a plain loop.
#include "compiler/ops/cumulative.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

TEST(CumulativeSum, EveryAxisDirectionAndExclusivity) {
  uint64_t seed = 1;
  for (const Shape& shape : {Shape{7}, Shape{3, 5}, Shape{2, 3, 4}})
    for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64})
      for (int64_t axis = -static_cast<int64_t>(shape.size()); axis < static_cast<int64_t>(shape.size()); ++axis)
        for (bool exclusive : {false, true})
          for (bool reverse : {false, true}) {
            HostTensor x = Random(t, shape, seed++, -9, 9);
            const int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
            HostTensor want(t, shape);
            ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
              double sum = 0;
              std::vector<int64_t> j = i;
              for (j[a] = 0; j[a] < shape[a]; ++j[a]) {
                const bool in = reverse ? (exclusive ? j[a] > i[a] : j[a] >= i[a]) : (exclusive ? j[a] < i[a] : j[a] <= i[a]);
                if (in) sum += x.at(j);
              }
              want.at(i) = sum;
            });
            CumulativeParams p{axis, exclusive, reverse};
            HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return CumulativeSum(b, in[0], p); });
            EXPECT_TRUE(AllClose(got, want, Tolerance(t), Tolerance(t)))
                << te::DTypeName(t) << " " << ShapeString(shape) << " axis " << axis << " exclusive " << exclusive
                << " reverse " << reverse;
          }
  HostTensor flags = Random(DType::kBool, {3}, 1, 0, 1);
  EXPECT_FALSE(BuildStatus({flags}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                 return CumulativeSum(b, in[0], {});
               }).ok());
}

}  // namespace
}  // namespace tunefarm::ops::testing
