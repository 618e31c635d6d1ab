// 3x3 stride-1 convolution by Winograd's minimal filtering F(m x m, 3 x 3) (Lavin & Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2015), in the blocked layout NCHW[x]c.
// Each m x m output tile is A^T [(G g G^T) . (B^T d B)] A over an (m+2) x (m+2) input tile d:
// the multiplications become one batched GEMM over channels per tile element, with
// 9 m^2 / (m+2)^2 as many multiplies as a direct convolution (2.25x fewer for m = 2, 4x for
// m = 4), paid for with two small transforms that the tuner schedules like any other stage.
//
// The weight transform G g G^T is done once at compile time (TransformWinogradWeight); the
// DAG takes the transformed weights U and has these stages:
//   <name>.pad        the input padded so that every tile is whole
//   <name>.data_pack  V[C/x, P, e, n, x]   = (B^T d B)[e][n] for the input tile d of tile P
//                     (the tile element axes inner, so that the tuner can unroll them)
//   <name>.bgemm      M[e, n, K/y, P, y]   = sum_c V[c, P, e, n] U[e, n, K/y, c, y]
//   <name>.tiles      T[N, K/y, TH, TW, m, m, y] = A^T M A per tile (tile element axes inner)
//   <name>            Y[N, K/y, OH, OW, y] = T[.., OH / m, OW / m, OH % m, OW % m, ..], a copy
//                     that takes the conv's epilogue
// with P = N x ceil(OH/m) x ceil(OW/m) tiles. The two transforms are written out row by row
// (only the non-zero entries, +-1 as additions) as select chains on the tile element indices:
// once the tuner unrolls those loops, the chains fold and each tile costs the closed form.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// The transforms of F(m x m, 3 x 3), row-major: a_t is m x alpha, b_t and the data transform
// are alpha x alpha, g is alpha x 3 (alpha = m + 2).
struct WinogradMatrices {
  int m = 0;
  int alpha = 0;
  std::vector<double> a_t, b_t, g;
};

// m = 2 or 4; null otherwise.
const WinogradMatrices* WinogradF(int m);

// Whether a conv is one Winograd computes: 3x3, stride 1, dilation 1, one group.
bool WinogradApplies(int64_t r, int64_t s, const std::array<int64_t, 2>& stride,
                     const std::array<int64_t, 2>& dilation, int64_t groups);

// Weight [K, C, 3, 3] (row-major floats) -> U [alpha, alpha, K/y, C/x, x, y] = G g G^T per
// (k, c), in double and rounded once. K divides by y and C by x.
std::vector<float> TransformWinogradWeight(const std::vector<float>& w, int64_t k, int64_t c, int m, int64_t x,
                                           int64_t y);

struct WinogradParams {
  int m = 2;                         // output tile size: 2 or 4
  std::array<int64_t, 4> padding{};  // top, left, bottom, right, as Conv2dParams
};

// The stages one by one (Conv2dWinogradNchwc chains them), so that each can also be a kernel
// of its own. Tiles of the output [oh, ow]: ceil(oh / m) x ceil(ow / m).
// data [N, C/x, H, W, x] -> V [C/x, P, alpha, alpha, x] (pad included).
absl::StatusOr<Tensor> WinogradDataPack(DagBuilder& b, const Tensor& data, const WinogradParams& p, std::string name);
// V [C/x, P, alpha, alpha, x], U [alpha, alpha, K/y, C/x, x, y] -> M [alpha, alpha, K/y, P, y].
absl::StatusOr<Tensor> WinogradBatchGemm(DagBuilder& b, const Tensor& v, const Tensor& u, std::string name);
// M [alpha, alpha, K/y, P, y] -> Y [n, K/y, oh, ow, y].
absl::StatusOr<Tensor> WinogradInverse(DagBuilder& b, const Tensor& mat, int m, int64_t n, int64_t oh, int64_t ow,
                                       std::string name);

// data [N, C/x, H, W, x], u [alpha, alpha, K/y, C/x, x, y] from TransformWinogradWeight ->
// [N, K/y, OH, OW, y], equal (up to rounding) to Conv2dNchwc with the untransformed weight,
// stride 1 and this padding.
absl::StatusOr<Tensor> Conv2dWinogradNchwc(DagBuilder& b, const Tensor& data, const Tensor& u,
                                           const WinogradParams& p, std::string name = "conv2d_winograd");

}  // namespace tunefarm::ops
