// Range, EyeLike, OneHot and ScatterElements against their ONNX definitions written out.
#include "compiler/ops/generate.h"
#include "compiler/ops/scatter.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

TEST(Generate, RangeAndEyeLikeFromAttributes) {
  for (DType t : {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kFloat64}) {
    HostTensor got = RunOp({}, [&](DagBuilder& b, const std::vector<Tensor>&) { return Range(b, t, 10, -3, 4); });
    HostTensor want(t, {4});
    want.data = {10, 7, 4, 1};
    EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t);
  }
  for (int64_t k : {-2, 0, 1, 5}) {
    HostTensor got = RunOp({}, [&](DagBuilder& b, const std::vector<Tensor>&) { return EyeLike(b, DType::kInt32, 3, 4, k); });
    HostTensor want(DType::kInt32, {3, 4});
    ForEachIndex({3, 4}, [&](const std::vector<int64_t>& i) { want.at(i) = i[1] - i[0] == k ? 1 : 0; });
    EXPECT_TRUE(AllClose(got, want)) << "k " << k;
  }
  EXPECT_FALSE(BuildStatus({}, [](DagBuilder& b, const std::vector<Tensor>&) { return Range(b, DType::kFloat32, 0, 1, 0); }).ok());
}

TEST(Generate, OneHotOnEveryAxisWithNegativeAndOutOfRangeIndices) {
  HostTensor indices(DType::kInt64, {2, 3});
  indices.data = {0, 2, -1, 4, -4, 1};  // -1 is depth - 1; 4 and -4 are out of range for depth 3
  HostTensor values(DType::kFloat32, {2});
  values.data = {-1, 5};
  const int64_t depth = 3;
  for (int64_t axis : {-1, 0, 1, 2, -3}) {
    const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
    Shape shape = indices.shape;
    shape.insert(shape.begin() + a, depth);
    HostTensor want(DType::kFloat32, shape);
    ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> at = i;
      at.erase(at.begin() + a);
      int64_t v = static_cast<int64_t>(indices.at(at));
      if (v < 0) v += depth;
      want.at(i) = v == i[a] ? 5 : -1;
    });
    HostTensor got = RunOp({indices, values}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return OneHot(b, in[0], in[1], {depth, axis});
    });
    EXPECT_TRUE(AllClose(got, want)) << "axis " << axis;
  }
}

TEST(Scatter, ElementsOnAnyAxisWithSmallerIndicesAndNegativeOnes) {
  struct Case {
    Shape data, indices;
    int64_t axis;
  };
  const Case cases[] = {{{3, 3}, {2, 3}, 0}, {{3, 4}, {3, 2}, 1}, {{2, 3, 4}, {2, 2, 3}, -1}, {{5}, {3}, 0}};
  uint64_t seed = 1;
  for (const Case& c : cases) {
    const int a = static_cast<int>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis);
    const int64_t dim = c.data[a];
    HostTensor data = Random(DType::kFloat32, c.data, seed++, -9, 9);
    HostTensor updates = Random(DType::kFloat32, c.indices, seed++, 10, 20);
    // Distinct targets along the axis (ONNX leaves duplicates undefined): a rotated permutation.
    HostTensor indices(DType::kInt64, c.indices);
    ForEachIndex(c.indices, [&](const std::vector<int64_t>& i) {
      int64_t target = (i[a] + static_cast<int64_t>(seed)) % dim;
      indices.at(i) = target % 2 == 0 ? target : target - dim;  // some negative
    });
    HostTensor want = data;
    ForEachIndex(c.indices, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> at = i;
      at[a] = static_cast<int64_t>(indices.at(i));
      if (at[a] < 0) at[a] += dim;
      want.at(at) = updates.at(i);
    });
    HostTensor got = RunOp({data, indices, updates}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return ScatterElements(b, in[0], in[1], in[2], c.axis);
    });
    EXPECT_TRUE(AllClose(got, want)) << ShapeString(c.data) << " indices " << ShapeString(c.indices) << " axis " << c.axis;
  }
}

}  // namespace
}  // namespace tunefarm::ops::testing
