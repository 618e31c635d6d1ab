// A plain reference for any compute DAG: evaluates every stage point by point straight from its
// expression tree, with no schedule, no lowering and no loop IR, so it shares no code with what
// it checks. Float math runs in double and is rounded to the tensor's dtype when stored.
#pragma once

#include <cmath>
#include <cstring>
#include <vector>

#include "common/check.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::testing {

class DagEvaluator {
 public:
  explicit DagEvaluator(const te::ComputeDag& dag) : dag_(dag), values_(dag.num_tensors()) {}

  // inputs: one vector per placeholder (dag.inputs() order), values as doubles.
  // Returns one vector per output (dag.outputs() order).
  std::vector<std::vector<double>> Run(const std::vector<std::vector<double>>& inputs) {
    for (size_t i = 0; i < dag_.inputs().size(); ++i) values_[dag_.inputs()[i]] = inputs[i];
    for (int id : dag_.stages()) ComputeStage(id);
    std::vector<std::vector<double>> out;
    for (int id : dag_.outputs()) out.push_back(values_[id]);
    return out;
  }

 private:
  static double Round(te::DType t, double v) {
    switch (t) {
      case te::DType::kFloat32: return static_cast<float>(v);
      case te::DType::kFloat64: return v;
      case te::DType::kBool: return v != 0;
      default: return static_cast<double>(static_cast<int64_t>(v));
    }
  }

  static int64_t FloorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }

  double Eval(const te::Expr& e) {
    using K = te::ExprKind;
    auto op = [&](int i) { return Eval(e->operands[i]); };
    bool is_int = !te::IsFloat(e->operands.empty() ? e->dtype : e->operands[0]->dtype);
    switch (e->kind) {
      case K::kIntImm: return static_cast<double>(e->int_value);
      case K::kFloatImm: return e->float_value;
      case K::kAxis: return static_cast<double>(axes_[e->int_value]);
      case K::kReduceAxis: return static_cast<double>(raxes_[e->int_value]);
      case K::kAdd: return Round(e->dtype, op(0) + op(1));
      case K::kSub: return Round(e->dtype, op(0) - op(1));
      case K::kMul: return Round(e->dtype, op(0) * op(1));
      case K::kDiv:
        if (is_int) return static_cast<double>(FloorDiv(static_cast<int64_t>(op(0)), static_cast<int64_t>(op(1))));
        return Round(e->dtype, op(0) / op(1));
      case K::kMod: {
        int64_t a = static_cast<int64_t>(op(0)), b = static_cast<int64_t>(op(1));
        return static_cast<double>(a - FloorDiv(a, b) * b);
      }
      case K::kMin: return std::fmin(op(0), op(1));
      case K::kMax: return std::fmax(op(0), op(1));
      case K::kEq: return op(0) == op(1);
      case K::kNe: return op(0) != op(1);
      case K::kLt: return op(0) < op(1);
      case K::kLe: return op(0) <= op(1);
      case K::kGt: return op(0) > op(1);
      case K::kGe: return op(0) >= op(1);
      case K::kAnd: return op(0) != 0 && op(1) != 0;
      case K::kOr: return op(0) != 0 || op(1) != 0;
      case K::kNot: return op(0) == 0;
      case K::kSelect: return op(0) != 0 ? op(1) : op(2);
      case K::kCast: return Round(e->dtype, te::IsFloat(e->dtype) ? op(0) : std::trunc(op(0)));
      case K::kCall: return Round(e->dtype, Call(static_cast<te::Intrinsic>(e->int_value), e));
      case K::kLoad: {
        const te::TensorDef& t = dag_.tensor(static_cast<int>(e->int_value));
        int64_t flat = 0;
        for (size_t d = 0; d < t.shape.size(); ++d) {
          int64_t i = static_cast<int64_t>(op(static_cast<int>(d)));
          TF_CHECK(i >= 0 && i < t.shape[d], "reference read out of bounds");
          flat = flat * t.shape[d] + i;
        }
        return values_[e->int_value][flat];
      }
      case K::kVar: break;
    }
    TF_CHECK(false, "unexpected node in a DAG");
    return 0;
  }

  double Call(te::Intrinsic f, const te::Expr& e) {
    double x = Eval(e->operands[0]);
    switch (f) {
      case te::Intrinsic::kExp: return std::exp(x);
      case te::Intrinsic::kLog: return std::log(x);
      case te::Intrinsic::kSqrt: return std::sqrt(x);
      case te::Intrinsic::kRsqrt: return 1 / std::sqrt(x);
      case te::Intrinsic::kTanh: return std::tanh(x);
      case te::Intrinsic::kErf: return std::erf(x);
      case te::Intrinsic::kSigmoid: return 1 / (1 + std::exp(-x));
      case te::Intrinsic::kPow: return std::pow(x, Eval(e->operands[1]));
      case te::Intrinsic::kAbs: return std::fabs(x);
      case te::Intrinsic::kFloor: return std::floor(x);
      case te::Intrinsic::kCeil: return std::ceil(x);
      case te::Intrinsic::kRoundEven: return std::nearbyint(x);
    }
    return 0;
  }

  static double Combine(te::ReduceKind kind, double acc, double v) {
    switch (kind) {
      case te::ReduceKind::kSum: return acc + v;
      case te::ReduceKind::kMax: return std::fmax(acc, v);
      case te::ReduceKind::kMin: return std::fmin(acc, v);
      case te::ReduceKind::kProd: return acc * v;
      case te::ReduceKind::kNone: break;
    }
    TF_CHECK(false, "combine without a reduction");
    return 0;
  }

  // Visits every point of `extents` (row-major), setting *point.
  template <typename Fn>
  static void ForEachPoint(const std::vector<int64_t>& extents, std::vector<int64_t>* point, Fn&& fn) {
    point->assign(extents.size(), 0);
    for (int64_t e : extents)
      if (e == 0) return;
    while (true) {
      fn();
      int d = static_cast<int>(extents.size()) - 1;
      while (d >= 0 && ++(*point)[d] == extents[d]) (*point)[d--] = 0;
      if (d < 0) return;
    }
  }

  void ComputeStage(int id) {
    const te::TensorDef& t = dag_.tensor(id);
    std::vector<double>& out = values_[id];
    out.assign(t.NumElements(), 0);
    size_t flat = 0;
    ForEachPoint(t.shape, &axes_, [&] {
      double acc;
      if (t.reduce == te::ReduceKind::kNone) {
        acc = Eval(t.body);
      } else {
        acc = Eval(te::ReduceIdentity(t.reduce, t.dtype));
        ForEachPoint(t.reduce_extents, &raxes_, [&] {
          double v = Eval(t.body);
          acc = Combine(t.reduce, acc, v);
        });
      }
      out[flat++] = Round(t.dtype, acc);
    });
  }

  const te::ComputeDag& dag_;
  std::vector<std::vector<double>> values_;
  std::vector<int64_t> axes_, raxes_;
};

}  // namespace tunefarm::testing
