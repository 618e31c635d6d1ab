// Max/avg pooling 1-D/2-D/3-D (padding, dilation, ceil mode, count_include_pad), max-pool
// indices and global pooling, against the window definition written out.
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

// ONNX MaxPool's Indices, written out: the first window point (row-major scan) inside the input
// whose value is strictly greater than every earlier one, as onnx/reference's max pool does; its
// flat index over N, C row-major and the spatial axes row- or column-major.
HostTensor MaxPoolIndicesReference(const HostTensor& x, const PoolParams& p, PoolIndexOrder order) {
  const size_t sd = x.shape.size() - 2;
  auto get = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.empty() ? fallback : v[i]; };
  HostTensor y = PoolReference(x, p);
  HostTensor out(DType::kInt64, y.shape);
  ForEachIndex(y.shape, [&](const std::vector<int64_t>& o) {
    bool found = false;
    double best = 0;
    std::vector<int64_t> best_pos;
    ForEachIndex(Shape(p.kernel.begin(), p.kernel.end()), [&](const std::vector<int64_t>& j) {
      std::vector<int64_t> pos = {o[0], o[1]};
      for (size_t d = 0; d < sd; ++d) {
        int64_t v = o[2 + d] * get(p.stride, d, 1) - get(p.padding, d, 0) + j[d] * get(p.dilation, d, 1);
        if (v < 0 || v >= x.shape[2 + d]) return;
        pos.push_back(v);
      }
      double v = x.at(pos);
      if (!found || v > best) found = true, best = v, best_pos = pos;
    });
    ASSERT_TRUE(found) << "a window holds only padding";
    int64_t spatial = 0, stride = 1;
    if (order == PoolIndexOrder::kRowMajor) {
      for (size_t d = 0; d < sd; ++d) spatial = spatial * x.shape[2 + d] + best_pos[2 + d];
    } else {
      for (size_t d = 0; d < sd; ++d) spatial += best_pos[2 + d] * stride, stride *= x.shape[2 + d];
    }
    out.at(o) = static_cast<double>((o[0] * x.shape[1] + o[1]) * NumElements(Shape(x.shape.begin() + 2, x.shape.end())) +
                                    spatial);
  });
  return out;
}

OpFn MaxPoolIndicesOp(const PoolParams& p, PoolIndexOrder order) {
  return [p, order](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
    auto y = Pool(b, in[0], p);
    if (!y.ok()) return y.status();
    return MaxPoolIndices(b, in[0], *y, p, order);
  };
}

TEST(MaxPoolIndices, EveryNumericDTypeBothOrders) {
  uint64_t seed = 400;
  for (DType t : DTypesOf(DTypeSet::kNumeric)) {
    for (Case c : Cases()) {
      c.p.kind = PoolKind::kMax;
      for (PoolIndexOrder order : {PoolIndexOrder::kRowMajor, PoolIndexOrder::kColumnMajor}) {
        HostTensor x = Random(t, c.x, seed++, -100, 100);
        HostTensor got = RunOp({x}, MaxPoolIndicesOp(c.p, order));
        EXPECT_TRUE(AllClose(got, MaxPoolIndicesReference(x, c.p, order)))
            << te::DTypeName(t) << " " << ShapeString(c.x) << " column-major " << (order == PoolIndexOrder::kColumnMajor);
      }
    }
  }
}

// Few distinct values: most windows hold the max more than once, and unsigned zeros equal the
// padding, which must never be chosen.
TEST(MaxPoolIndices, TiesGoToTheFirstInScanOrder) {
  uint64_t seed = 500;
  for (DType t : {DType::kFloat32, DType::kUInt8, DType::kInt32}) {
    for (Case c : Cases()) {
      c.p.kind = PoolKind::kMax;
      for (PoolIndexOrder order : {PoolIndexOrder::kRowMajor, PoolIndexOrder::kColumnMajor}) {
        HostTensor x = Random(t, c.x, seed++, -2, 2);
        for (double& v : x.data) v = std::round(v);
        HostTensor got = RunOp({x}, MaxPoolIndicesOp(c.p, order));
        EXPECT_TRUE(AllClose(got, MaxPoolIndicesReference(x, c.p, order)))
            << te::DTypeName(t) << " " << ShapeString(c.x) << " column-major " << (order == PoolIndexOrder::kColumnMajor);
      }
    }
  }
}

// The ONNX example (test_maxpool_with_argmax_2d_precomputed_pads, storage_order 0) and the same
// pool with storage_order 1.
TEST(MaxPoolIndices, OnnxExample) {
  HostTensor x(DType::kFloat32, {1, 1, 5, 5});
  for (int64_t i = 0; i < x.size(); ++i) x.data[i] = static_cast<double>(i + 1);
  PoolParams p;
  p.kernel = {5, 5}, p.padding = {2, 2, 2, 2};
  HostTensor row(DType::kInt64, {1, 1, 5, 5}), column(DType::kInt64, {1, 1, 5, 5});
  for (int64_t h = 0; h < 5; ++h)
    for (int64_t w = 0; w < 5; ++w) {
      int64_t mh = std::min<int64_t>(h + 2, 4), mw = std::min<int64_t>(w + 2, 4);
      row.at({0, 0, h, w}) = static_cast<double>(mh * 5 + mw);
      column.at({0, 0, h, w}) = static_cast<double>(mh + mw * 5);
    }
  EXPECT_TRUE(AllClose(RunOp({x}, MaxPoolIndicesOp(p, PoolIndexOrder::kRowMajor)), row));
  EXPECT_TRUE(AllClose(RunOp({x}, MaxPoolIndicesOp(p, PoolIndexOrder::kColumnMajor)), column));
}

