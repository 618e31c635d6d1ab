// The normalization family: BatchNormalization (inference, and the training form that returns
// the updated running statistics), InstanceNormalization, LRN, MeanVarianceNormalization (as its
// function body), LayerNormalization (and the form whose
// Mean and InvStdDev are read), Softmax, LogSoftmax, Hardmax, and the losses built on them
// (NegativeLogLikelihoodLoss; SoftmaxCrossEntropyLoss is converted to LogSoftmax then that).
#include "compiler/graph/family_common.h"
#include "compiler/ops/arg_reduce.h"
#include "compiler/ops/loss.h"
#include "compiler/ops/normalization.h"
#include "compiler/ops/reduce.h"
#include "compiler/ops/transform.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Axes = te::DagBuilder::Axes;

absl::Status InferBatchNorm(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (in[0].shape.size() < 2) return Error(StrCat("X must have rank >= 2, got ", in[0].ToString()));
  for (size_t i = 1; i < 5; ++i)
    if (in[i].shape != std::vector<int64_t>{in[0].shape[1]})
      return Error(StrCat("input ", i, " must be [", in[0].shape[1], "], got ", in[i].ToString()));
  *out = {in[0]};
  return absl::OkStatus();
}

// Y, running_mean, running_var.
absl::Status InferBatchNormTraining(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(InferBatchNorm(n, in, out));
  *out = {in[0], in[3], in[4]};
  return absl::OkStatus();
}

absl::Status InferAxisSame(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  if (!axis.ok()) return axis.status();
  *out = {in[0]};
  return absl::OkStatus();
}

absl::Status InferLayerNorm(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), rank);
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> norm(in[0].shape.begin() + *axis, in[0].shape.end());
  for (size_t i = 1; i < in.size(); ++i) {
    auto s = BroadcastShapes(in[i].shape, norm);
    if (!s.ok() || *s != norm)
      return Error(StrCat("input ", i, " ", in[i].ToString(), " does not broadcast to ", ShapeToString(norm)));
  }
  *out = {in[0]};
  return absl::OkStatus();
}

// Y, then Mean and InvStdDev of shape x.shape[:axis] + 1s.
absl::Status InferLayerNormStats(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(InferLayerNorm(n, in, out));
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  TensorType stats = in[0];
  std::fill(stats.shape.begin() + *axis, stats.shape.end(), 1);
  *out = {in[0], stats, stats};
  return absl::OkStatus();
}

