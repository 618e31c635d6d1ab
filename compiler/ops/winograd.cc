#include "compiler/ops/winograd.h"

#include <functional>

#include "common/check.h"
#include "common/strings.h"
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

// sum_j table[row][j] * term(j) over the non-zero entries of one row of a row-major table with
// `cols` columns: +-1 entries add or subtract without a multiply.
Expr RowDot(const std::vector<double>& table, int cols, int row, const std::function<Expr(int)>& term, DType t) {
  Expr sum;
  for (int j = 0; j < cols; ++j) {
    const double c = table[row * cols + j];
    if (c == 0) continue;
    Expr v = c == 1 ? term(j) : c == -1 ? -term(j) : term(j) * te::Const(t, c);
    sum = sum.get() == nullptr ? v : sum + v;
  }
  return sum.get() == nullptr ? te::Const(t, 0) : sum;
}

// arm(index) for an index expression in [0, n): a select chain. Once the loop of `index` is
// unrolled, every select folds and only one arm is left.
Expr Switch(const Expr& index, int n, const std::function<Expr(int)>& arm) {
  Expr value = arm(n - 1);
  for (int i = n - 2; i >= 0; --i) value = te::Select(te::Eq(index, te::IntImm(te::kIndexType, i)), arm(i), value);
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
  TF_CHECK(WinogradF(m) != nullptr && x > 0 && y > 0 && k % y == 0 && c % x == 0 &&
               static_cast<int64_t>(w.size()) == k * c * 9,
           "TransformWinogradWeight: weight, tile size or blocks do not fit");
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

namespace {

int64_t Tiles(int64_t extent, int m) { return (extent + m - 1) / m; }

Expr Index(int64_t v) { return te::IntImm(te::kIndexType, v); }

}  // namespace

absl::StatusOr<Tensor> WinogradDataPack(DagBuilder& b, const Tensor& data, const WinogradParams& p, std::string name) {
  constexpr std::string_view kOp = "winograd_data_pack";
  const WinogradMatrices* f = WinogradF(p.m);
  if (f == nullptr) return OpError(kOp, StrCat("tile size ", p.m, " is not 2 or 4"));
  if (auto s = CheckRank(kOp, "data", data.shape, 5); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "data", data.shape); !s.ok()) return s;
  for (int64_t pad : p.padding)
    if (pad < 0) return OpError(kOp, "padding must be >= 0");
  const int alpha = f->alpha, m = p.m;
  const int64_t oh = data.shape[2] + p.padding[0] + p.padding[2] - 2;
  const int64_t ow = data.shape[3] + p.padding[1] + p.padding[3] - 2;
  if (oh < 1 || ow < 1) return OpError(kOp, "the 3x3 kernel is larger than the padded input");
  const int64_t th = Tiles(oh, m), tw = Tiles(ow, m);
  // Padded so that the last tile is whole: (th * m + 2) x (tw * m + 2).
  PadParams pad{PadMode::kConstant,
                {0, 0, p.padding[0], p.padding[1], 0, 0, 0, th * m + 2 - data.shape[2] - p.padding[0],
                 tw * m + 2 - data.shape[3] - p.padding[1], 0},
                0};
  absl::StatusOr<Tensor> padded = Pad(b, data, pad, name + ".pad");
  if (!padded.ok()) return padded.status();
  const Tensor d = *padded;
  const DType t = data.dtype;
  // V[e][nu] = sum_b B^T[nu][b] (sum_a B^T[e][a] d[a][b]): the transform's sparse rows written
  // out, so that an unrolled tile costs the additions of the closed form, not alpha^4 products.
  return b.Compute(std::move(name), {data.shape[1], data.shape[0] * th * tw, alpha, alpha, data.shape[4]},
                   [&](const Axes& i) {
                     const Expr& tile = i[1];
                     Expr row = (tile / Index(tw)) % Index(th) * Index(m);
                     Expr col = tile % Index(tw) * Index(m);
                     Expr image = tile / Index(th * tw);
                     return Switch(i[3], alpha, [&](int nu) {
                       return RowDot(f->b_t, alpha, nu, [&](int bb) {
                         return Switch(i[2], alpha, [&](int e) {
                           return RowDot(f->b_t, alpha, e, [&](int a) {
                             return d(image, i[0], row + Index(a), col + Index(bb), i[4]);
                           }, t);
                         });
                       }, t);
                     });
                   });
}

