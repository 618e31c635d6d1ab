// Plain C++ reference of a 2-D NCHW convolution (direct loops, zero padding), shared by the
// NCHW, NCHW[x]c and Winograd tests, and the packing of a reference into NCHW[x]c.
#pragma once

#include "compiler/ops/conv2d.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {

inline HostTensor Conv2dReference(const HostTensor& x, const HostTensor& w, const Conv2dParams& p) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t k = w.shape[0], cg = w.shape[1], r = w.shape[2], s = w.shape[3];
  const int64_t oh = (h + p.padding[0] + p.padding[2] - p.dilation[0] * (r - 1) - 1) / p.stride[0] + 1;
  const int64_t ow = (wd + p.padding[1] + p.padding[3] - p.dilation[1] * (s - 1) - 1) / p.stride[1] + 1;
  const int64_t kg = k / p.groups;
  (void)c;
  HostTensor out(x.dtype, {n, k, oh, ow});
  ForEachIndex(out.shape, [&](const std::vector<int64_t>& i) {
    double acc = 0;
    int64_t group = i[1] / kg;
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t ry = 0; ry < r; ++ry)
        for (int64_t rx = 0; rx < s; ++rx) {
          int64_t y = i[2] * p.stride[0] - p.padding[0] + ry * p.dilation[0];
          int64_t xx = i[3] * p.stride[1] - p.padding[1] + rx * p.dilation[1];
          if (y < 0 || y >= h || xx < 0 || xx >= wd) continue;
          acc += x.at({i[0], group * cg + ci, y, xx}) * w.at({i[1], ci, ry, rx});
        }
    out.at(i) = StoreAs(x.dtype, acc);
  });
  return out;
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// [N, C, D...] -> [N, ceil(C/x), D..., x], zeros past C.
inline HostTensor PackReference(const HostTensor& t, int64_t x) {
  Shape shape = t.shape;
  shape[1] = CeilDiv(t.shape[1], x);
  shape.push_back(x);
  HostTensor out(t.dtype, shape);
  ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src(i.begin(), i.end() - 1);
    src[1] = i[1] * x + i.back();
    out.at(i) = src[1] < t.shape[1] ? t.at(src) : 0;
  });
  return out;
}

struct ConvCase {
  int64_t n, c, h, w, k, r, s;
  Conv2dParams p;
};

// Odd sizes, 1x1 kernels, asymmetric padding, stride, dilation, groups and depthwise.
inline std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  auto add = [&](int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s,
                 std::array<int64_t, 2> stride, std::array<int64_t, 4> pad, std::array<int64_t, 2> dil, int64_t groups) {
    cases.push_back({n, c, h, w, k, r, s, Conv2dParams{stride, pad, dil, groups}});
  };
  add(1, 3, 7, 9, 4, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  add(2, 4, 8, 8, 8, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1);
  add(1, 5, 9, 7, 3, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
  add(1, 2, 11, 10, 3, 3, 2, {2, 3}, {0, 2, 1, 0}, {2, 1}, 1);
  add(1, 4, 6, 6, 6, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2);
  add(2, 6, 7, 5, 6, 3, 3, {1, 2}, {1, 1, 2, 1}, {1, 1}, 6);   // depthwise
  add(1, 3, 6, 6, 6, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}, 3);   // depthwise, multiplier 2
  add(1, 1, 1, 1, 1, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
  return cases;
}

}  // namespace tunefarm::ops::testing
