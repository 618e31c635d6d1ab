// The product of a uint8 matrix and an int8 one in int32, the core of quantized inference
// (QLinearMatMul, MatMulInteger, the dense layers of int8 models). Exact: every product fits
// int32 and the sums wrap like int32, as ONNX's reference computes them.
//
// Both sides are blocked so that the inner loop matches x86 VNNI (vpdpbusd: sixteen int32
// lanes, each adding four uint8 x int8 products). Element (k, n) of B [K, N] sits at
// [n / 16, k / 4, n % 16, k % 4] of the packed B, the output is [..., M, N / 16, 16], and each
// update adds the four products of four adjacent k. A schedule that vectorizes the 16 lanes then
// reads the same four bytes of A in every lane and 64 adjacent bytes of B, which
// codegen/dot_product.h turns into one vpdpbusd. Other schedules and targets compute the same
// sum term by term. The blocked output is [..., M, N] in memory once its last two axes are
// merged (a free reshape), so an elementwise epilogue in the blocked shape fuses with it.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

// Lanes of the packed layout: output columns per block, and one 512-bit register of int32.
inline constexpr int64_t kInt8DotLanes = 16;
// Adjacent k per lane: the products one VNNI lane adds.
inline constexpr int64_t kInt8DotDepth = 4;

// The packed shape of B [K, N]: [N / 16, K / 4, 16, 4]. K must be a multiple of 4 and N of 16.
absl::StatusOr<Shape> PackedInt8WeightShape(const Shape& b);

// a [..., M, K] uint8 times packed B [N / 16, K / 4, 16, 4] int8 -> [..., M, N / 16, 16] int32.
absl::StatusOr<Tensor> MatmulU8S8(DagBuilder& b, const Tensor& a, const Tensor& packed_b, std::string name = "matmul_u8s8");

}  // namespace tunefarm::ops