absl::StatusOr<Tensor> WinogradBatchGemm(DagBuilder& b, const Tensor& v, const Tensor& u, std::string name) {
  constexpr std::string_view kOp = "winograd_bgemm";
  if (auto s = CheckRank(kOp, "V", v.shape, 5); !s.ok()) return s;
  if (auto s = CheckRank(kOp, "weight", u.shape, 6); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "weight", u.shape); !s.ok()) return s;
  if (u.dtype != v.dtype) return OpError(kOp, "data and weight have different dtypes");
  if (u.shape[0] != v.shape[2] || u.shape[1] != v.shape[3] || u.shape[3] != v.shape[0] || u.shape[4] != v.shape[4])
    return OpError(kOp, StrCat("weight ", ShapeString(u.shape), " is not the F(", v.shape[2] - 2, "x", v.shape[2] - 2,
                               ", 3x3) transform [", v.shape[2], ",", v.shape[3], ",K/y,", v.shape[0], ",", v.shape[4],
                               ",y] for data of ", v.shape[0] * v.shape[4], " channels"));
  return b.Reduce(std::move(name), te::ReduceKind::kSum, {v.shape[2], v.shape[3], u.shape[2], v.shape[1], u.shape[5]},
                  {v.shape[0], v.shape[4]}, [&](const Axes& i, const Axes& rd) {
                    return v(rd[0], i[3], i[0], i[1], rd[1]) * u(i[0], i[1], i[2], rd[0], rd[1], i[4]);
                  });
}

absl::StatusOr<Tensor> WinogradInverse(DagBuilder& b, const Tensor& mat, int m, int64_t n, int64_t oh, int64_t ow,
                                       std::string name) {
  constexpr std::string_view kOp = "winograd_inverse";
  const WinogradMatrices* f = WinogradF(m);
  if (f == nullptr) return OpError(kOp, StrCat("tile size ", m, " is not 2 or 4"));
  if (auto s = CheckRank(kOp, "M", mat.shape, 5); !s.ok()) return s;
  const int alpha = f->alpha;
  const int64_t th = Tiles(oh, m), tw = Tiles(ow, m);
  if (mat.shape[0] != alpha || mat.shape[1] != alpha || mat.shape[3] != n * th * tw)
    return OpError(kOp, StrCat("M ", ShapeString(mat.shape), " does not hold the ", n * th * tw, " tiles of F(", m,
                               "x", m, ", 3x3) over ", n, "x", oh, "x", ow));
  const DType t = mat.dtype;
  // Tile by tile, with the tile's element axes (i, j) inner so that they unroll and the select
  // chains fold: T[n, k, th, tw, i, j] = sum_b A^T[j][b] (sum_a A^T[i][a] M[a][b]). Computing Y
  // directly would switch on oh % m and ow % m, which no loop of Y's makes constant.
  Tensor tiles = b.Compute(name + ".tiles", {n, mat.shape[2], th, tw, m, m, mat.shape[4]}, [&](const Axes& i) {
    Expr tile = (i[0] * Index(th) + i[2]) * Index(tw) + i[3];
    return Switch(i[5], m, [&](int col) {
      return RowDot(f->a_t, alpha, col, [&](int bb) {
        return Switch(i[4], m, [&](int row) {
          return RowDot(f->a_t, alpha, row, [&](int a) { return mat(Index(a), Index(bb), i[1], tile, i[6]); }, t);
        });
      }, t);
    });
  });
  // Y in NCHW[x]c: a copy that the conv's epilogue absorbs (the last tiles may hang over).
  return b.Compute(std::move(name), {n, mat.shape[2], oh, ow, mat.shape[4]}, [&](const Axes& i) {
    return tiles(i[0], i[1], i[2] / Index(m), i[3] / Index(m), i[2] % Index(m), i[3] % Index(m), i[4]);
  });
}

absl::StatusOr<Tensor> Conv2dWinogradNchwc(DagBuilder& b, const Tensor& data, const Tensor& u,
                                           const WinogradParams& p, std::string name) {
  constexpr std::string_view kOp = "conv2d_winograd";
  const WinogradMatrices* f = WinogradF(p.m);
  if (f == nullptr) return OpError(kOp, StrCat("tile size ", p.m, " is not 2 or 4"));
  if (auto s = CheckRank(kOp, "data", data.shape, 5); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "data", data.dtype, DTypeSet::kFloat); !s.ok()) return s;
  absl::StatusOr<Tensor> v = WinogradDataPack(b, data, p, name + ".data_pack");
  if (!v.ok()) return v.status();
  absl::StatusOr<Tensor> mat = WinogradBatchGemm(b, *v, u, name + ".bgemm");
  if (!mat.ok()) return mat.status();
  const int64_t oh = data.shape[2] + p.padding[0] + p.padding[2] - 2;
  const int64_t ow = data.shape[3] + p.padding[1] + p.padding[3] - 2;
  return WinogradInverse(b, *mat, p.m, data.shape[0], oh, ow, std::move(name));
}

}  // namespace tunefarm::ops
