// Gather and GatherElements along any axis with int32/int64 indices (negative ones count from the
// end), for every data dtype, against the ONNX definitions written out.
#include "compiler/ops/gather.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor GatherReference(const HostTensor& data, const HostTensor& indices, int axis) {
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  HostTensor out(data.dtype, shape);
  const size_t ni = indices.shape.size();
  ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
    int64_t v = static_cast<int64_t>(indices.at(std::vector<int64_t>(i.begin() + axis, i.begin() + axis + ni)));
    if (v < 0) v += data.shape[axis];
    std::vector<int64_t> src(i.begin(), i.begin() + axis);
    src.push_back(v);
    src.insert(src.end(), i.begin() + axis + ni, i.end());
    out.at(i) = data.at(src);
  });
  return out;
}

TEST(Gather, AnyAxisIndexShapeAndDType) {
  struct Case {
    Shape data, indices;
    int64_t axis;
  };
  const Case cases[] = {{{5}, {3}, 0},        {{4, 3}, {2, 2}, 0}, {{4, 3}, {5}, 1},      {{2, 3, 4}, {}, 1},
                        {{2, 3, 4}, {3, 1}, -1}, {{1, 1}, {1}, 0},  {{3, 5, 2}, {2, 3}, 1}};
  uint64_t seed = 1;
  for (DType index_t : {DType::kInt32, DType::kInt64}) {
    for (DType t : DTypesOf(DTypeSet::kAny)) {
      for (const Case& c : cases) {
        const int axis = static_cast<int>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis);
        const int64_t dim = c.data[axis];
        HostTensor data = Random(t, c.data, seed++, -100, 100);
        HostTensor indices = Random(index_t, c.indices, seed++, -dim, dim - 1);  // negatives too
        HostTensor got = RunOp({data, indices}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return Gather(b, in[0], in[1], GatherParams{c.axis});
        });
        EXPECT_TRUE(AllClose(got, GatherReference(data, indices, axis)))
            << te::DTypeName(t) << " data " << ShapeString(c.data) << " indices " << ShapeString(c.indices);
      }
    }
  }
}

TEST(Gather, OutOfRangeIndicesAreClampedNotRead) {
  HostTensor data(DType::kFloat32, {4});
  data.data = {10, 11, 12, 13};
  HostTensor indices(DType::kInt64, {4});
  indices.data = {-1, -4, 9, -9};
  HostTensor got = RunOp({data, indices}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Gather(b, in[0], in[1], GatherParams{0});
  });
  HostTensor want(DType::kFloat32, {4});
  want.data = {13, 10, 13, 10};
  EXPECT_TRUE(AllClose(got, want));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {4}), HostTensor(DType::kFloat32, {2})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                                                    return Gather(b, in[0], in[1], GatherParams{0});
                                                  })));
}

TEST(GatherElements, AnyAxisSmallerIndicesAndDType) {
  struct Case {
    Shape data, indices;
    int64_t axis;
  };
  const Case cases[] = {{{5}, {7}, 0}, {{3, 3}, {2, 3}, 0}, {{3, 4}, {3, 2}, 1}, {{2, 3, 4}, {2, 2, 4}, -2},
                        {{2, 3, 4}, {1, 3, 6}, 2}};
  uint64_t seed = 1;
  for (DType index_t : {DType::kInt32, DType::kInt64})
    for (DType t : {DType::kFloat32, DType::kInt64, DType::kBool, DType::kUInt8})
      for (const Case& c : cases) {
        const int axis = static_cast<int>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis);
        const int64_t dim = c.data[axis];
        HostTensor data = Random(t, c.data, seed++, -100, 100);
        HostTensor indices = Random(index_t, c.indices, seed++, -dim, dim - 1);
        HostTensor want(t, c.indices);
        ForEachIndex(c.indices, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> src = i;
          src[axis] = static_cast<int64_t>(indices.at(i));
          if (src[axis] < 0) src[axis] += dim;
          want.at(i) = data.at(src);
        });
        HostTensor got = RunOp({data, indices}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return GatherElements(b, in[0], in[1], GatherParams{c.axis});
        });
        EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " data " << ShapeString(c.data) << " indices "
                                         << ShapeString(c.indices) << " axis " << c.axis;
      }
  // Indices of another rank, or larger than the data off the axis, are refused.
  auto build = [](const Shape& data, const Shape& indices) {
    return BuildStatus({HostTensor(DType::kFloat32, data), HostTensor(DType::kInt64, indices)},
                       [](DagBuilder& b, const std::vector<Tensor>& in) {
                         return GatherElements(b, in[0], in[1], GatherParams{0});
                       });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(build({3, 4}, {3})));
  EXPECT_TRUE(absl::IsInvalidArgument(build({3, 4}, {2, 5})));
  EXPECT_TRUE(build({3, 4}, {5, 4}).ok());  // along the axis, any length
}

}  // namespace
}  // namespace tunefarm::ops::testing
