// Dense, matmul and batched matmul (transposed operands, broadcast batches, 1-D operands)
// against a plain C++ triple loop.
#include "compiler/ops/matmul.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

// Plain reference for numpy matmul with the documented transpose flags and 1-D promotion.
HostTensor MatmulReference(const HostTensor& a, const HostTensor& b, bool ta, bool tb) {
  const bool av = a.shape.size() == 1, bv = b.shape.size() == 1;
  ta = ta && !av;
  tb = tb && !bv;
  const size_t ra = a.shape.size(), rb = b.shape.size();
  int64_t m = av ? 1 : a.shape[ra - (ta ? 1 : 2)], k = av ? a.shape[0] : a.shape[ra - (ta ? 2 : 1)];
  int64_t n = bv ? 1 : b.shape[rb - (tb ? 2 : 1)];
  Shape ab(a.shape.begin(), a.shape.end() - (av ? 1 : 2)), bb(b.shape.begin(), b.shape.end() - (bv ? 1 : 2));
  size_t nb = std::max(ab.size(), bb.size());
  Shape batch(nb, 1);
  for (size_t d = 0; d < nb; ++d) {
    int64_t da = d + ab.size() >= nb ? ab[d + ab.size() - nb] : 1, db = d + bb.size() >= nb ? bb[d + bb.size() - nb] : 1;
    batch[d] = std::max(da, db);
  }
  Shape out = batch;
  if (!av) out.push_back(m);
  if (!bv) out.push_back(n);
  HostTensor c(a.dtype, out);
  ForEachIndex(out, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> bi(i.begin(), i.begin() + nb);
    int64_t mi = av ? 0 : i[nb], ni = bv ? 0 : i[nb + (av ? 0 : 1)];
    auto batch_of = [&](const Shape& own) {
      std::vector<int64_t> idx;
      for (size_t d = 0; d < own.size(); ++d) idx.push_back(own[d] == 1 ? 0 : bi[nb - own.size() + d]);
      return idx;
    };
    double acc = 0;
    for (int64_t r = 0; r < k; ++r) {
      std::vector<int64_t> ia = batch_of(ab), ib = batch_of(bb);
      if (av) ia.push_back(r); else if (ta) ia.insert(ia.end(), {r, mi}); else ia.insert(ia.end(), {mi, r});
      if (bv) ib.push_back(r); else if (tb) ib.insert(ib.end(), {ni, r}); else ib.insert(ib.end(), {r, ni});
      acc += a.at(ia) * b.at(ib);
    }
    c.at(i) = StoreAs(a.dtype, acc);
  });
  return c;
}

Shape Operand(Shape batch, int64_t rows, int64_t cols, bool transposed) {
  if (transposed) std::swap(rows, cols);
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

TEST(Matmul, BatchedTransposedBroadcastEveryDType) {
  struct Case {
    Shape a_batch, b_batch;
    int64_t m, k, n;
  };
  const Case cases[] = {{{}, {}, 5, 7, 3},     {{}, {}, 1, 1, 1},     {{3}, {3}, 4, 6, 5},
                        {{2, 1}, {3}, 3, 5, 2}, {{1}, {4}, 2, 9, 3},   {{2, 3}, {}, 1, 4, 7}};
  uint64_t seed = 1;
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    for (const Case& c : cases) {
      for (int flags = 0; flags < 4; ++flags) {
        bool ta = flags & 1, tb = flags & 2;
        HostTensor a = Random(t, Operand(c.a_batch, c.m, c.k, ta), seed++, -9, 9);
        HostTensor b = Random(t, Operand(c.b_batch, c.k, c.n, tb), seed++, -9, 9);
        HostTensor want = MatmulReference(a, b, ta, tb);
        HostTensor got = RunOp({a, b}, [&](DagBuilder& bld, const std::vector<Tensor>& in) {
          return BatchMatmul(bld, in[0], in[1], MatmulParams{ta, tb});
        });
        EXPECT_TRUE(AllClose(got, want, 1e-5, 1e-5))
            << te::DTypeName(t) << " a " << ShapeString(a.shape) << " b " << ShapeString(b.shape) << " ta " << ta << " tb " << tb;
      }
    }
  }
}

