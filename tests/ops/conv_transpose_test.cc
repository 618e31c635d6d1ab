// ConvTranspose 1-D/2-D/3-D against the scatter definition: every input point adds its
// kernel-weighted contribution at i * stride - pad + r * dilation.
#include "compiler/ops/conv_transpose.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor ConvTransposeReference(const HostTensor& x, const HostTensor& w, const ConvTransposeParams& p) {
  const size_t sd = x.shape.size() - 2;
  auto get = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.empty() ? fallback : v[i]; };
  const int64_t c = x.shape[1], kg = w.shape[1], cg = c / p.groups;
  Shape out_shape = {x.shape[0], kg * p.groups};
  for (size_t d = 0; d < sd; ++d)
    out_shape.push_back((x.shape[2 + d] - 1) * get(p.stride, d, 1) - get(p.padding, d, 0) - get(p.padding, sd + d, 0) +
                        get(p.dilation, d, 1) * (w.shape[2 + d] - 1) + get(p.output_padding, d, 0) + 1);
  HostTensor out(x.dtype, out_shape);
  Shape kernel(w.shape.begin() + 2, w.shape.end());
  ForEachIndex(x.shape, [&](const std::vector<int64_t>& i) {
    const int64_t group = i[1] / cg;
    for (int64_t kk = 0; kk < kg; ++kk) {
      ForEachIndex(kernel, [&](const std::vector<int64_t>& r) {
        std::vector<int64_t> o = {i[0], group * kg + kk};
        for (size_t d = 0; d < sd; ++d) {
          int64_t pos = i[2 + d] * get(p.stride, d, 1) - get(p.padding, d, 0) + r[d] * get(p.dilation, d, 1);
          if (pos < 0 || pos >= out_shape[2 + d]) return;
          o.push_back(pos);
        }
        std::vector<int64_t> wi = {i[1], kk};
        wi.insert(wi.end(), r.begin(), r.end());
        out.at(o) += x.at(i) * w.at(wi);
      });
    }
  });
  for (double& v : out.data) v = StoreAs(x.dtype, v);
  return out;
}

struct Case {
  Shape x;
  int64_t k;  // output channels
  Shape kernel;
  ConvTransposeParams p;
};

TEST(ConvTranspose, OneTwoAndThreeDimensionalEveryFloatDType) {
  const std::vector<Case> cases = {
      {{1, 3, 7}, 2, {3}, {}},
      {{2, 2, 5}, 3, {4}, {{2}, {1, 1}, {1}, {1}, 1}},
      {{1, 4, 6}, 4, {3}, {{3}, {0, 2}, {0}, {2}, 2}},
      {{1, 1, 1}, 1, {1}, {}},
      {{1, 3, 4, 5}, 2, {3, 3}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1}},
      {{2, 2, 3, 3}, 4, {2, 3}, {{1, 2}, {0, 1, 0, 0}, {0, 1}, {2, 1}, 1}},
      {{1, 4, 5, 4}, 4, {3, 3}, {{2, 1}, {2, 1, 2, 1}, {0, 0}, {1, 1}, 4}},  // depthwise
      {{1, 6, 3, 4}, 4, {3, 2}, {{3, 2}, {0, 0, 1, 0}, {2, 1}, {1, 2}, 2}},
      {{1, 2, 2, 3, 3}, 2, {2, 2, 2}, {{2, 1, 2}, {0, 0, 1, 1, 0, 0}, {}, {}, 1}},
  };
  uint64_t seed = 1;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const Case& c : cases) {
      Shape ws = {c.x[1], c.k / c.p.groups};
      ws.insert(ws.end(), c.kernel.begin(), c.kernel.end());
      HostTensor x = Random(t, c.x, seed++), w = Random(t, ws, seed++);
      HostTensor got = RunOp({x, w}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return ConvTranspose(b, in[0], in[1], c.p);
      });
      EXPECT_TRUE(AllClose(got, ConvTransposeReference(x, w, c.p), 1e-5, 1e-5))
          << te::DTypeName(t) << " input " << ShapeString(c.x) << " weight " << ShapeString(ws);
    }
  }
}

TEST(ConvTranspose, RejectsBadShapes) {
  auto status = [](Shape xs, Shape ws, ConvTransposeParams p) {
    return BuildStatus({HostTensor(DType::kFloat32, xs), HostTensor(DType::kFloat32, ws)},
                       [&](DagBuilder& b, const std::vector<Tensor>& in) { return ConvTranspose(b, in[0], in[1], p); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5}, {2, 2, 3}, {})));              // weight C
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5}, {3, 2, 3, 3}, {})));           // rank
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5}, {3, 2, 3}, {{1, 1}, {}, {}, {}, 1})));  // stride count
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 2}, {3, 2, 2}, {{1}, {2, 2}, {}, {}, 1})));  // empty output
  EXPECT_TRUE(absl::IsInvalidArgument(status({1, 3, 5}, {3, 2, 3}, {{}, {}, {}, {}, 2})));     // groups
}

}  // namespace
}  // namespace tunefarm::ops::testing
