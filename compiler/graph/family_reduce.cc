// The reduction family: Reduce{Sum,Mean,Max,Min,Prod,SumSquare,L1,L2,LogSum,LogSumExp}, ArgMax,
// ArgMin, TopK and CumSum. Axes arrive as attributes: the converters read them from a constant input.
#include "compiler/graph/family_common.h"
#include "compiler/ops/arg_reduce.h"
#include "compiler/ops/binary.h"
#include "compiler/ops/cumulative.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/top_k.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/unary.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Axes = te::DagBuilder::Axes;

absl::Status InferReduce(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  std::vector<int64_t> axes = n.attrs.GetInts("axes");
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    auto axis = NormalizeAxis(a, rank);
    if (!axis.ok()) return axis.status();
    reduced[*axis] = true;
  }
  bool keep = n.attrs.GetInt("keepdims") != 0;
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i]) shape.push_back(in[0].shape[i]);
    else if (keep) shape.push_back(1);
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

// ArgMax / ArgMin: int64 indices, the axis kept as 1 or dropped.
absl::Status InferArgReduce(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const int64_t rank = static_cast<int64_t>(in[0].shape.size());
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), rank);
  if (!axis.ok()) return axis.status();
  if (in[0].shape[*axis] == 0) return Error("the reduced axis is empty");
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != *axis) shape.push_back(in[0].shape[i]);
    else if (n.attrs.GetInt("keepdims") != 0) shape.push_back(1);
  }
  *out = {TensorType{te::DType::kInt64, shape}};
  return absl::OkStatus();
}

ComputeFn ReduceFn(ops::ReduceOp op, bool square, bool root) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    ops::ReduceParams p{op, n.attrs.GetInts("axes"), n.attrs.GetInt("keepdims") != 0};
    TeTensor x = in[0];
    if (square) {
      auto sq = ops::Binary(b, x, x, ops::BinaryOp::kMul, StrCat(n.name, ".square"));
      if (!sq.ok()) return sq.status();
      x = *sq;
    }
    auto sum = ops::Reduce(b, x, p, root ? StrCat(n.name, ".sum") : n.name);
    if (!root || !sum.ok()) return One(std::move(sum));
    return One(ops::Unary(b, *sum, {ops::UnaryOp::kSqrt, std::nullopt, std::nullopt}, n.name));
  };
}

absl::Status InferTopK(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  if (!axis.ok()) return axis.status();
  const int64_t k = n.attrs.GetInt("k");
  if (k < 1 || k > in[0].shape[*axis]) return Error(StrCat("k ", k, " is outside [1, ", in[0].shape[*axis], "]"));
  std::vector<int64_t> shape = in[0].shape;
  shape[*axis] = k;
  *out = {TensorType{in[0].dtype, shape}, TensorType{te::DType::kInt64, shape}};
  return absl::OkStatus();
}

// TopK's K, a compile-time input since opset 10 (it decides the shape).
absl::Status ConvertTopK(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  auto k = n.ConstInt(1, "K");
  if (!k.ok()) return k.status();
  Attrs attrs = n.attrs();
  attrs.Set("k", *k);
  return n.Emit("TopK", {n.input(0)}, std::move(attrs), {n.output(0), n.HasOutput(1) ? n.output(1) : ""});
}

// sum(|x|) over the axes.
Outputs ReduceL1Compute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  auto abs = ops::Unary(b, in[0], {ops::UnaryOp::kAbs, std::nullopt, std::nullopt}, StrCat(n.name, ".abs"));
  if (!abs.ok()) return abs.status();
  ops::ReduceParams p{ops::ReduceOp::kSum, n.attrs.GetInts("axes"), n.attrs.GetInt("keepdims") != 0};
  return One(ops::Reduce(b, *abs, p, n.name));
}

// log(sum(x)) over the axes.
absl::StatusOr<std::vector<TeTensor>> ReduceLogSumCompute(te::DagBuilder& b, const Node& n,
                                                          const std::vector<TeTensor>& in) {
  ops::ReduceParams p{ops::ReduceOp::kSum, n.attrs.GetInts("axes"), n.attrs.GetInt("keepdims") != 0};
  auto sum = ops::Reduce(b, in[0], p, StrCat(n.name, ".sum"));
  if (!sum.ok()) return sum.status();
  return One(ops::Unary(b, *sum, {ops::UnaryOp::kLog, std::nullopt, std::nullopt}, n.name));
}

// log(sum(exp(x))) as m + log(sum(exp(x - m))), m the max over the axes, so a large x does not
// overflow exp. An infinite max shifts by 0 instead (inf - inf would be NaN): a slice holding
// +inf gives +inf, one of only -inf gives -inf.
absl::StatusOr<std::vector<TeTensor>> ReduceLogSumExpCompute(te::DagBuilder& b, const Node& n,
                                                             const std::vector<TeTensor>& in) {
  const std::vector<int64_t> axes = n.attrs.GetInts("axes");
  auto max = ops::Reduce(b, in[0], {ops::ReduceOp::kMax, axes, true}, StrCat(n.name, ".max"));
  if (!max.ok()) return max.status();
  const te::Expr inf = te::Const(max->dtype, std::numeric_limits<double>::infinity());
  TeTensor shift = b.Compute(StrCat(n.name, ".shift"), max->shape, [&](const te::DagBuilder::Axes& i) {
    te::Expr m = (*max)(i);
    return te::Select(te::Eq(te::Abs(m), inf), te::Const(max->dtype, 0), m);
  });
  auto shifted = ops::Binary(b, in[0], shift, ops::BinaryOp::kSub, StrCat(n.name, ".shifted"));
  if (!shifted.ok()) return shifted.status();
  auto exp = ops::Unary(b, *shifted, {ops::UnaryOp::kExp, std::nullopt, std::nullopt}, StrCat(n.name, ".exp"));
  if (!exp.ok()) return exp.status();
  auto sum = ops::Reduce(b, *exp, {ops::ReduceOp::kSum, axes, true}, StrCat(n.name, ".sum"));
  if (!sum.ok()) return sum.status();
  auto log = ops::Unary(b, *sum, {ops::UnaryOp::kLog, std::nullopt, std::nullopt}, StrCat(n.name, ".log"));
  if (!log.ok()) return log.status();
  const bool keepdims = n.attrs.GetInt("keepdims") != 0;
  auto result = ops::Binary(b, *log, shift, ops::BinaryOp::kAdd, keepdims ? n.name : StrCat(n.name, ".kept"));
  if (!result.ok() || keepdims) return One(std::move(result));
  return One(ops::Reshape(b, *result, ops::ReshapeParams{n.outputs[0].shape}, n.name));
}

