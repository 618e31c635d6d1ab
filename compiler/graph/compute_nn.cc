// Computes of the neural-network ops: convolutions, pooling, normalization, dense/matmul,
// softmax and reductions. Window attributes arrive explicit (the frontend resolved auto_pad;
// ConvTranspose resolves its own through conv_transpose_attrs.h).
#include <limits>

#include "compiler/graph/compute_common.h"
#include "compiler/graph/conv_transpose_attrs.h"
#include "compiler/ops/arg_reduce.h"
#include "compiler/ops/cumulative.h"
#include "compiler/ops/binary.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv_transpose.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/normalization.h"
#include "compiler/ops/pooling.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/transform.h"
#include "compiler/ops/unary.h"

namespace tunefarm::graph {
namespace {
using namespace compute;
using Axes = te::DagBuilder::Axes;

// Adds the optional bias (input 2) along the channel axis.
Outputs WithBias(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in, absl::StatusOr<TeTensor> y) {
  if (!y.ok() || in.size() < 3) return One(std::move(y));
  return One(ops::BiasAdd(b, *y, in[2], ops::BiasAddParams{1}, n.name));
}

Outputs ConvCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  size_t spatial = in[0].shape.size() - 2;
  std::vector<int64_t> strides = IntsOr(n, "strides", spatial, 1), dil = IntsOr(n, "dilations", spatial, 1);
  std::vector<int64_t> pads = IntsOr(n, "pads", 2 * spatial, 0);
  std::string conv_name = in.size() == 3 ? StrCat(n.name, ".conv") : n.name;
  ops::Conv2dParams p;
  p.groups = n.attrs.GetInt("group");
  if (spatial == 2) {
    p.stride = {strides[0], strides[1]};
    p.padding = {pads[0], pads[1], pads[2], pads[3]};
    p.dilation = {dil[0], dil[1]};
    return WithBias(b, n, in, ops::Conv2d(b, in[0], in[1], p, conv_name));
  }
  if (spatial != 1) return Unimplemented(StrCat(spatial, "-D convolution (only 1-D and 2-D)"));
  // 1-D: a 2-D convolution over H = 1.
  p.stride = {1, strides[0]};
  p.padding = {0, pads[0], 0, pads[1]};
  p.dilation = {1, dil[0]};
  auto unsqueeze = [&](const TeTensor& t, const char* what) {
    return ops::Reshape(b, t, {{t.shape[0], t.shape[1], 1, t.shape[2]}}, StrCat(n.name, ".", what));
  };
  auto x = unsqueeze(in[0], "x2d");
  if (!x.ok()) return x.status();
  auto w = unsqueeze(in[1], "w2d");
  if (!w.ok()) return w.status();
  auto y = ops::Conv2d(b, *x, *w, p, StrCat(n.name, ".conv"));
  if (!y.ok()) return y.status();
  auto y1 = ops::Reshape(b, *y, {{y->shape[0], y->shape[1], y->shape[3]}}, in.size() == 3 ? StrCat(n.name, ".y") : n.name);
  return WithBias(b, n, in, y1);
}

Outputs ConvTransposeCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  auto w = ResolveConvTranspose(n, in[0].shape, in[1].shape);
  if (!w.ok()) return w.status();
  ops::ConvTransposeParams p{w->strides, w->pads, w->output_padding, w->dilations, n.attrs.GetInt("group")};
  return WithBias(b, n, in,
                  ops::ConvTranspose(b, in[0], in[1], p, in.size() == 3 ? StrCat(n.name, ".conv") : n.name));
}

ops::PoolParams PoolParamsOf(const Node& n, ops::PoolKind kind) {
  ops::PoolParams p;
  p.kind = kind;
  p.kernel = n.attrs.GetInts("kernel_shape");
  p.stride = n.attrs.GetInts("strides");
  p.padding = n.attrs.GetInts("pads");
  p.dilation = n.attrs.GetInts("dilations");
  p.ceil_mode = n.attrs.GetInt("ceil_mode") != 0;
  p.count_include_pad = n.attrs.GetInt("count_include_pad") != 0;
  return p;
}

ComputeFn PoolFn(ops::PoolKind kind) {
  return [kind](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) -> Outputs {
    return One(ops::Pool(b, in[0], PoolParamsOf(n, kind), n.name));
  };
}

