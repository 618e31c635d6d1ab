// ops::RoiAlign against ONNX Runtime's algorithm written out as scalar code (pre-computed
// bilinear weights per sample, a sample beyond one pixel outside the image contributes 0), in
// both modes and both coordinate rules, with boxes partly or wholly outside the image, boxes
// smaller than a pixel, several batch entries, and on the compiled path as well.
#include <array>
#include <cmath>

#include "compiler/ops/roi_align.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

// One bilinear sample of plane [H, W] at (y, x), as ONNX Runtime's pre_calc: the four weighted
// corner values (all 0 outside).
std::array<double, 4> Corners(const double* plane, int64_t H, int64_t W, double y, double x) {
  if (y < -1.0 || y > H || x < -1.0 || x > W) return {0, 0, 0, 0};
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= H - 1) {
    y_high = y_low = H - 1;
    y = static_cast<double>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= W - 1) {
    x_high = x_low = W - 1;
    x = static_cast<double>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const double ly = y - y_low, lx = x - x_low, hy = 1 - ly, hx = 1 - lx;
  return {hy * hx * plane[y_low * W + x_low], hy * lx * plane[y_low * W + x_high], ly * hx * plane[y_high * W + x_low],
          ly * lx * plane[y_high * W + x_high]};
}

HostTensor Reference(const HostTensor& x, const HostTensor& rois, const HostTensor& batch, const RoiAlignParams& p) {
  const int64_t C = x.shape[1], H = x.shape[2], W = x.shape[3], S = p.sampling_ratio;
  HostTensor out(x.dtype, {rois.shape[0], C, p.output_height, p.output_width});
  const double offset = p.half_pixel ? 0.5 : 0;
  ForEachIndex(out.shape, [&](const std::vector<int64_t>& o) {
    const int64_t r = o[0];
    const double sw = rois.at({r, 0}) * p.spatial_scale - offset, sh = rois.at({r, 1}) * p.spatial_scale - offset;
    double rw = rois.at({r, 2}) * p.spatial_scale - offset - sw, rh = rois.at({r, 3}) * p.spatial_scale - offset - sh;
    if (!p.half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bin_h = rh / p.output_height, bin_w = rw / p.output_width;
    const int64_t n = static_cast<int64_t>(batch.at({r}));
    const double* plane = x.data.data() + (n * C + o[1]) * H * W;
    double acc = 0;
    bool first = true;
    for (int64_t iy = 0; iy < S; ++iy)
      for (int64_t ix = 0; ix < S; ++ix) {
        const double y = sh + o[2] * bin_h + (iy + 0.5) * bin_h / S, xx = sw + o[3] * bin_w + (ix + 0.5) * bin_w / S;
        const auto c = Corners(plane, H, W, y, xx);
        if (!p.max_mode) {
          acc += c[0] + c[1] + c[2] + c[3];
        } else {
          const double v = std::max(std::max(std::max(c[0], c[1]), c[2]), c[3]);
          acc = first ? v : std::max(acc, v);
          first = false;
        }
      }
    out.at(o) = p.max_mode ? acc : acc / static_cast<double>(S * S);
  });
  return out;
}

struct Case {
  HostTensor x, rois, batch;
};

// Boxes anywhere from well inside to mostly outside a 2 x 3 x 9 x 11 input, some smaller than a
// pixel, with x2 < x1 for one (a negative size, which ONNX does not forbid).
Case RandomCase(uint64_t seed) {
  Case c{Random(DType::kFloat64, {2, 3, 9, 11}, seed), HostTensor(DType::kFloat64, {6, 4}),
         Random(DType::kInt64, {6}, seed + 1, 0, 1)};
  HostTensor corners = Random(DType::kFloat64, {6, 4}, seed + 2, -3, 13);
  for (int64_t r = 0; r < 6; ++r) {
    const double x1 = corners.at({r, 0}), y1 = corners.at({r, 1});
    const double w = r == 0 ? 0.3 : r == 5 ? -1.5 : std::abs(corners.at({r, 2})) / 2;
    const double h = r == 0 ? 0.2 : std::abs(corners.at({r, 3})) / 2;
    c.rois.at({r, 0}) = x1;
    c.rois.at({r, 1}) = y1;
    c.rois.at({r, 2}) = x1 + w;
    c.rois.at({r, 3}) = y1 + h;
  }
  return c;
}

TEST(RoiAlign, BothModesAndCoordinateRulesAgainstTheScalarAlgorithm) {
  uint64_t seed = 300;
  for (bool max_mode : {false, true})
    for (bool half_pixel : {false, true})
      for (int64_t ratio : {1, 2, 3}) {
        const Case c = RandomCase(seed += 3);
        RoiAlignParams p;
        p.output_height = 3;
        p.output_width = 4;
        p.sampling_ratio = ratio;
        p.spatial_scale = 0.75;
        p.half_pixel = half_pixel;
        p.max_mode = max_mode;
        const HostTensor want = Reference(c.x, c.rois, c.batch, p);
        const HostTensor got = RunOp({c.x, c.rois, c.batch}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return RoiAlign(b, in[0], in[1], in[2], p);
        });
        EXPECT_TRUE(AllClose(got, want, 1e-9, 1e-9)) << "max " << max_mode << " half_pixel " << half_pixel << " ratio " << ratio;
      }
}

TEST(RoiAlign, CompiledAgreesInFloat32) {
  Case c = RandomCase(77);
  for (HostTensor* t : {&c.x, &c.rois}) {
    t->dtype = DType::kFloat32;
    for (double& v : t->data) v = static_cast<float>(v);
  }
  RoiAlignParams p;
  p.output_height = 5;
  p.output_width = 5;
  const HostTensor want = Reference(c.x, c.rois, c.batch, p);
  auto dag = BuildOpDag({c.x, c.rois, c.batch}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
    return RoiAlign(b, in[0], in[1], in[2], p);
  });
  ASSERT_TRUE(dag.ok()) << dag.status();
  auto got = RunSharedObject(**dag, {c.x, c.rois, c.batch});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(AllClose(*got, want, 1e-5, 1e-5));
}

TEST(RoiAlign, RefusesWhatItCannotCompile) {
  const Case c = RandomCase(5);
  auto status = [&](RoiAlignParams p, HostTensor rois) {
    return BuildStatus({c.x, rois, c.batch}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return RoiAlign(b, in[0], in[1], in[2], p);
    });
  };
  RoiAlignParams adaptive;
  adaptive.sampling_ratio = 0;
  EXPECT_NE(std::string(status(adaptive, c.rois).message()).find("adaptive"), std::string::npos);
  EXPECT_FALSE(status({}, HostTensor(DType::kFloat64, {6, 5})).ok()) << "rois not [R, 4]";
  RoiAlignParams empty;
  empty.output_width = 0;
  EXPECT_FALSE(status(empty, c.rois).ok());
}

}  // namespace
}  // namespace tunefarm::ops::testing
