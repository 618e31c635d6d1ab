#include "compiler/ops/winograd.h"

#include "compiler/common/strings.h"
#include "compiler/ops/pad.h"

namespace tunefarm::ops {
namespace {

// Interpolation points 0, 1, -1 (and 2, -2 for m = 4), the usual choice for float32: the
// transforms' entries stay small, so rounding error grows little.
const WinogradMatrices kF2 = {
    2,
    4,
    {1, 1, 1, 0,  //
     0, 1, -1, -1},
    {1, 0, -1, 0,  //
     0, 1, 1, 0,   //
     0, -1, 1, 0,  //
     0, 1, 0, -1},
    {1, 0, 0,         //
     0.5, 0.5, 0.5,   //
     0.5, -0.5, 0.5,  //
     0, 0, 1},
};

const WinogradMatrices kF4 = {
    4,
    6,
    {1, 1, 1, 1, 1, 0,   //
     0, 1, -1, 2, -2, 0,  //
     0, 1, 1, 4, 4, 0,    //
     0, 1, -1, 8, -8, 1},
    {4, 0, -5, 0, 1, 0,    //
     0, -4, -4, 1, 1, 0,   //
     0, 4, -4, -1, 1, 0,   //
     0, -2, -1, 2, 1, 0,   //
     0, 2, -1, -2, 1, 0,   //
     0, 4, 0, -5, 0, 1},
    {1.0 / 4, 0, 0,                 //
     -1.0 / 6, -1.0 / 6, -1.0 / 6,  //
     -1.0 / 6, 1.0 / 6, -1.0 / 6,   //
     1.0 / 24, 1.0 / 12, 1.0 / 6,   //
     1.0 / 24, -1.0 / 12, 1.0 / 6,  //
     0, 0, 1},
};

// Entry (row, col) of a row-major table with `cols` columns, as an expression of two index
// expressions: a select chain over the non-zero entries. Once the loops of `row` and `col` are
// unrolled the chain folds to one constant.
Expr Entry(const std::vector<double>& table, int cols, const Expr& row, const Expr& col, DType t) {
  Expr value = te::Const(t, 0);
  for (int i = 0; i < static_cast<int>(table.size()); ++i) {
    if (table[i] == 0) continue;
    value = te::Select(te::And(te::Eq(row, te::IntImm(te::kIndexType, i / cols)),
                               te::Eq(col, te::IntImm(te::kIndexType, i % cols))),
                       te::Const(t, table[i]), value);
  }
  return value;
}

}  // namespace

const WinogradMatrices* WinogradF(int m) {
  if (m == 2) return &kF2;
  if (m == 4) return &kF4;
  return nullptr;
}

bool WinogradApplies(int64_t r, int64_t s, const std::array<int64_t, 2>& stride,
                     const std::array<int64_t, 2>& dilation, int64_t groups) {
  return r == 3 && s == 3 && stride[0] == 1 && stride[1] == 1 && dilation[0] == 1 && dilation[1] == 1 &&
         groups == 1;
}

std::vector<float> TransformWinogradWeight(const std::vector<float>& w, int64_t k, int64_t c, int m, int64_t x,
                                           int64_t y) {
  const WinogradMatrices& f = *WinogradF(m);
  const int alpha = f.alpha;
  std::vector<float> u(static_cast<size_t>(alpha * alpha * k * c));
  for (int64_t ko = 0; ko < k; ++ko) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const float* g = &w[(ko * c + ci) * 9];
      // G g (alpha x 3), then (G g) G^T (alpha x alpha).
      double gg[6][3] = {};
      for (int e = 0; e < alpha; ++e)
        for (int s = 0; s < 3; ++s)
          for (int r = 0; r < 3; ++r) gg[e][s] += f.g[e * 3 + r] * g[r * 3 + s];
      for (int e = 0; e < alpha; ++e) {
        for (int nu = 0; nu < alpha; ++nu) {
          double v = 0;
          for (int s = 0; s < 3; ++s) v += gg[e][s] * f.g[nu * 3 + s];
          // [alpha, alpha, K/y, C/x, x, y]
          const int64_t index = ((((e * alpha + nu) * (k / y) + ko / y) * (c / x) + ci / x) * x + ci % x) * y + ko % y;
          u[index] = static_cast<float>(v);
        }
      }
    }
  }
  return u;
}