// Y and the flat index each element of Y was taken from (ONNX MaxPool's two outputs).
Outputs MaxPoolWithIndicesCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  ops::PoolParams p = PoolParamsOf(n, ops::PoolKind::kMax);
  auto y = ops::Pool(b, in[0], p, n.name);
  if (!y.ok()) return y.status();
  auto order = n.attrs.GetInt("storage_order") == 0 ? ops::PoolIndexOrder::kRowMajor : ops::PoolIndexOrder::kColumnMajor;
  auto indices = ops::MaxPoolIndices(b, in[0], *y, p, order, StrCat(n.name, ".Indices"));
  if (!indices.ok()) return indices.status();
  return std::vector<TeTensor>{*y, *indices};
}

Outputs GemmCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  double alpha = n.attrs.GetFloat("alpha"), beta = n.attrs.GetFloat("beta");
  bool epilogue = alpha != 1.0 || (in.size() == 3 && beta != 0.0);
  ops::MatmulParams p{n.attrs.GetInt("transA") != 0, n.attrs.GetInt("transB") != 0};
  auto mm = ops::BatchMatmul(b, in[0], in[1], p, epilogue ? StrCat(n.name, ".matmul") : n.name);
  if (!mm.ok() || !epilogue) return One(std::move(mm));
  te::Expr a = te::Const(mm->dtype, alpha), c = te::Const(mm->dtype, beta);
  TeTensor y = *mm;
  return std::vector<TeTensor>{b.Compute(n.name, y.shape, [&](const Axes& i) {
    te::Expr v = y(i);
    if (alpha != 1.0) v = v * a;
    if (in.size() == 3 && beta != 0.0) v = v + ops::BroadcastRead(in[2], i) * c;
    return v;
  })};
}

ComputeFn SoftmaxFn(bool log) {
  return [log](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::SoftmaxParams p{n.attrs.GetInt("axis")};
    return One(log ? ops::LogSoftmax(b, in[0], p, n.name) : ops::Softmax(b, in[0], p, n.name));
  };
}

// gamma and beta broadcast to x.shape[axis:] (materialized when they are smaller); a missing
// beta is zeros.
Outputs LayerNormCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  int64_t axis = n.attrs.GetInt("axis");
  if (axis < 0) axis += rank;
  std::vector<int64_t> norm(in[0].shape.begin() + axis, in[0].shape.end());
  auto fit = [&](const TeTensor& t, const char* what) -> absl::StatusOr<TeTensor> {
    if (t.shape == norm) return t;
    return ops::Expand(b, t, norm, StrCat(n.name, ".", what));
  };
  auto gamma = fit(in[1], "gamma");
  if (!gamma.ok()) return gamma.status();
  absl::StatusOr<TeTensor> beta = in.size() == 3 ? fit(in[2], "beta")
                                                 : b.Compute(StrCat(n.name, ".beta"), norm, [&](const Axes&) {
                                                     return te::Const(in[0].dtype, 0);
                                                   });
  if (!beta.ok()) return beta.status();
  return One(ops::LayerNorm(b, in[0], *gamma, *beta, ops::LayerNormParams{axis, n.attrs.GetFloat("epsilon")}, n.name));
}

// Y, Mean and InvStdDev (ONNX LayerNormalization's three outputs): mean and variance as
// keepdims reductions over [axis, rank), so Mean and InvStdDev are outputs of their own.
Outputs LayerNormStatsCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  const TeTensor& x = in[0];
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attrs.GetInt("axis");
  if (axis < 0) axis += rank;
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  auto mean = ops::Reduce(b, x, {ops::ReduceOp::kMean, axes, true}, StrCat(n.name, ".Mean"));
  if (!mean.ok()) return mean.status();
  TeTensor m = *mean;
  TeTensor sq = b.Compute(StrCat(n.name, ".sq"), x.shape, [&](const Axes& i) {
    te::Expr d = x(i) - ops::BroadcastRead(m, i);
    return d * d;
  });
  auto var = ops::Reduce(b, sq, {ops::ReduceOp::kMean, axes, true}, StrCat(n.name, ".var"));
  if (!var.ok()) return var.status();
  TeTensor v = *var;
  te::Expr eps = te::Const(x.dtype, n.attrs.GetFloat("epsilon"));
  TeTensor inv = b.Compute(StrCat(n.name, ".InvStdDev"), v.shape, [&](const Axes& i) {
    return te::Const(x.dtype, 1) / te::Sqrt(v(i) + eps);
  });
  TeTensor y = b.Compute(n.name, x.shape, [&](const Axes& i) {
    te::Expr r = (x(i) - ops::BroadcastRead(m, i)) * ops::BroadcastRead(inv, i) * ops::BroadcastRead(in[1], i);
    if (in.size() == 3) r = r + ops::BroadcastRead(in[2], i);
    return r;
  });
  return std::vector<TeTensor>{y, m, inv};
}

