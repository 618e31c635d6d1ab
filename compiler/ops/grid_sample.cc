#include "compiler/ops/grid_sample.h"

#include <array>

#include "common/strings.h"
#include "compiler/ops/unary.h"

namespace tunefarm::ops {
namespace {

// Reflects v into [lo, hi] as often as it takes (ONNX reference's _gs_reflect).
Expr Reflect(const Expr& v, double lo, double hi, DType t) {
  const double range = hi - lo;
  if (range <= 0) return te::Const(t, lo);
  auto fold = [&](const Expr& distance, double from, double to) {
    Expr turns = Floor(distance / te::Const(t, range));
    Expr rest = distance - turns * te::Const(t, range);
    Expr even = te::Eq(Floor(turns * te::Const(t, 0.5)) * te::Const(t, 2), turns);
    return te::Select(even, te::Const(t, from) + (to > from ? rest : -rest), te::Const(t, to) + (to > from ? -rest : rest));
  };
  Expr below = fold(te::Const(t, lo) - v, lo, hi);  // even: lo + rest, odd: hi - rest
  Expr above = fold(v - te::Const(t, hi), hi, lo);  // even: hi - rest, odd: lo + rest
  return te::Select(te::Lt(v, te::Const(t, lo)), below, te::Select(te::Gt(v, te::Const(t, hi)), above, v));
}

}  // namespace

absl::StatusOr<Tensor> GridSample(DagBuilder& b, const Tensor& x, const Tensor& grid, const GridSampleParams& p,
                                  std::string name) {
  constexpr std::string_view kOp = "grid_sample";
  if (auto s = CheckShape(kOp, "input", x.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", x.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (x.shape.size() != 4) return OpError(kOp, StrCat("input ", ShapeString(x.shape), " is not [N, C, H, W]"));
  if (grid.dtype != x.dtype) return OpError(kOp, "grid and input differ in dtype");
  if (grid.shape.size() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2)
    return OpError(kOp, StrCat("grid ", ShapeString(grid.shape), " is not [", x.shape[0], ", Ho, Wo, 2]"));
  const DType t = x.dtype;
  const int64_t H = x.shape[2], W = x.shape[3];
  const std::array<int64_t, 2> size = {W, H};
  // The padding region of each axis: [-0.5, size - 0.5], or [0, size - 1] with align_corners.
  auto lo = [&](int) { return p.align_corners ? 0.0 : -0.5; };
  auto hi = [&](int axis) { return p.align_corners ? size[axis] - 1.0 : size[axis] - 0.5; };
  auto c = [&](double v) { return te::Const(t, v); };

  return b.Compute(std::move(name), {x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]}, [&](const Axes& i) {
    // Input coordinates (x, y) of this output pixel, padding applied to the coordinates.
    std::array<Expr, 2> at;
    for (int axis = 0; axis < 2; ++axis) {
      Expr g = grid({i[0], i[2], i[3], Expr(int64_t{axis})});
      const double n = static_cast<double>(size[axis]);
      Expr v = p.align_corners ? (g + c(1)) * c(0.5 * (n - 1)) : ((g + c(1)) * c(n) - c(1)) * c(0.5);
      if (p.mode == GridSampleMode::kNearest)  // ties to even, as np.rint and PyTorch's nearbyint
        v = UnaryExpr({UnaryOp::kRound, std::nullopt, std::nullopt}, v);
      // Nearest and bilinear pad the coordinate; bicubic pads each of its 16 taps (PyTorch).
      if (p.mode != GridSampleMode::kBicubic) {
        if (p.padding == GridSamplePadding::kBorder) v = te::Min(te::Max(v, c(0)), c(n - 1));
        if (p.padding == GridSamplePadding::kReflection) v = Reflect(v, lo(axis), hi(axis), t);
      }
      at[axis] = v;
    }
    // One input pixel at integer (float-valued) column u and row w, padded per tap.
    auto pixel = [&](const Expr& u, const Expr& w) {
      std::array<Expr, 2> index = {u, w};
      std::vector<Expr> inside;
      for (int axis = 0; axis < 2; ++axis) {
        Expr v = index[axis];
        if (p.padding == GridSamplePadding::kReflection) v = Reflect(v, lo(axis), hi(axis), t);
        if (p.padding == GridSamplePadding::kBorder) v = te::Min(te::Max(v, c(0)), c(static_cast<double>(size[axis]) - 1));
        Expr k = te::Cast(te::kIndexType, Floor(v));
        if (p.padding == GridSamplePadding::kZeros) inside.push_back(InRange(k, 0, size[axis]));
        index[axis] = Clamp(k, 0, size[axis] - 1);
      }
      Expr value = x({i[0], i[1], index[1], index[0]});
      return inside.empty() ? value : te::Select(AllOf(inside), value, c(0));
    };
    if (p.mode == GridSampleMode::kNearest) return pixel(at[0], at[1]);
    std::array<Expr, 2> base = {Floor(at[0]), Floor(at[1])};
    std::array<Expr, 2> frac = {at[0] - base[0], at[1] - base[1]};
    // Tap offsets and their weights per axis.
    std::array<std::vector<std::pair<double, Expr>>, 2> taps;
    for (int axis = 0; axis < 2; ++axis) {
      const Expr& r = frac[axis];
      if (p.mode == GridSampleMode::kBilinear) {
        taps[axis] = {{0.0, c(1) - r}, {1.0, r}};
      } else {
        const double a = -0.75;
        auto far = [&](const Expr& d) { return ((c(a) * d - c(5 * a)) * d + c(8 * a)) * d - c(4 * a); };
        auto near = [&](const Expr& d) { return ((c(a + 2) * d - c(a + 3)) * d) * d + c(1); };
        taps[axis] = {{-1.0, far(r + c(1))}, {0.0, near(r)}, {1.0, near(c(1) - r)}, {2.0, far(c(2) - r)}};
      }
    }
    Expr sum;
    for (const auto& [dy, wy] : taps[1])
      for (const auto& [dx, wx] : taps[0]) {
        Expr term = wy * wx * pixel(base[0] + c(dx), base[1] + c(dy));
        sum = sum.defined() ? sum + term : term;
      }
    return sum;
  });
}

}  // namespace tunefarm::ops
