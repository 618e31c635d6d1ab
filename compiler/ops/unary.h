// Elementwise unary ops (ONNX Relu, LeakyRelu, Sigmoid, ..., Not), Clip and Cast.
#pragma once

#include <optional>
#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class UnaryOp {
  kRelu,         // max(x, 0)                              signed ints, floats
  kLeakyRelu,    // x < 0 ? alpha * x : x                  floats
  kSigmoid,      // 1 / (1 + exp(-x))                      floats
  kTanh,         //                                        floats
  kExp,          //                                        floats
  kLog,          //                                        floats
  kSqrt,         //                                        floats
  kAbs,          // |x| (ints wrap: abs(-128) is -128)      numeric
  kNeg,          // -x (ints wrap)                         signed ints, floats
  kErf,          //                                        floats
  kGelu,         // x / 2 * (1 + erf(x / sqrt(2)))         floats
  kHardSigmoid,  // max(0, min(1, alpha * x + beta))       floats
  kHardSwish,    // x * max(0, min(1, x / 6 + 1/2))        floats
  kSoftplus,     // log(1 + exp(x)), computed stably       floats
  kFloor,        //                                        floats
  kCeil,         //                                        floats
  kNot,          // logical not                            bool
  kReciprocal,   // 1 / x                                  floats
  kRound,        // to nearest, ties to even               floats
  kSin,          // range-reduced polynomial               floats
  kCos,          // range-reduced polynomial               floats
  kSoftsign,     // x / (1 + |x|)                          floats
  kElu,          // x < 0 ? alpha * (exp(x) - 1) : x       floats (alpha default 1)
  kSelu,         // beta * (x <= 0 ? alpha * (exp(x) - 1) : x)  floats (ONNX alpha, gamma as beta)
  kSign,         // -1, 0 or 1                             numeric
  kTan,          // sin / cos                              floats
  kSinh,         // (exp(x) - exp(-x)) / 2                 floats
  kCosh,         // (exp(x) + exp(-x)) / 2                 floats
  kAsinh,        // sign(x) log(|x| + sqrt(x^2 + 1))       floats
  kAcosh,        // log(x + sqrt(x^2 - 1))                 floats
  kAtanh,        // log((1 + x) / (1 - x)) / 2             floats
  kAtan,         // range-reduced polynomial               floats
  kAsin,         // atan(x / sqrt(1 - x^2))                floats
  kAcos,         // pi / 2 - asin(x)                       floats
  kCelu,         // max(0, x) + min(0, alpha (exp(x / alpha) - 1))   floats (alpha default 1)
  kShrink,       // x < -alpha ? x + beta : x > alpha ? x - beta : 0 floats (ONNX lambd 0.5, bias 0)
  kThresholdedRelu,  // x > alpha ? x : 0                  floats (alpha default 1)
};
std::string_view UnaryOpName(UnaryOp op);

struct UnaryParams {
  UnaryOp op = UnaryOp::kRelu;
  // kLeakyRelu: alpha (ONNX default 0.01). kHardSigmoid: alpha, beta (ONNX defaults 0.2, 0.5).
  // kElu: alpha (1). kSelu: alpha and gamma, passed as beta (ONNX defaults 1.6733, 1.0507).
  std::optional<double> alpha = {}, beta = {};
};

absl::StatusOr<Tensor> Unary(DagBuilder& b, const Tensor& x, const UnaryParams& p, std::string name = "");

// The expression of a unary op applied to one value (for fusing it into another stage's body).
// The dtype must be allowed for the op (Unary checks it).
Expr UnaryExpr(const UnaryParams& p, const Expr& x);
// floor(x) of a float expression.
inline Expr Floor(const Expr& x) { return UnaryExpr({UnaryOp::kFloor, std::nullopt, std::nullopt}, x); }

// out = min(max(x, min), max); a missing bound does not clamp. Bounds are converted to x's dtype
// (truncated and saturated for integers). Numeric dtypes.
struct ClipParams {
  std::optional<double> min, max;
};
absl::StatusOr<Tensor> Clip(DagBuilder& b, const Tensor& x, const ClipParams& p, std::string name = "clip");

// Conversion between any two dtypes: float -> int truncates toward zero (values outside the
// target's range are undefined, as in ONNX), anything -> bool is `!= 0`, bool -> number is 0/1,
// int -> int wraps.
absl::StatusOr<Tensor> Cast(DagBuilder& b, const Tensor& x, DType to, std::string name = "cast");

}  // namespace tunefarm::ops