// Whatever the max does with NaN, the index points at an element equal to the max, or at the
// first NaN of the window when the max is NaN.
TEST(MaxPoolIndices, NaNInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor x = Random(DType::kFloat32, {1, 2, 6, 5}, 600);
  x.at({0, 0, 1, 1}) = nan;
  x.at({0, 0, 2, 1}) = nan;
  x.at({0, 1, 4, 3}) = nan;
  PoolParams p;
  p.kernel = {3, 3}, p.stride = {2, 2}, p.padding = {1, 1, 1, 1};
  HostTensor y = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Pool(b, in[0], p); });
  HostTensor got = RunOp({x}, MaxPoolIndicesOp(p, PoolIndexOrder::kRowMajor));
  ASSERT_EQ(got.size(), y.size());
  ForEachIndex(y.shape, [&](const std::vector<int64_t>& o) {
    int64_t first = -1;
    for (int64_t dh = 0; dh < 3; ++dh)
      for (int64_t dw = 0; dw < 3; ++dw) {
        int64_t h = o[2] * 2 - 1 + dh, w = o[3] * 2 - 1 + dw;
        if (h < 0 || h >= 6 || w < 0 || w >= 5) continue;
        double v = x.at({o[0], o[1], h, w});
        bool hit = std::isnan(y.at(o)) ? std::isnan(v) : v == y.at(o);
        if (hit && first < 0) first = x.Flat({o[0], o[1], h, w});
      }
    EXPECT_EQ(got.at(o), static_cast<double>(first)) << ShapeString(o);
  });
}

TEST(MaxPoolIndices, RejectsBadArguments) {
  auto status = [](Shape xs, const PoolParams& p, Shape ys, DType yt = DType::kFloat32) {
    return BuildStatus({HostTensor(DType::kFloat32, xs), HostTensor(yt, ys)},
                       [&](DagBuilder& b, const std::vector<Tensor>& in) {
                         return MaxPoolIndices(b, in[0], in[1], p, PoolIndexOrder::kRowMajor);
                       });
  };
  PoolParams p;
  p.kernel = {2, 2};
  EXPECT_TRUE(status({1, 2, 4, 4}, p, {1, 2, 3, 3}).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 4, 4}, p, {1, 2, 2, 2})));                  // y's shape
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 4, 4}, p, {1, 2, 3, 3}, DType::kFloat64)));  // y's dtype
  p.kind = PoolKind::kAvg;
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 2, 4, 4}, p, {1, 2, 3, 3})));  // not a max pool
  // One input element, a dilated window around it that steps over it: only padding.
  PoolParams q;
  q.kernel = {2}, q.padding = {1, 1}, q.dilation = {2};
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 1, 1}, q, {1, 1, 1})));
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

TEST(MaxUnpool, ScattersPooledMaximaBackIncludingOverlappingWindowsAndALargerOutput) {
  // MaxPool on the host (k x k, stride s, no padding) gives values and flat indices; unpooling
  // puts each value back at its index (overlapping windows may name one position twice).
  for (auto [k, s] : {std::pair<int64_t, int64_t>{2, 2}, {3, 2}, {2, 1}}) {
    const int64_t N = 2, C = 2, IH = 7, IW = 6;
    HostTensor source = Random(DType::kFloat32, {N, C, IH, IW}, 50 + k * 10 + s);
    const int64_t H = (IH - k) / s + 1, W = (IW - k) / s + 1;
    const int64_t UH = (H - 1) * s + k, UW = (W - 1) * s + k, OH = UH + 1, OW = UW + 2;
    HostTensor x(DType::kFloat32, {N, C, H, W}), idx(DType::kInt64, {N, C, H, W});
    HostTensor want(DType::kFloat32, {N, C, OH, OW});
    ForEachIndex(x.shape, [&](const std::vector<int64_t>& i) {
      double best = -1e30;
      int64_t at_h = 0, at_w = 0;
      for (int64_t a = 0; a < k; ++a)
        for (int64_t b2 = 0; b2 < k; ++b2) {
          const double v = source.at({i[0], i[1], i[2] * s + a, i[3] * s + b2});
          if (v > best) best = v, at_h = i[2] * s + a, at_w = i[3] * s + b2;
        }
      x.at(i) = best;
      idx.at(i) = static_cast<double>(((i[0] * C + i[1]) * UH + at_h) * UW + at_w);
      want.at({i[0], i[1], at_h, at_w}) = best;
    });
    UnpoolParams p{{k, k}, {s, s}, {0, 0}, {UH, UW}, {OH, OW}};
    HostTensor got = RunOp({x, idx}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return MaxUnpool(b, in[0], in[1], p); });
    EXPECT_TRUE(AllClose(got, want)) << "kernel " << k << " stride " << s;
  }
}

}  // namespace
}  // namespace tunefarm::ops::testing
