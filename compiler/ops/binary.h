// Elementwise binary ops and Where, with numpy (ONNX multidirectional) broadcasting: shapes
// are right-aligned and each pair of dimensions must be equal or one of them 1.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class BinaryOp {
  kAdd, kSub, kMul,  // numeric; integers wrap
  kDiv,              // numeric; integers truncate toward zero, x / 0 gives x (never traps)
  kPow,              // x: float32/64, int32/64; y: same set, converted; result has x's dtype
  kMax, kMin,        // numeric
  kEqual,            // any dtype -> bool
  kLess, kLessEqual, kGreater, kGreaterEqual,  // numeric -> bool
  kAnd, kOr,         // bool -> bool
  kXor,              // bool -> bool
  kMod,              // integers: the remainder takes the divisor's sign (ONNX Mod, fmod=0)
  kFmod,             // numeric: the remainder takes the dividend's sign (C fmod; ONNX fmod=1)
  kPRelu,            // signed numeric: x < 0 ? y * x : x (y is the slope)
  kShiftLeft,        // unsigned integers: x << y (ONNX BitShift); y >= the bit width gives 0
  kShiftRight,       // unsigned integers: x >> y; y >= the bit width gives 0
};
std::string_view BinaryOpName(BinaryOp op);

// x and y have the same dtype (except kPow's exponent).
absl::StatusOr<Tensor> Binary(DagBuilder& b, const Tensor& x, const Tensor& y, BinaryOp op, std::string name = "");

// out = cond ? x : y elementwise; cond is bool, x and y share any dtype; all three broadcast.
absl::StatusOr<Tensor> Where(DagBuilder& b, const Tensor& cond, const Tensor& x, const Tensor& y,
                             std::string name = "where");

}  // namespace tunefarm::ops
