// ArgMax / ArgMin along one axis, first or last among ties, with and without keepdims, against a
// plain loop, interpreted and compiled; NaN counts as the extreme. TopK against a sort.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/ops/arg_reduce.h"
#include "compiler/ops/top_k.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor ArgReference(const HostTensor& x, const ArgReduceParams& p) {
  const int rank = static_cast<int>(x.shape.size());
  const int a = static_cast<int>(p.axis < 0 ? p.axis + rank : p.axis);
  Shape out_shape;
  for (int d = 0; d < rank; ++d) {
    if (d != a) out_shape.push_back(x.shape[d]);
    else if (p.keepdims) out_shape.push_back(1);
  }
  HostTensor out(DType::kInt64, out_shape);
  HostTensor best(x.dtype, out_shape);
  for (double& v : out.data) v = -1;
  ForEachIndex(x.shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> o;
    for (int d = 0; d < rank; ++d) {
      if (d != a) o.push_back(i[d]);
      else if (p.keepdims) o.push_back(0);
    }
    const double v = x.at(i);
    double& index = out.at(o);
    double& top = best.at(o);
    // NaN beats everything (the first NaN, or the last with select_last); then strictly better,
    // or equal with select_last.
    const bool better = std::isnan(v) ? (!std::isnan(top) || p.select_last)
                        : std::isnan(top) ? false
                        : p.max ? (v > top || (v == top && p.select_last))
                                : (v < top || (v == top && p.select_last));
    if (index < 0 || better) {
      index = static_cast<double>(i[a]);
      top = v;
    }
  });
  return out;
}

struct ArgCase {
  Shape shape;
  int64_t axis;
};
const ArgCase kCases[] = {{{7}, 0}, {{3, 5}, 1}, {{3, 5}, -2}, {{2, 3, 4}, 0}, {{2, 3, 4}, -1}, {{2, 1, 5}, 1}, {{4, 3, 2, 3}, 2}};

TEST(ArgReduce, EveryDTypeAxisKeepdimsAndTieRule) {
  uint64_t seed = 1;
  for (DType t : DTypesOf(DTypeSet::kNumeric)) {
    for (const ArgCase& c : kCases) {
      for (bool max : {true, false}) {
        for (bool keepdims : {true, false}) {
          for (bool last : {false, true}) {
            // A small integer range makes ties common, so the tie rule is exercised.
            HostTensor x = Random(t, c.shape, seed++, te::IsSigned(t) ? -3 : 0, 3);
            if (te::IsFloat(t))
              for (double& v : x.data) v = std::round(v);
            ArgReduceParams p{max, c.axis, keepdims, last};
            HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return ArgReduce(b, in[0], p); });
            EXPECT_TRUE(AllClose(got, ArgReference(x, p)))
                << (max ? "argmax " : "argmin ") << te::DTypeName(t) << " " << ShapeString(c.shape) << " axis " << c.axis
                << " keepdims " << keepdims << " last " << last;
          }
        }
      }
    }
  }
}

TEST(ArgReduce, NaNIsTheExtremeAndCompiledAgrees) {
  HostTensor x = Random(DType::kFloat32, {3, 6}, 7);
  x.data[2] = x.data[4] = std::numeric_limits<double>::quiet_NaN();   // row 0: two NaNs
  x.data[13] = std::numeric_limits<double>::infinity();               // row 2: +inf
  for (bool max : {true, false})
    for (bool last : {false, true}) {
      ArgReduceParams p{max, 1, false, last};
      auto op = [&](DagBuilder& b, const std::vector<Tensor>& in) { return ArgReduce(b, in[0], p); };
      HostTensor want = ArgReference(x, p);
      EXPECT_TRUE(AllClose(RunOp({x}, op), want)) << max << last;
      auto dag = BuildOpDag({x}, op);
      ASSERT_TRUE(dag.ok()) << dag.status();
      auto compiled = RunSharedObject(**dag, {x});
      ASSERT_TRUE(compiled.ok()) << compiled.status();
      EXPECT_TRUE(AllClose(*compiled, want)) << "compiled " << max << last;
    }
}

