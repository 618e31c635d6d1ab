// Max/avg pooling 1-D/2-D/3-D (padding, dilation, ceil mode, count_include_pad) and global
// pooling, against the window definition written out.
#include <cmath>
#include <limits>

#include "compiler/ops/pooling.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

int64_t OutExtent(int64_t size, int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe, bool ceil_mode) {
  double span = static_cast<double>(size + pb + pe - dil * (k - 1) - 1) / static_cast<double>(s);
  int64_t out = static_cast<int64_t>(ceil_mode ? std::ceil(span) : std::floor(span)) + 1;
  if (ceil_mode && (out - 1) * s >= size + pb) --out;  // last window must start inside
  return out;
}

HostTensor PoolReference(const HostTensor& x, const PoolParams& p) {
  const size_t sd = x.shape.size() - 2;
  auto get = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.empty() ? fallback : v[i]; };
  Shape out_shape = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < sd; ++d)
    out_shape.push_back(OutExtent(x.shape[2 + d], p.kernel[d], get(p.stride, d, 1), get(p.dilation, d, 1),
                                  get(p.padding, d, 0), get(p.padding, sd + d, 0), p.ceil_mode));
  HostTensor out(x.dtype, out_shape);
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& o) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    int64_t inside = 0, counted = 0;
    ForEachIndex(Shape(p.kernel.begin(), p.kernel.end()), [&](const std::vector<int64_t>& j) {
      std::vector<int64_t> pos = {o[0], o[1]};
      bool in_input = true, in_padded = true;
      for (size_t d = 0; d < sd; ++d) {
        int64_t v = o[2 + d] * get(p.stride, d, 1) - get(p.padding, d, 0) + j[d] * get(p.dilation, d, 1);
        in_input = in_input && v >= 0 && v < x.shape[2 + d];
        in_padded = in_padded && v >= -get(p.padding, d, 0) && v < x.shape[2 + d] + get(p.padding, sd + d, 0);
        pos.push_back(v);
      }
      if (in_padded) ++counted;
      if (!in_input) return;
      ++inside;
      best = std::max(best, x.at(pos));
      sum += x.at(pos);
    });
    if (p.kind == PoolKind::kMax) {
      out.at(o) = best;
    } else {
      out.at(o) = StoreAs(x.dtype, sum / static_cast<double>(p.count_include_pad ? counted : inside));
    }
  });
  return out;
}

struct Case {
  Shape x;
  PoolParams p;  // kind is set per run
};

std::vector<Case> Cases() {
  auto pp = [](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> pad, std::vector<int64_t> dil,
               bool ceil_mode, bool include) {
    PoolParams p;
    p.kernel = k, p.stride = s, p.padding = pad, p.dilation = dil, p.ceil_mode = ceil_mode, p.count_include_pad = include;
    return p;
  };
  return {
      {{2, 3, 9}, pp({3}, {2}, {1, 1}, {}, false, false)},
      {{1, 2, 10}, pp({3}, {2}, {0, 1}, {}, true, true)},
      {{1, 2, 8}, pp({2}, {3}, {}, {2}, true, false)},
      {{1, 3, 7, 6}, pp({3, 3}, {2, 2}, {1, 1, 1, 1}, {}, false, true)},
      {{2, 2, 7, 6}, pp({3, 3}, {2, 2}, {1, 1, 1, 1}, {}, true, false)},
      {{1, 2, 6, 9}, pp({2, 3}, {2, 3}, {}, {}, true, true)},
      {{1, 1, 8, 7}, pp({3, 2}, {1, 2}, {2, 0, 1, 1}, {2, 1}, false, false)},
      {{1, 2, 5, 5}, pp({5, 5}, {1, 1}, {}, {}, false, false)},
      {{1, 1, 1, 1}, pp({1, 1}, {1, 1}, {}, {}, false, false)},
      {{1, 2, 5, 4, 6}, pp({2, 2, 3}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}, {}, true, true)},
      {{1, 1, 3, 4, 5}, pp({2, 3, 2}, {1, 1, 2}, {}, {}, false, false)},
  };
}

