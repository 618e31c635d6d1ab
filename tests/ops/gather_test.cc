// Gather and GatherElements along any axis with int32/int64 indices (negative ones count from the
// end), for every data dtype, GatherND and ScatterND, against the ONNX definitions written out.
#include "compiler/ops/gather.h"
#include "compiler/ops/scatter.h"
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

namespace tunefarm::ops::testing {
namespace {

// Reads data at an index tuple with ONNX's wrap of negative indices.
int64_t Wrap(double raw, int64_t dim) {
  int64_t i = static_cast<int64_t>(raw);
  return i < 0 ? i + dim : i;
}

TEST(GatherND, WithAndWithoutBatchAxesAndNegativeIndices) {
  struct Case {
    Shape data, indices;
    int64_t batch;
  };
  uint64_t seed = 90;
  for (const Case& c : {Case{{3, 4, 2}, {5, 2}, 0}, Case{{3, 4, 2}, {2, 2, 3}, 0}, Case{{2, 4, 3}, {2, 3, 1}, 1},
                        Case{{2, 3, 4}, {2, 2}, 1}, Case{{4}, {3, 1}, 0}}) {
    HostTensor data = Random(DType::kFloat32, c.data, seed++);
    const int64_t k = c.indices.back();
    HostTensor indices(DType::kInt64, c.indices);
    for (int64_t e = 0; e < indices.size(); ++e) {
      const int64_t dim = c.data[c.batch + e % k];
      indices.data[e] = static_cast<double>(static_cast<int64_t>((e * 7 + seed) % (2 * dim)) - dim);  // in [-dim, dim)
    }
    Shape shape(c.indices.begin(), c.indices.end() - 1);
    shape.insert(shape.end(), c.data.begin() + c.batch + k, c.data.end());
    HostTensor want(DType::kFloat32, shape);
    const size_t q = c.indices.size();
    ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> at(i.begin(), i.begin() + c.batch), row(i.begin(), i.begin() + q - 1);
      for (int64_t j = 0; j < k; ++j) {
        row.push_back(j);
        at.push_back(Wrap(indices.at(row), c.data[c.batch + j]));
        row.pop_back();
      }
      at.insert(at.end(), i.begin() + q - 1, i.end());
      want.at(i) = data.at(at);
    });
    HostTensor got = RunOp({data, indices}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return GatherND(b, in[0], in[1], c.batch);
    });
    EXPECT_TRUE(AllClose(got, want)) << ShapeString(c.data) << " " << ShapeString(c.indices) << " batch " << c.batch;
  }
}

TEST(ScatterND, EveryReductionWithRepeatedTargets) {
  // data [4, 3], indices [5, 1]: rows 1 and 3 are hit twice (one of them by -3), row 2 never.
  HostTensor data = Random(DType::kFloat32, {4, 3}, 5, -2, 2);
  HostTensor indices(DType::kInt64, {5, 1});
  indices.data = {1, 3, 0, -3, 3};
  HostTensor updates = Random(DType::kFloat32, {5, 3}, 6, -2, 2);
  for (ScatterReduction r : {ScatterReduction::kNone, ScatterReduction::kAdd, ScatterReduction::kMul,
                             ScatterReduction::kMax, ScatterReduction::kMin}) {
    HostTensor want = data;
    for (int64_t u = 0; u < 5; ++u) {
      const int64_t row = Wrap(indices.data[u], 4);
      for (int64_t j = 0; j < 3; ++j) {
        double& v = want.at({row, j});
        const double x = updates.at({u, j});
        switch (r) {
          case ScatterReduction::kNone: v = x; break;  // the last writer in row-major order wins
          case ScatterReduction::kAdd: v = StoreAs(DType::kFloat32, v + x); break;
          case ScatterReduction::kMul: v = StoreAs(DType::kFloat32, v * x); break;
          case ScatterReduction::kMax: v = std::max(v, x); break;
          case ScatterReduction::kMin: v = std::min(v, x); break;
        }
      }
    }
    HostTensor got = RunOp({data, indices, updates}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return ScatterND(b, in[0], in[1], in[2], r);
    });
    EXPECT_TRUE(AllClose(got, want, 1e-6, 1e-6)) << "reduction " << static_cast<int>(r);
  }
}

TEST(ScatterND, ElementUpdatesAndASingleUpdateRow) {
  // k == rank: each update is one element; indices of rank 1: one update of a whole slice.
  HostTensor data = Random(DType::kInt32, {2, 3}, 8, -9, 9);
  HostTensor pairs(DType::kInt64, {2, 2}), values(DType::kInt32, {2});
  pairs.data = {1, 2, 0, -1};
  values.data = {100, 200};
  HostTensor want = data;
  want.at({1, 2}) = 100;
  want.at({0, 2}) = 200;  // (0, -1)
  EXPECT_TRUE(AllClose(RunOp({data, pairs, values}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                         return ScatterND(b, in[0], in[1], in[2], ScatterReduction::kNone);
                       }),
                       want));
  HostTensor one(DType::kInt64, {1}), slice(DType::kInt32, {3});
  one.data = {1};
  slice.data = {7, 8, 9};
  HostTensor want_slice = data;
  for (int64_t j = 0; j < 3; ++j) want_slice.at({1, j}) = slice.data[j];
  EXPECT_TRUE(AllClose(RunOp({data, one, slice}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                         return ScatterND(b, in[0], in[1], in[2], ScatterReduction::kNone);
                       }),
                       want_slice));
}

TEST(ReverseSequence, EachRowReversesItsOwnPrefixOnEitherAxisOrder) {
  for (int64_t batch_axis : {0, 1}) {
    const int64_t time_axis = 1 - batch_axis, steps = 4, rows = 3;
    Shape shape = batch_axis == 0 ? Shape{rows, steps, 2} : Shape{steps, rows, 2};
    HostTensor x = Random(DType::kInt32, shape, 11 + batch_axis, -50, 50);
    HostTensor lens(DType::kInt64, {rows});
    lens.data = {4, 1, 9};  // 9 is clamped to 4
    HostTensor want(DType::kInt32, shape);
    ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
      const int64_t len = std::min<int64_t>(static_cast<int64_t>(lens.data[i[batch_axis]]), steps), t = i[time_axis];
      std::vector<int64_t> at = i;
      if (t < len) at[time_axis] = len - 1 - t;
      want.at(i) = x.at(at);
    });
    HostTensor got = RunOp({x, lens}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return ReverseSequence(b, in[0], in[1], batch_axis, time_axis);
    });
    EXPECT_TRUE(AllClose(got, want)) << "batch_axis " << batch_axis;
  }
}

}  // namespace
}  // namespace tunefarm::ops::testing
