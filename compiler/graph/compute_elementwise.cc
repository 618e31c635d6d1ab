// Computes of the elementwise and broadcast ops: unary math and activations (ops::Unary, Clip,
// Cast), binary arithmetic and comparisons (ops::Binary), variadic Max/Min/Sum/Mean (a chain of
// binary stages), Where.
#include <cmath>

#include "compiler/graph/compute_common.h"
#include "compiler/ops/binary.h"
#include "compiler/ops/float_class.h"
#include "compiler/ops/triangular.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/unary.h"

namespace tunefarm::graph {
namespace {
using namespace compute;
using ops::BinaryOp;
using ops::UnaryOp;

ComputeFn UnaryFn(UnaryOp op, const char* alpha = nullptr, const char* beta = nullptr) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::UnaryParams p{op, std::nullopt, std::nullopt};
    if (alpha) p.alpha = n.attrs.GetFloat(alpha);
    if (beta) p.beta = n.attrs.GetFloat(beta);
    return One(ops::Unary(b, in[0], p, n.name));
  };
}

ComputeFn BinaryFn(BinaryOp op) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Binary(b, in[0], in[1], op, n.name));
  };
}

// Folds the inputs left to right with `op`; intermediate stages are "<name>.<i>". Mean scales
// the sum by 1/n in its last stage.
ComputeFn VariadicFn(BinaryOp op, bool mean) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    if (mean && !te::IsFloat(in[0].dtype)) return absl::InvalidArgumentError("Mean needs float inputs");
    if (in.size() == 1) return One(ops::Copy(b, in[0], n.name));
    TeTensor acc = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      bool last = i + 1 == in.size() && !mean;
      auto next = ops::Binary(b, acc, in[i], op, last ? n.name : StrCat(n.name, ".", i));
      if (!next.ok()) return next.status();
      acc = *next;
    }
    if (!mean) return std::vector<TeTensor>{acc};
    te::Expr scale = te::Const(acc.dtype, 1.0 / static_cast<double>(in.size()));
    return std::vector<TeTensor>{b.Compute(n.name, acc.shape, [&](const te::DagBuilder::Axes& i) { return acc(i) * scale; })};
  };
}

absl::StatusOr<std::vector<TeTensor>> ClipCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  // The registry's defaults are -inf / +inf: an infinite bound does not clamp.
  ops::ClipParams p;
  double lo = n.attrs.GetFloat("min"), hi = n.attrs.GetFloat("max");
  if (!std::isinf(lo)) p.min = lo;
  if (!std::isinf(hi)) p.max = hi;
  return One(ops::Clip(b, in[0], p, n.name));
}

absl::StatusOr<std::vector<TeTensor>> CastCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  auto to = te::ParseDType(n.attrs.GetString("to"));
  if (!to) return absl::InvalidArgumentError(StrCat("unknown dtype '", n.attrs.GetString("to"), "'"));
  return One(ops::Cast(b, in[0], *to, n.name));
}

}  // namespace

void RegisterElementwiseComputes(OpRegistry* r) {
  const std::pair<const char*, UnaryOp> kUnary[] = {
      {"Sigmoid", UnaryOp::kSigmoid}, {"Tanh", UnaryOp::kTanh},       {"Exp", UnaryOp::kExp},
      {"Log", UnaryOp::kLog},         {"Sqrt", UnaryOp::kSqrt},       {"Erf", UnaryOp::kErf},
      {"Reciprocal", UnaryOp::kReciprocal}, {"Floor", UnaryOp::kFloor}, {"Ceil", UnaryOp::kCeil},
      {"Round", UnaryOp::kRound},     {"Sin", UnaryOp::kSin},         {"Cos", UnaryOp::kCos},
      {"Softplus", UnaryOp::kSoftplus}, {"Softsign", UnaryOp::kSoftsign}, {"HardSwish", UnaryOp::kHardSwish},
      {"Relu", UnaryOp::kRelu},       {"Neg", UnaryOp::kNeg},         {"Abs", UnaryOp::kAbs},
      {"Sign", UnaryOp::kSign},       {"Not", UnaryOp::kNot},         {"Tan", UnaryOp::kTan},
      {"Sinh", UnaryOp::kSinh},       {"Cosh", UnaryOp::kCosh},       {"Asinh", UnaryOp::kAsinh},
      {"Acosh", UnaryOp::kAcosh},     {"Atanh", UnaryOp::kAtanh},     {"Atan", UnaryOp::kAtan},
      {"Asin", UnaryOp::kAsin},       {"Acos", UnaryOp::kAcos}};
  for (const auto& [name, op] : kUnary) Set(r, name, UnaryFn(op));
  Set(r, "LeakyRelu", UnaryFn(UnaryOp::kLeakyRelu, "alpha"));
  Set(r, "Elu", UnaryFn(UnaryOp::kElu, "alpha"));
  Set(r, "Selu", UnaryFn(UnaryOp::kSelu, "alpha", "gamma"));
  Set(r, "HardSigmoid", UnaryFn(UnaryOp::kHardSigmoid, "alpha", "beta"));
  Set(r, "Celu", UnaryFn(UnaryOp::kCelu, "alpha"));
  Set(r, "IsNaN", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::IsNaN(b, in[0], n.name));
  });
  Set(r, "IsInf", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::IsInf(b, in[0], n.attrs.GetInt("detect_positive") != 0, n.attrs.GetInt("detect_negative") != 0, n.name));
  });
  Set(r, "Trilu", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Triangular(b, in[0], {n.attrs.GetInt("upper") != 0, n.attrs.GetInt("k")}, n.name));
  });
  Set(r, "Shrink", UnaryFn(UnaryOp::kShrink, "lambd", "bias"));
  Set(r, "ThresholdedRelu", UnaryFn(UnaryOp::kThresholdedRelu, "alpha"));
  Set(r, "Identity", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Copy(b, in[0], n.name));
  });
  Set(r, "Clip", ClipCompute);
  Set(r, "Cast", CastCompute);

  const std::pair<const char*, BinaryOp> kBinary[] = {
      {"Add", BinaryOp::kAdd},     {"Sub", BinaryOp::kSub},         {"Mul", BinaryOp::kMul},
      {"Div", BinaryOp::kDiv},     {"Pow", BinaryOp::kPow},         {"PRelu", BinaryOp::kPRelu},
      {"Equal", BinaryOp::kEqual}, {"Less", BinaryOp::kLess},       {"Greater", BinaryOp::kGreater},
      {"LessOrEqual", BinaryOp::kLessEqual}, {"GreaterOrEqual", BinaryOp::kGreaterEqual},
      {"And", BinaryOp::kAnd},     {"Or", BinaryOp::kOr},           {"Xor", BinaryOp::kXor}};
  for (const auto& [name, op] : kBinary) Set(r, name, BinaryFn(op));
  Set(r, "Mod", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    BinaryOp op = n.attrs.GetInt("fmod") != 0 ? BinaryOp::kFmod : BinaryOp::kMod;
    return One(ops::Binary(b, in[0], in[1], op, n.name));
  });
  Set(r, "Max", VariadicFn(BinaryOp::kMax, false));
  Set(r, "Min", VariadicFn(BinaryOp::kMin, false));
  Set(r, "Sum", VariadicFn(BinaryOp::kAdd, false));
  Set(r, "Mean", VariadicFn(BinaryOp::kAdd, true));
  Set(r, "Where", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Where(b, in[0], in[1], in[2], n.name));
  });
}

}  // namespace tunefarm::graph