TEST(ArgReduce, HardmaxIsOneAtTheFirstLargest) {
  uint64_t seed = 3;
  for (const ArgCase& c : kCases) {
    HostTensor x = Random(DType::kFloat32, c.shape, seed++, -3, 3);
    for (double& v : x.data) v = std::round(v);  // ties: the first one wins
    HostTensor first = ArgReference(x, ArgReduceParams{true, c.axis, true, false});
    const int rank = static_cast<int>(c.shape.size()), a = static_cast<int>(c.axis < 0 ? c.axis + rank : c.axis);
    HostTensor want(DType::kFloat32, c.shape);
    ForEachIndex(c.shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> at = i;
      at[a] = 0;
      want.at(i) = first.at(at) == static_cast<double>(i[a]) ? 1 : 0;
    });
    HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Hardmax(b, in[0], c.axis); });
    EXPECT_TRUE(AllClose(got, want)) << ShapeString(c.shape) << " axis " << c.axis;
  }
}

TEST(ArgReduce, RejectsABadAxisAndBool) {
  HostTensor x = Random(DType::kFloat32, {3, 4}, 1);
  absl::Status axis = BuildStatus({x}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return ArgReduce(b, in[0], ArgReduceParams{true, 2, true, false});
  });
  EXPECT_FALSE(axis.ok());
  EXPECT_NE(std::string(axis.message()).find("argmax"), std::string::npos) << axis;
  HostTensor flag = Random(DType::kBool, {3}, 1, 0, 1);
  EXPECT_FALSE(BuildStatus({flag}, [](DagBuilder& b, const std::vector<Tensor>& in) {
                 return ArgReduce(b, in[0], ArgReduceParams{});
               }).ok());
}

TEST(TopK, LargestAndSmallestOnAnyAxisWithTiesInIndexOrder) {
  uint64_t seed = 40;
  for (const Shape& shape : {Shape{7}, Shape{3, 6}, Shape{2, 5, 3}})
    for (int64_t axis = -1; axis < static_cast<int64_t>(shape.size()); ++axis)
      for (bool largest : {true, false}) {
        const int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
        const int64_t k = std::min<int64_t>(3, shape[a]);
        HostTensor x = Random(DType::kInt32, shape, seed++, -3, 3);  // small range: many ties
        Shape out_shape = shape;
        out_shape[a] = k;
        HostTensor want_values(DType::kInt32, out_shape), want_indices(DType::kInt64, out_shape);
        ForEachIndex(out_shape, [&](const std::vector<int64_t>& j) {
          if (j[a] != 0) return;
          std::vector<std::pair<double, int64_t>> row;
          for (int64_t m = 0; m < shape[a]; ++m) {
            std::vector<int64_t> at = j;
            at[a] = m;
            row.push_back({largest ? -x.at(at) : x.at(at), m});  // sort ascending by key, then index
          }
          std::sort(row.begin(), row.end());
          for (int64_t r = 0; r < k; ++r) {
            std::vector<int64_t> at = j;
            at[a] = r;
            want_values.at(at) = largest ? -row[r].first : row[r].first;
            want_indices.at(at) = static_cast<double>(row[r].second);
          }
        });
        TopKParams p{k, axis, largest};
        HostTensor values = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
          auto top = TopK(b, in[0], p);
          if (!top.ok()) return top.status();
          return top->first;
        });
        HostTensor indices = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
          auto top = TopK(b, in[0], p);
          if (!top.ok()) return top.status();
          return top->second;
        });
        EXPECT_TRUE(AllClose(values, want_values)) << ShapeString(shape) << " axis " << axis << " largest " << largest;
        EXPECT_TRUE(AllClose(indices, want_indices)) << ShapeString(shape) << " axis " << axis << " largest " << largest;
      }
}

}  // namespace
}  // namespace tunefarm::ops::testing