// NegativeLogLikelihoodLoss: input [N, C, d..] float, target [N, d..] int, weight [C].
absl::Status InferNllLoss(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
  if (!te::IsInt(in[1].dtype)) return Error(StrCat("target must be integers, got ", in[1].ToString()));
  const std::vector<int64_t>& x = in[0].shape;
  const std::vector<int64_t>& t = in[1].shape;
  bool fits = x.size() >= 2 && t.size() == x.size() - 1 && t[0] == x[0];
  for (size_t d = 2; fits && d < x.size(); ++d) fits = t[d - 1] == x[d];
  if (!fits) return Error(StrCat("target ", in[1].ToString(), " must be input ", in[0].ToString(), " without axis 1"));
  if (in.size() > 2 && (in[2].dtype != in[0].dtype || in[2].shape != std::vector<int64_t>{x[1]}))
    return Error(StrCat("weight ", in[2].ToString(), " must hold one ", te::DTypeName(in[0].dtype), " per class"));
  const std::string reduction = n.attrs.GetString("reduction");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return Error(StrCat("unknown reduction '", reduction, "'"));
  *out = {TensorType{in[0].dtype, reduction == "none" ? t : std::vector<int64_t>{}}};
  return absl::OkStatus();
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

absl::Status ConvertBatchNorm(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  Attrs attrs = n.attrs();
  const bool training = attrs.GetInt("training_mode", 0) != 0;
  if (training && attrs.GetInt("spatial", 1) == 1 && n.num_inputs() == 5) {
    // Batch statistics, plus the updated running mean and variance.
    attrs.Erase("training_mode");
    TF_RETURN_IF_ERROR(n.NeedInputs(5));
    return n.EmitAsIs("BatchNormalizationTraining", std::move(attrs));
  }
  TF_RETURN_IF_ERROR(n.FirstOutputOnly());
  if (training) return n.Error("training-mode BatchNormalization is not supported");
  if (attrs.GetInt("spatial", 1) != 1) return n.Error("spatial=0 BatchNormalization is not supported");
  attrs.Erase("training_mode");
  attrs.Erase("spatial");
  return n.EmitAsIs("BatchNormalization", std::move(attrs));
}

// When Mean and InvStdDev are read too, the three-output form.
absl::Status ConvertLayerNorm(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  return n.EmitAsIs(n.FirstOutputOnly().ok() ? "LayerNormalization" : "LayerNormalizationWithStats", n.attrs());
}

// Before opset 13, softmax flattens to 2-D at `axis` (default 1) and normalizes the rows.
absl::Status ConvertSoftmaxBefore13(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const TensorType& x = n.InputType(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attrs().GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return n.Error("axis out of range");
  int64_t trailing = 1;
  for (int64_t d = axis + 1; d < rank; ++d) trailing *= x.shape[d];
  if (trailing != 1) return n.Error(StrCat("opset < 13 ", n.op(), " over more than one axis is not supported"));
  Attrs attrs = n.attrs();
  attrs.Set("axis", axis);
  return n.EmitAsIs(n.op(), std::move(attrs));
}

// SoftmaxCrossEntropyLoss is its ONNX function body: LogSoftmax over the classes (axis 1, also
// the optional log_prob output), then NegativeLogLikelihoodLoss.
absl::Status ConvertSoftmaxCrossEntropy(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  const std::string log_prob = n.HasOutput(1) ? n.output(1) : n.UniqueName(StrCat(n.output(0), ".log_prob"));
  Attrs softmax;
  softmax.Set("axis", int64_t{1});
  TF_RETURN_IF_ERROR(n.Emit("LogSoftmax", {n.input(0)}, std::move(softmax), {log_prob}, n.UniqueName(log_prob)));
  std::vector<std::string> inputs{log_prob, n.input(1)};
  if (n.HasInput(2)) inputs.push_back(n.input(2));
  return n.Emit("NegativeLogLikelihoodLoss", inputs, n.attrs(), {n.output(0)});
}

// MeanVarianceNormalization as its ONNX function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
// over `axes` (default [0, 2, 3]), with the reductions and elementwise ops that fuse already.
absl::Status ConvertMeanVarianceNorm(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  if (absl::Status s = NeedFloat(n.InputType(0), "input"); !s.ok()) return n.Error(std::string(s.message()));
  std::vector<int64_t> axes = n.attrs().GetInts("axes");
  if (!n.attrs().Has("axes")) axes = {0, 2, 3};
  const std::string& x = n.input(0);
  auto value = [&](const char* what) { return n.UniqueName(StrCat(n.output(0), ".", what)); };
  auto emit = [&](const std::string& op, std::vector<std::string> in, Attrs attrs, const std::string& out) {
    return n.Emit(op, in, std::move(attrs), {out}, out);
  };
  Attrs mean_attrs;
  mean_attrs.Set("axes", axes);
  mean_attrs.Set("keepdims", int64_t{1});
  const std::string mean = value("mean"), x_sq = value("x_sq"), mean_sq = value("mean_sq"), sq_mean = value("sq_mean"),
                    var = value("var"), std_dev = value("std"), eps = value("eps"), denom = value("denom"),
                    centred = value("centred");
  TF_RETURN_IF_ERROR(emit("ReduceMean", {x}, mean_attrs, mean));
  TF_RETURN_IF_ERROR(emit("Mul", {x, x}, {}, x_sq));
  TF_RETURN_IF_ERROR(emit("ReduceMean", {x_sq}, mean_attrs, mean_sq));
  TF_RETURN_IF_ERROR(emit("Mul", {mean, mean}, {}, sq_mean));
  TF_RETURN_IF_ERROR(emit("Sub", {mean_sq, sq_mean}, {}, var));
  TF_RETURN_IF_ERROR(emit("Sqrt", {var}, {}, std_dev));
  auto epsilon = HostTensor::Zeros(n.InputType(0).dtype, {});
  if (!epsilon.ok()) return n.Error(std::string(epsilon.status().message()));
  epsilon->SetDouble(0, 1e-9);
  n.BindConstant(eps, std::move(*epsilon));
  TF_RETURN_IF_ERROR(emit("Add", {std_dev, eps}, {}, denom));
  TF_RETURN_IF_ERROR(emit("Sub", {x, mean}, {}, centred));
  return n.Emit("Div", {centred, denom}, {}, {n.output(0)});
}

}  // namespace

void RegisterNormalizationFamily(OpRegistry* r) {
  r->Register({"BatchNormalization", 5, 5, 1, {Float("epsilon", 1e-5), Float("momentum", 0.9)}, InferBatchNorm,
               OpPattern::kBroadcast});
  // Training-mode BatchNormalization (the frontend picks it): normalizes with the batch's
  // statistics and returns the running statistics updated by momentum.
  r->Register({"BatchNormalizationTraining", 5, 5, 3, {Float("epsilon", 1e-5), Float("momentum", 0.9)},
               InferBatchNormTraining, OpPattern::kOpaque});
  r->Register({"Softmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"LogSoftmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  r->Register({"Hardmax", 1, 1, 1, {Int("axis", -1)}, InferAxisSame, OpPattern::kOpaque});
  // ignore_index kNoIgnoreIndex: no target is ignored.
  r->Register({"NegativeLogLikelihoodLoss", 2, 3, 1, {Str("reduction", "mean"), Int("ignore_index", kNoIgnoreIndex)},
               InferNllLoss, OpPattern::kOpaque});
  r->Register({"InstanceNormalization", 3, 3, 1, {Float("epsilon", 1e-5)},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
                 if (in[0].shape.size() < 3) return Error(StrCat("input ", in[0].ToString(), " has no spatial axes"));
                 *out = {in[0]};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});
  r->Register({"LRN", 1, 1, 1,
               {Float("alpha", 1e-4), Float("beta", 0.75), Float("bias", 1.0), Required("size", AttrKind::kInt)},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 TF_RETURN_IF_ERROR(NeedFloat(in[0], "input"));
                 if (in[0].shape.size() < 3) return Error(StrCat("input ", in[0].ToString(), " has no spatial axes"));
                 *out = {in[0]};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});
  r->Register({"LayerNormalization", 2, 3, 1, {Int("axis", -1), Float("epsilon", 1e-5), Int("stash_type", 1)},
               InferLayerNorm, OpPattern::kOpaque});
  // LayerNormalization whose Mean and InvStdDev outputs are read (the frontend picks it).
  r->Register({"LayerNormalizationWithStats", 2, 3, 3, {Int("axis", -1), Float("epsilon", 1e-5), Int("stash_type", 1)},
               InferLayerNormStats, OpPattern::kOpaque});

  Set(r, "BatchNormalization", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::BatchNormInference(b, in[0], in[1], in[2], in[3], in[4],
                                       ops::BatchNormParams{n.attrs.GetFloat("epsilon")}, n.name));
  });
  Set(r, "BatchNormalizationTraining", BatchNormTrainingCompute);
  Set(r, "Softmax", SoftmaxFn(false));
  Set(r, "LogSoftmax", SoftmaxFn(true));
  Set(r, "Hardmax", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Hardmax(b, in[0], n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "NegativeLogLikelihoodLoss", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::NllLossParams p;
    const std::string reduction = n.attrs.GetString("reduction");
    p.reduction = reduction == "none"  ? ops::LossReduction::kNone
                  : reduction == "sum" ? ops::LossReduction::kSum
                                       : ops::LossReduction::kMean;
    if (n.attrs.GetInt("ignore_index") != kNoIgnoreIndex) p.ignore_index = n.attrs.GetInt("ignore_index");
    return One(ops::NegativeLogLikelihoodLoss(b, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, p, n.name));
  });
  Set(r, "InstanceNormalization", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::InstanceNorm(b, in[0], in[1], in[2], n.attrs.GetFloat("epsilon"), n.name));
  });
  Set(r, "LRN", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::LrnParams p{n.attrs.GetFloat("alpha"), n.attrs.GetFloat("beta"), n.attrs.GetFloat("bias"), n.attrs.GetInt("size")};
    return One(ops::LocalResponseNorm(b, in[0], p, n.name));
  });
  Set(r, "LayerNormalization", LayerNormCompute);
  Set(r, "LayerNormalizationWithStats", LayerNormStatsCompute);

  r->RegisterOnnx({"BatchNormalization", 1, -1, ConvertBatchNorm});
  r->RegisterOnnx({"LayerNormalization", 17, -1, ConvertLayerNorm});
  for (const char* name : {"Softmax", "LogSoftmax", "Hardmax"}) r->RegisterOnnx({name, 1, 12, ConvertSoftmaxBefore13});
  r->RegisterOnnx({"SoftmaxCrossEntropyLoss", 12, -1, ConvertSoftmaxCrossEntropy});
  r->RegisterOnnx({"MeanVarianceNormalization", 9, -1, ConvertMeanVarianceNorm});
}

}  // namespace tunefarm::graph
