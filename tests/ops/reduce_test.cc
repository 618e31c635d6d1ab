// Reduce sum/mean/max/min/prod over any axes, with and without keepdims, against a plain loop;
// and the new product reduction through rfactor and the DAG text.
#include <cmath>
#include <limits>

#include "compiler/ops/reduce.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor ReduceReference(const HostTensor& x, ReduceOp op, std::vector<int> axes, bool keepdims) {
  const size_t rank = x.shape.size();
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int>(d));
  auto reduced = [&](size_t d) { return std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end(); };
  Shape out_shape;
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced(d)) out_shape.push_back(x.shape[d]);
    else if (keepdims) out_shape.push_back(1);
    if (reduced(d)) count *= x.shape[d];
  }
  const double init = op == ReduceOp::kMax    ? -std::numeric_limits<double>::infinity()
                      : op == ReduceOp::kMin  ? std::numeric_limits<double>::infinity()
                      : op == ReduceOp::kProd ? 1
                                              : 0;
  HostTensor out(x.dtype, out_shape);
  for (double& v : out.data) v = init;
  ForEachIndex(x.shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> o;
    for (size_t d = 0; d < rank; ++d) {
      if (!reduced(d)) o.push_back(i[d]);
      else if (keepdims) o.push_back(0);
    }
    double& acc = out.at(o);
    double v = x.at(i);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean: acc += v; break;
      case ReduceOp::kMax: acc = std::max(acc, v); break;
      case ReduceOp::kMin: acc = std::min(acc, v); break;
      case ReduceOp::kProd: acc = StoreAs(x.dtype, acc * v); break;  // integers wrap at every step
    }
  });
  for (double& v : out.data) {
    if (op == ReduceOp::kMean) v = te::IsFloat(x.dtype) ? v / static_cast<double>(count) : std::trunc(StoreAs(x.dtype, v) / count);
    v = StoreAs(x.dtype, v);
  }
  return out;
}

struct AxesCase {
  Shape shape;
  std::vector<int64_t> axes;
};
const AxesCase kAxesCases[] = {
    {{7}, {}},           {{7}, {0}},         {{3, 5}, {1}},      {{3, 5}, {-2}},       {{2, 3, 4}, {0, 2}},
    {{2, 3, 4}, {}},     {{2, 1, 5}, {1}},   {{4, 3, 2, 3}, {1, 3}}, {{2, 3, 2, 2}, {-1, 0, 2}}, {{1, 1}, {0, 1}},
};

TEST(Reduce, EveryOpDTypeAxesAndKeepdims) {
  const std::pair<ReduceOp, DTypeSet> ops[] = {{ReduceOp::kSum, DTypeSet::kFloat}, {ReduceOp::kMean, DTypeSet::kFloat},
                                               {ReduceOp::kMax, DTypeSet::kNumeric}, {ReduceOp::kMin, DTypeSet::kNumeric},
                                               {ReduceOp::kProd, DTypeSet::kFloat}};
  uint64_t seed = 1;
  for (const auto& [op, set] : ops) {
    std::vector<DType> dtypes = DTypesOf(set);
    if (set == DTypeSet::kFloat) dtypes.insert(dtypes.end(), {DType::kInt32, DType::kInt64});
    for (DType t : dtypes) {
      for (const AxesCase& c : kAxesCases) {
        for (bool keepdims : {true, false}) {
          // Products stay small enough to be exact in a double before wrapping.
          double range = op == ReduceOp::kProd ? 3 : te::IsFloat(t) ? 1 : 100;
          HostTensor x = Random(t, c.shape, seed++, te::IsSigned(t) ? -range : 0, range);
          if (op == ReduceOp::kProd && te::IsFloat(t)) x = Random(t, c.shape, seed++, 0.5, 1.5);
          std::vector<int> axes;
          for (int64_t a : c.axes) axes.push_back(static_cast<int>(a < 0 ? a + static_cast<int64_t>(c.shape.size()) : a));
          ReduceParams p{op, c.axes, keepdims};
          HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Reduce(b, in[0], p); });
          const double tol = te::IsFloat(t) ? 1e-5 : 0;
          EXPECT_TRUE(AllClose(got, ReduceReference(x, op, axes, keepdims), tol, tol))
              << ReduceOpName(op) << " " << te::DTypeName(t) << " " << ShapeString(c.shape) << " axes ["
              << c.axes.size() << "] keepdims " << keepdims;
        }
      }
    }
  }
}

TEST(Reduce, IntegerProductWrapsAndMeanTruncates) {
  HostTensor x(DType::kInt32, {2, 3});
  x.data = {100000, 100000, 3, -7, 1, 1};
  HostTensor prod = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Reduce(b, in[0], ReduceParams{ReduceOp::kProd, {1}, false});
  });
  HostTensor mean = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Reduce(b, in[0], ReduceParams{ReduceOp::kMean, {1}, false});
  });
  HostTensor want_prod(DType::kInt32, {2}), want_mean(DType::kInt32, {2});
  want_prod.data = {StoreAs(DType::kInt32, 3e10), -7};
  want_mean.data = {66667, -1};  // 200003 / 3 and -5 / 3, truncated toward zero
  EXPECT_TRUE(AllClose(prod, want_prod));
  EXPECT_TRUE(AllClose(mean, want_mean));
}

TEST(Reduce, ProductThroughRfactorPadsWithOne) {
  HostTensor x = Random(DType::kFloat64, {3, 13}, 77, 0.5, 1.5);
  auto dag = BuildOpDag({x}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Reduce(b, in[0], ReduceParams{ReduceOp::kProd, {1}, false});
  });
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_NE((*dag)->CanonicalText().find(" prod [13] "), std::string::npos) << (*dag)->CanonicalText();
  for (int iter : {1, 2}) {
    schedule::State s(*dag);
    ASSERT_TRUE(s.Split(1, 1, {4}).ok());  // 13 = 4 * 4 - 3: three padded points
    ASSERT_TRUE(s.Rfactor(1, iter).ok());
    auto got = InterpretState(s, {x});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(AllClose(*got, ReduceReference(x, ReduceOp::kProd, {1}, false), 1e-12, 1e-12)) << iter;
  }
}

TEST(Reduce, RejectsBadAxesAndDTypes) {
  auto status = [](const HostTensor& x, ReduceParams p) {
    return BuildStatus({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Reduce(b, in[0], p); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {3, 4}), {ReduceOp::kSum, {2}, true})));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {3, 4}), {ReduceOp::kSum, {1, -1}, true})));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kInt8, {3, 4}), {ReduceOp::kSum, {}, true})));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kBool, {3, 4}), {ReduceOp::kMax, {}, true})));
}

}  // namespace
}  // namespace tunefarm::ops::testing