TEST(Pool, MaxEveryNumericDType) {
  uint64_t seed = 1;
  for (DType t : DTypesOf(DTypeSet::kNumeric)) {
    for (Case c : Cases()) {
      c.p.kind = PoolKind::kMax;
      HostTensor x = Random(t, c.x, seed++, -100, 100);
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Pool(b, in[0], c.p); });
      EXPECT_TRUE(AllClose(got, PoolReference(x, c.p))) << te::DTypeName(t) << " " << ShapeString(c.x);
    }
  }
}

TEST(Pool, AvgEveryFloatDType) {
  uint64_t seed = 100;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (Case c : Cases()) {
      for (bool include : {false, true}) {
        c.p.kind = PoolKind::kAvg;
        c.p.count_include_pad = include;
        HostTensor x = Random(t, c.x, seed++);
        HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Pool(b, in[0], c.p); });
        EXPECT_TRUE(AllClose(got, PoolReference(x, c.p), 1e-6, 1e-5))
            << te::DTypeName(t) << " " << ShapeString(c.x) << " include_pad " << include << " ceil " << c.p.ceil_mode;
      }
    }
  }
}

TEST(Pool, ShortFormPool2dNchw) {
  HostTensor x = Random(DType::kFloat32, {1, 2, 7, 8}, 200);
  for (PoolKind kind : {PoolKind::kMax, PoolKind::kAvg}) {
    Pool2dParams p2;
    p2.kind = kind;
    p2.kernel = {3, 3};
    p2.stride = {2, 2};
    p2.padding = {1, 1, 1, 1};
    PoolParams p;
    p.kind = kind, p.kernel = {3, 3}, p.stride = {2, 2}, p.padding = {1, 1, 1, 1}, p.count_include_pad = true;
    HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
      return Pool2dNchw(b, in[0], p2);
    });
    EXPECT_TRUE(AllClose(got, PoolReference(x, p), 1e-6, 1e-5));
  }
}

TEST(GlobalPool, MaxAndAvgOverEverySpatialAxis) {
  uint64_t seed = 300;
  for (const Shape& shape : {Shape{2, 3, 5}, Shape{1, 4, 3, 7}, Shape{2, 2, 2, 3, 2}, Shape{1, 1, 1, 1}}) {
    for (DType t : DTypesOf(DTypeSet::kNumeric)) {
      for (PoolKind kind : {PoolKind::kMax, PoolKind::kAvg}) {
        if (kind == PoolKind::kAvg && !te::IsFloat(t)) continue;
        HostTensor x = Random(t, shape, seed++, -100, 100);
        Shape out_shape = {shape[0], shape[1]};
        out_shape.resize(shape.size(), 1);
        HostTensor want(t, out_shape);
        const int64_t n = NumElements(Shape(shape.begin() + 2, shape.end()));
        for (int64_t i = 0; i < shape[0] * shape[1]; ++i) {
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          for (int64_t j = 0; j < n; ++j) best = std::max(best, x.data[i * n + j]), sum += x.data[i * n + j];
          want.data[i] = kind == PoolKind::kMax ? best : StoreAs(t, sum / static_cast<double>(n));
        }
        HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return GlobalPool(b, in[0], kind); });
        EXPECT_TRUE(AllClose(got, want, Tolerance(t), 4 * Tolerance(t))) << te::DTypeName(t) << " " << ShapeString(shape);
      }
    }
  }
}

TEST(Pool, RejectsBadParameters) {
  auto status = [](Shape xs, PoolParams p, DType t = DType::kFloat32) {
    return BuildStatus({HostTensor(t, xs)}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Pool(b, in[0], p); });
  };
  PoolParams p;
  p.kernel = {3, 3};
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 5}, p)));        // kernel count
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 2, 2}, p)));     // window too large
  p.padding = {3, 0, 0, 0};
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 5, 5}, p)));     // pad >= window
  p.padding = {};
  p.kind = PoolKind::kAvg;
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 5, 5}, p, DType::kInt32)));  // avg of ints
  EXPECT_TRUE(absl::IsInvalidArgument(status({5, 5}, p)));           // no spatial axis
}

}  // namespace
}  // namespace tunefarm::ops::testing
