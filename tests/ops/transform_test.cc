// Transpose, reshape, concat and slice against index mapping written out, for every dtype.
#include "compiler/ops/transform.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

const std::vector<DType> kAll = DTypesOf(DTypeSet::kAny);

TEST(Transpose, PermutationsEveryDType) {
  uint64_t seed = 1;
  for (DType t : kAll) {
    for (const auto& [shape, perm] : {std::pair<Shape, std::vector<int64_t>>{{3, 4}, {1, 0}}, {{2, 3, 4}, {2, 0, 1}},
                                      {{2, 3, 4}, {}}, {{2, 1, 3, 5}, {3, 1, 0, 2}}, {{5}, {0}}, {{4, 2}, {-1, -2}}}) {
      HostTensor x = Random(t, shape, seed++, -100, 100);
      std::vector<int64_t> pr = perm;
      if (pr.empty())
        for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) pr.push_back(d);
      for (int64_t& a : pr) a = a < 0 ? a + static_cast<int64_t>(shape.size()) : a;
      Shape out_shape;
      for (int64_t a : pr) out_shape.push_back(shape[a]);
      HostTensor want(t, out_shape);
      ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> src(shape.size());
        for (size_t d = 0; d < pr.size(); ++d) src[pr[d]] = i[d];
        want.at(i) = x.at(src);
      });
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Transpose(b, in[0], TransposeParams{perm});
      });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " " << ShapeString(shape);
    }
  }
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {2, 3})}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Transpose(b, in[0], TransposeParams{{0, 0}});
  })));
}

TEST(Reshape, RowMajorReindexingWithInferredAndCopiedDims) {
  uint64_t seed = 100;
  for (DType t : kAll) {
    for (const auto& [shape, target, want_shape] :
         {std::tuple<Shape, std::vector<int64_t>, Shape>{{2, 3, 4}, {4, 6}, {4, 6}}, {{2, 3, 4}, {-1}, {24}},
          {{2, 3, 4}, {0, -1}, {2, 12}}, {{6, 5}, {5, 3, 2}, {5, 3, 2}}, {{7}, {1, 7, 1}, {1, 7, 1}},
          {{3, 4}, {3, 4}, {3, 4}}, {{1}, {}, {}}, {{12}, {2, -1, 3}, {2, 2, 3}}}) {
      HostTensor x = Random(t, shape, seed++, -100, 100);
      HostTensor want(t, want_shape);
      want.data = x.data;  // row-major: the flat order is unchanged
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Reshape(b, in[0], ReshapeParams{target});
      });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " " << ShapeString(shape) << " -> " << ShapeString(want_shape);
    }
  }
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{5, 5}, {-1, -1}, {0, 0, 0, 7}, {-2, 12}, {7, -1}}) {
    EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {2, 6})}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Reshape(b, in[0], ReshapeParams{bad});
    }))) << bad.size();
  }
}

TEST(Concat, AlongAnyAxisEveryDType) {
  uint64_t seed = 200;
  for (DType t : kAll) {
    for (const auto& [shapes, axis] : {std::pair<std::vector<Shape>, int64_t>{{{2, 3}, {4, 3}}, 0},
                                       {{{2, 3}, {2, 1}, {2, 5}}, 1}, {{{2, 3}, {2, 1}, {2, 5}}, -1},
                                       {{{1, 2, 3}, {1, 4, 3}, {1, 1, 3}, {1, 2, 3}}, 1}, {{{5}}, 0}, {{{1}, {1}}, 0}}) {
      std::vector<HostTensor> xs;
      for (const Shape& s : shapes) xs.push_back(Random(t, s, seed++, -100, 100));
      const int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shapes[0].size()) : axis);
      Shape out_shape = shapes[0];
      out_shape[a] = 0;
      for (const Shape& s : shapes) out_shape[a] += s[a];
      HostTensor want(t, out_shape);
      ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> src = i;
        size_t k = 0;
        while (src[a] >= shapes[k][a]) src[a] -= shapes[k++][a];
        want.at(i) = xs[k].at(src);
      });
      HostTensor got = RunOp(xs, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Concat(b, in, axis); });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " " << ShapeString(out_shape);
    }
  }
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {2, 3}), HostTensor(DType::kFloat32, {3, 3})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) { return Concat(b, in, 1); })));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {2, 3}), HostTensor(DType::kInt32, {2, 3})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) { return Concat(b, in, 0); })));
}

// ONNX slice semantics written out: resolve negatives, clamp, then walk with the step.
std::vector<int64_t> SliceIndices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  std::vector<int64_t> out;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    for (int64_t i = start; i < end; i += step) out.push_back(i);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    for (int64_t i = start; i > end; i += step) out.push_back(i);
  }
  return out;
}

TEST(Slice, StartsEndsAxesAndStepsEveryDType) {
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    Shape shape;
    SliceParams p;
  };
  const Case cases[] = {
      {{10}, {{2}, {8}, {}, {}}},
      {{10}, {{1}, {kMax}, {0}, {3}}},
      {{10}, {{-1}, {kMin}, {}, {-1}}},                // reverse
      {{10}, {{8}, {1}, {}, {-3}}},
      {{4, 6}, {{1, -5}, {3, -1}, {}, {1, 2}}},
      {{4, 6}, {{-1}, {-100}, {-2}, {-2}}},             // axis -2, backwards past the start
      {{3, 4, 5}, {{0, 4}, {kMax, 0}, {2, 1}, {2, -1}}},
      {{2, 1, 3}, {{0}, {1}, {1}, {}}},
  };
  uint64_t seed = 300;
  for (DType t : kAll) {
    for (const Case& c : cases) {
      HostTensor x = Random(t, c.shape, seed++, -100, 100);
      const size_t rank = c.shape.size();
      std::vector<std::vector<int64_t>> picks(rank);
      for (size_t d = 0; d < rank; ++d)
        for (int64_t i = 0; i < c.shape[d]; ++i) picks[d].push_back(i);
      for (size_t k = 0; k < c.p.starts.size(); ++k) {
        int64_t a = c.p.axes.empty() ? static_cast<int64_t>(k) : c.p.axes[k];
        if (a < 0) a += static_cast<int64_t>(rank);
        picks[a] = SliceIndices(c.shape[a], c.p.starts[k], c.p.ends[k], c.p.steps.empty() ? 1 : c.p.steps[k]);
      }
      Shape out_shape;
      for (const auto& pk : picks) out_shape.push_back(static_cast<int64_t>(pk.size()));
      HostTensor want(t, out_shape);
      ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> src(rank);
        for (size_t d = 0; d < rank; ++d) src[d] = picks[d][i[d]];
        want.at(i) = x.at(src);
      });
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Slice(b, in[0], c.p); });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " " << ShapeString(c.shape) << " -> " << ShapeString(out_shape);
    }
  }
  auto status = [](SliceParams p) {
    return BuildStatus({HostTensor(DType::kFloat32, {4, 5})}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Slice(b, in[0], p);
    });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status({{1}, {1}, {}, {}})));         // empty
  EXPECT_TRUE(absl::IsInvalidArgument(status({{0}, {3}, {}, {0}})));        // step 0
  EXPECT_TRUE(absl::IsInvalidArgument(status({{0, 0}, {2, 2}, {1, 1}, {}})));  // axis twice
  EXPECT_TRUE(absl::IsInvalidArgument(status({{0}, {2}, {2}, {}})));        // axis out of range
  EXPECT_TRUE(absl::IsInvalidArgument(status({{0, 1}, {2}, {}, {}})));      // lengths
}

}  // namespace
}  // namespace tunefarm::ops::testing