absl::StatusOr<Tensor> Conv2dWinogradNchwc(DagBuilder& b, const Tensor& data, const Tensor& u,
                                           const WinogradParams& p, std::string name) {
  constexpr std::string_view kOp = "conv2d_winograd";
  const WinogradMatrices* f = WinogradF(p.m);
  if (f == nullptr) return OpError(kOp, StrCat("tile size ", p.m, " is not 2 or 4"));
  if (auto s = CheckRank(kOp, "data", data.shape, 5); !s.ok()) return s;
  if (auto s = CheckRank(kOp, "weight", u.shape, 6); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "data", data.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "weight", u.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "data", data.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (u.dtype != data.dtype) return OpError(kOp, "data and weight have different dtypes");
  for (int64_t pad : p.padding)
    if (pad < 0) return OpError(kOp, "padding must be >= 0");
  const int alpha = f->alpha, m = p.m;
  const int64_t n = data.shape[0], cb = data.shape[1], x = data.shape[4];
  const int64_t kb = u.shape[2], y = u.shape[5];
  if (u.shape[0] != alpha || u.shape[1] != alpha || u.shape[3] != cb || u.shape[4] != x)
    return OpError(kOp, StrCat("weight ", ShapeString(u.shape), " is not the F(", m, "x", m, ", 3x3) transform [",
                               alpha, ",", alpha, ",K/y,", cb, ",", x, ",y] of data ", ShapeString(data.shape)));
  const int64_t oh = data.shape[2] + p.padding[0] + p.padding[2] - 2;
  const int64_t ow = data.shape[3] + p.padding[1] + p.padding[3] - 2;
  if (oh < 1 || ow < 1) return OpError(kOp, "the 3x3 kernel is larger than the padded input");
  const int64_t th = (oh + m - 1) / m, tw = (ow + m - 1) / m, tiles = n * th * tw;

  // Padded so that the last tile is whole: (th * m + 2) x (tw * m + 2).
  PadParams pad{PadMode::kConstant,
                {0, 0, p.padding[0], p.padding[1], 0, 0, 0, th * m + 2 - data.shape[2] - p.padding[0],
                 tw * m + 2 - data.shape[3] - p.padding[1], 0},
                0};
  absl::StatusOr<Tensor> padded = Pad(b, data, pad, name + ".pad");
  if (!padded.ok()) return padded.status();
  const Tensor d = *padded;
  const DType t = data.dtype;
  const Expr tiles_w = te::IntImm(te::kIndexType, tw), tiles_hw = te::IntImm(te::kIndexType, th * tw);
  const Expr mm = te::IntImm(te::kIndexType, m);

  Tensor v = b.Reduce(name + ".data_pack", te::ReduceKind::kSum, {alpha, alpha, cb, tiles, x}, {alpha, alpha},
                      [&](const Axes& i, const Axes& rd) {
                        const Expr& tile = i[3];
                        Expr row = (tile / tiles_w) % te::IntImm(te::kIndexType, th) * mm + rd[0];
                        Expr col = tile % tiles_w * mm + rd[1];
                        Expr coefficient = Entry(f->b_t, alpha, i[0], rd[0], t) * Entry(f->b_t, alpha, i[1], rd[1], t);
                        return d(tile / tiles_hw, i[2], row, col, i[4]) * coefficient;
                      });
  Tensor mat = b.Reduce(name + ".bgemm", te::ReduceKind::kSum, {alpha, alpha, kb, tiles, y}, {cb, x},
                        [&](const Axes& i, const Axes& rd) {
                          return v(i[0], i[1], rd[0], i[3], rd[1]) * u(i[0], i[1], i[2], rd[0], rd[1], i[4]);
                        });
  return b.Reduce(std::move(name), te::ReduceKind::kSum, {n, kb, oh, ow, y}, {alpha, alpha},
                  [&](const Axes& i, const Axes& rd) {
                    Expr tile = i[0] * tiles_hw + i[2] / mm * tiles_w + i[3] / mm;
                    Expr coefficient = Entry(f->a_t, alpha, i[2] % mm, rd[0], t) * Entry(f->a_t, alpha, i[3] % mm, rd[1], t);
                    return mat(rd[0], rd[1], i[1], tile, i[4]) * coefficient;
                  });
}

}  // namespace tunefarm::ops