TEST(Matmul, OneDimensionalOperands) {
  uint64_t seed = 50;
  for (const auto& [as, bs] : {std::pair<Shape, Shape>{{6}, {6, 4}}, {{3, 6}, {6}}, {{6}, {6}}, {{2, 3, 6}, {6}}, {{6}, {2, 6, 5}}}) {
    HostTensor a = Random(DType::kFloat64, as, seed++), b = Random(DType::kFloat64, bs, seed++);
    HostTensor got = RunOp({a, b}, [&](DagBuilder& bld, const std::vector<Tensor>& in) {
      return BatchMatmul(bld, in[0], in[1], MatmulParams{});
    });
    EXPECT_TRUE(AllClose(got, MatmulReference(a, b, false, false), 1e-12)) << ShapeString(as) << " x " << ShapeString(bs);
  }
}

TEST(Matmul, IntegersWrap) {
  HostTensor a(DType::kInt32, {1, 2}), b(DType::kInt32, {2, 1});
  a.data = {2e9, 2e9};
  b.data = {1, 1};
  HostTensor got = RunOp({a, b}, [](DagBuilder& bld, const std::vector<Tensor>& in) {
    return BatchMatmul(bld, in[0], in[1], MatmulParams{});
  });
  HostTensor want(DType::kInt32, {1, 1});
  want.data = {StoreAs(DType::kInt32, 4e9)};
  EXPECT_TRUE(AllClose(got, want));
}

TEST(Dense, WithAndWithoutBias) {
  uint64_t seed = 70;
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    for (const Shape& ds : {Shape{4, 9}, Shape{2, 3, 9}, Shape{9}, Shape{1, 9}}) {
      HostTensor x = Random(t, ds, seed++, -5, 5), w = Random(t, {6, 9}, seed++, -5, 5), bias = Random(t, {6}, seed++, -5, 5);
      HostTensor product = MatmulReference(x, w, false, true);
      HostTensor with_bias = product;
      ForEachIndex(product.shape, [&](const std::vector<int64_t>& i) {
        with_bias.at(i) = StoreAs(t, product.at(i) + bias.data[i.back()]);
      });
      HostTensor got = RunOp({x, w}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Dense(b, in[0], in[1], std::nullopt);
      });
      EXPECT_TRUE(AllClose(got, product, 1e-5, 1e-5)) << te::DTypeName(t) << ShapeString(ds);
      HostTensor got_b = RunOp({x, w, bias}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Dense(b, in[0], in[1], in[2]);
      });
      EXPECT_TRUE(AllClose(got_b, with_bias, 1e-5, 1e-5)) << te::DTypeName(t) << ShapeString(ds);
    }
  }
}

TEST(Matmul, RejectsBadShapesAndDTypes) {
  auto status = [](const HostTensor& a, const HostTensor& b, MatmulParams p) {
    return BuildStatus({a, b}, [&](DagBuilder& bld, const std::vector<Tensor>& in) { return BatchMatmul(bld, in[0], in[1], p); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {3, 4}), HostTensor(DType::kFloat32, {5, 2}), {})));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {2, 3, 4}), HostTensor(DType::kFloat32, {3, 4, 2}), {})));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kInt8, {3, 4}), HostTensor(DType::kInt8, {4, 2}), {})));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {}), HostTensor(DType::kFloat32, {4}), {})));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {3, 4}), HostTensor(DType::kFloat32, {5, 3})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                                                    return Dense(b, in[0], in[1], std::nullopt);
                                                  })));
}

}  // namespace
}  // namespace tunefarm::ops::testing