ComputeFn ArgReduceFn(bool max) {
  return [=](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    ops::ArgReduceParams p{max, n.attrs.GetInt("axis"), n.attrs.GetInt("keepdims") != 0,
                           n.attrs.GetInt("select_last_index") != 0};
    return One(ops::ArgReduce(b, in[0], p, n.name));
  };
}

// Reduce*'s axes are an input since opset 13 (ReduceSum) or 18 (the rest). With
// noop_with_empty_axes and no axes, the reduction is the identity.
absl::Status ConvertReduce(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  Attrs attrs = n.attrs();
  const int64_t noop = attrs.GetInt("noop_with_empty_axes", 0);
  attrs.Erase("noop_with_empty_axes");
  TF_RETURN_IF_ERROR(n.IntsInputToAttr(1, "axes", &attrs));
  if (noop && attrs.GetInts("axes").empty()) {
    n.Alias(n.output(0), n.input(0));
    return absl::OkStatus();
  }
  return n.Emit(n.op(), {n.input(0)}, std::move(attrs), {n.output(0)});
}

// CumSum's axis, a compile-time scalar input.
absl::Status ConvertCumSum(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  auto axis = n.ConstInt(1, "axis");
  if (!axis.ok()) return axis.status();
  Attrs attrs = n.attrs();
  attrs.Set("axis", *axis);
  return n.Emit("CumSum", {n.input(0)}, std::move(attrs), {n.output(0)});
}

}  // namespace

void RegisterReduceFamily(OpRegistry* r) {
  const char* const kReduceOps[] = {"ReduceMean",      "ReduceSum", "ReduceMax", "ReduceMin",    "ReduceProd",
                                    "ReduceSumSquare", "ReduceL1",  "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp"};
  for (const char* name : kReduceOps)
    r->Register({name, 1, 1, 1, {IntList("axes"), Int("keepdims", 1)}, InferReduce, OpPattern::kReduction});
  for (const char* name : {"ArgMax", "ArgMin"})
    r->Register({name, 1, 1, 1, {Int("axis", 0), Int("keepdims", 1), Int("select_last_index", 0)}, InferArgReduce,
                 OpPattern::kOpaque});
  // Sorted always (ONNX's sorted=0 allows any order, so sorted is a valid answer).
  r->Register({"TopK", 1, 1, 2, {Required("k", AttrKind::kInt), Int("axis", -1), Int("largest", 1), Int("sorted", 1)},
               InferTopK, OpPattern::kOpaque});
  r->Register({"CumSum", 1, 1, 1, {Int("axis", 0), Int("exclusive", 0), Int("reverse", 0)},
               [](const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
                 if (!axis.ok()) return axis.status();
                 *out = {in[0]};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});

  Set(r, "ReduceSum", ReduceFn(ops::ReduceOp::kSum, false, false));
  Set(r, "ReduceMean", ReduceFn(ops::ReduceOp::kMean, false, false));
  Set(r, "ReduceMax", ReduceFn(ops::ReduceOp::kMax, false, false));
  Set(r, "ReduceMin", ReduceFn(ops::ReduceOp::kMin, false, false));
  Set(r, "ReduceProd", ReduceFn(ops::ReduceOp::kProd, false, false));
  Set(r, "ReduceSumSquare", ReduceFn(ops::ReduceOp::kSum, true, false));
  Set(r, "ReduceL1", ReduceL1Compute);
  Set(r, "ReduceL2", ReduceFn(ops::ReduceOp::kSum, true, true));
  Set(r, "ReduceLogSum", ReduceLogSumCompute);
  Set(r, "ReduceLogSumExp", ReduceLogSumExpCompute);
  Set(r, "ArgMax", ArgReduceFn(true));
  Set(r, "ArgMin", ArgReduceFn(false));
  Set(r, "TopK", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    ops::TopKParams p{n.attrs.GetInt("k"), n.attrs.GetInt("axis"), n.attrs.GetInt("largest") != 0};
    auto top = ops::TopK(b, in[0], p, n.name);
    if (!top.ok()) return top.status();
    return std::vector<TeTensor>{top->first, top->second};
  });
  Set(r, "CumSum", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::CumulativeParams p{n.attrs.GetInt("axis"), n.attrs.GetInt("exclusive") != 0, n.attrs.GetInt("reverse") != 0};
    return One(ops::CumulativeSum(b, in[0], p, n.name));
  });

  for (const char* name : kReduceOps) r->RegisterOnnx({name, 1, -1, ConvertReduce});
  r->RegisterOnnx({"CumSum", 11, -1, ConvertCumSum});
  r->RegisterOnnx({"TopK", 10, -1, ConvertTopK});
}

}  // namespace tunefarm::graph