// ONNX training-mode batch norm over [N, C, D...]: per-channel batch mean and (population)
// variance; running = input_running * momentum + batch * (1 - momentum).
Outputs BatchNormTrainingCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  const TeTensor& x = in[0];
  if (!te::IsFloat(x.dtype)) return absl::InvalidArgumentError("X must be float");
  std::vector<int64_t> axes = {0};
  for (size_t d = 2; d < x.shape.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  auto mean = ops::Reduce(b, x, {ops::ReduceOp::kMean, axes, false}, StrCat(n.name, ".mean"));
  if (!mean.ok()) return mean.status();
  TeTensor m = *mean;
  TeTensor sq = b.Compute(StrCat(n.name, ".sq"), x.shape, [&](const Axes& i) {
    te::Expr d = x(i) - m({i[1]});
    return d * d;
  });
  auto var = ops::Reduce(b, sq, {ops::ReduceOp::kMean, axes, false}, StrCat(n.name, ".var"));
  if (!var.ok()) return var.status();
  TeTensor v = *var;
  auto c = [&](double value) { return te::Const(x.dtype, value); };
  double eps = n.attrs.GetFloat("epsilon"), momentum = n.attrs.GetFloat("momentum");
  TeTensor y = b.Compute(n.name, x.shape, [&](const Axes& i) {
    return (x(i) - m({i[1]})) / te::Sqrt(v({i[1]}) + c(eps)) * in[1]({i[1]}) + in[2]({i[1]});
  });
  auto running = [&](const TeTensor& old, const TeTensor& batch, const char* what) {
    return b.Compute(StrCat(n.name, ".", what), old.shape, [&](const Axes& i) {
      return old(i) * c(momentum) + batch(i) * c(1 - momentum);
    });
  };
  return std::vector<TeTensor>{y, running(in[3], m, "running_mean"), running(in[4], v, "running_var")};
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

}  // namespace

void RegisterNnComputes(OpRegistry* r) {
  Set(r, "Conv", ConvCompute);
  Set(r, "ConvTranspose", ConvTransposeCompute);
  Set(r, "MaxPool", PoolFn(ops::PoolKind::kMax));
  Set(r, "MaxPoolWithIndices", MaxPoolWithIndicesCompute);
  Set(r, "AveragePool", PoolFn(ops::PoolKind::kAvg));
  Set(r, "GlobalAveragePool", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::GlobalPool(b, in[0], ops::PoolKind::kAvg, n.name));
  });
  Set(r, "GlobalMaxPool", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::GlobalPool(b, in[0], ops::PoolKind::kMax, n.name));
  });
  Set(r, "BatchNormalization", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::BatchNormInference(b, in[0], in[1], in[2], in[3], in[4],
                                       ops::BatchNormParams{n.attrs.GetFloat("epsilon")}, n.name));
  });
  Set(r, "BatchNormalizationTraining", BatchNormTrainingCompute);
  Set(r, "Gemm", GemmCompute);
  Set(r, "MatMul", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::BatchMatmul(b, in[0], in[1], ops::MatmulParams{}, n.name));
  });
  Set(r, "Softmax", SoftmaxFn(false));
  Set(r, "LogSoftmax", SoftmaxFn(true));
  Set(r, "LayerNormalization", LayerNormCompute);
  Set(r, "LayerNormalizationWithStats", LayerNormStatsCompute);
  Set(r, "ReduceSum", ReduceFn(ops::ReduceOp::kSum, false, false));
  Set(r, "ReduceMean", ReduceFn(ops::ReduceOp::kMean, false, false));
  Set(r, "ReduceMax", ReduceFn(ops::ReduceOp::kMax, false, false));
  Set(r, "ReduceMin", ReduceFn(ops::ReduceOp::kMin, false, false));
  Set(r, "ReduceProd", ReduceFn(ops::ReduceOp::kProd, false, false));
  Set(r, "ReduceSumSquare", ReduceFn(ops::ReduceOp::kSum, true, false));
  Set(r, "ReduceL2", ReduceFn(ops::ReduceOp::kSum, true, true));
  Set(r, "ReduceLogSum", ReduceLogSumCompute);
  Set(r, "ReduceLogSumExp", ReduceLogSumExpCompute);
  Set(r, "CumSum", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::CumulativeParams p{n.attrs.GetInt("axis"), n.attrs.GetInt("exclusive") != 0, n.attrs.GetInt("reverse") != 0};
    return One(ops::CumulativeSum(b, in[0], p, n.name));
  });
  Set(r, "Hardmax", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Hardmax(b, in[0], n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "ArgMax", ArgReduceFn(true));
  Set(r, "ArgMin", ArgReduceFn(false));
}

}  // namespace tunefarm::graph
