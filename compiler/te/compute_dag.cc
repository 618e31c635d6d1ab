#include "compiler/te/compute_dag.h"

#include <limits>

#include "common/check.h"
#include "compiler/te/access_analysis.h"
#include "compiler/te/dag_text.h"
#include "common/sha256.h"

namespace tunefarm::te {

std::string_view ReduceKindName(ReduceKind k) {
  switch (k) {
    case ReduceKind::kNone: return "none";
    case ReduceKind::kSum: return "sum";
    case ReduceKind::kMax: return "max";
    case ReduceKind::kMin: return "min";
    case ReduceKind::kProd: return "prod";
  }
  return "?";
}

int64_t TensorDef::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Expr ReduceIdentity(ReduceKind kind, DType dtype) {
  switch (kind) {
    case ReduceKind::kMax:
      if (IsFloat(dtype)) return FloatImm(dtype, -std::numeric_limits<double>::infinity());
      return IntImm(dtype, IntDTypeLowest(dtype));
    case ReduceKind::kMin:
      if (IsFloat(dtype)) return FloatImm(dtype, std::numeric_limits<double>::infinity());
      return IntImm(dtype, IntDTypeHighest(dtype));
    case ReduceKind::kProd:
      return Const(dtype, 1);
    default:
      return Const(dtype, 0);
  }
}

Expr ReduceCombine(ReduceKind kind, Expr acc, Expr value) {
  switch (kind) {
    case ReduceKind::kSum: return acc + value;
    case ReduceKind::kMax: return Max(acc, value);
    case ReduceKind::kMin: return Min(acc, value);
    case ReduceKind::kProd: return acc * value;
    default: TF_CHECK(false, "combine without a reduction");
  }
  return Expr();
}

ComputeDag::ComputeDag(std::vector<TensorDef> tensors, std::vector<int> outputs)
    : tensors_(std::move(tensors)), outputs_(std::move(outputs)) {
  consumers_.resize(tensors_.size());
  for (int id = 0; id < num_tensors(); ++id) {
    if (tensors_[id].is_placeholder) {
      inputs_.push_back(id);
      continue;
    }
    stages_.push_back(id);
    std::vector<int> seen;
    Visit(tensors_[id].body, [&](const Expr& e) {
      if (e->kind != ExprKind::kLoad) return;
      int src = static_cast<int>(e->int_value);
      TF_CHECK(src >= 0 && src < id, "a stage reads a tensor defined after it");
      for (int s : seen)
        if (s == src) return;
      seen.push_back(src);
      consumers_[src].push_back(id);
    });
  }
  analyses_ = AnalyzeStages(*this);
  text_ = DagToText(*this);
  key_ = "tfdag1-" + Sha256Hex(text_);
}

double ComputeDag::TotalFlops() const {
  double total = 0;
  for (int id : stages_) total += analyses_[id].flops;
  return total;
}

absl::StatusOr<std::shared_ptr<const ComputeDag>> ComputeDag::Parse(std::string_view text) {
  return ParseDagText(text);
}

Expr DagBuilder::Tensor::operator()(std::vector<Expr> indices) const {
  TF_CHECK(indices.size() == shape.size(), "tensor read with the wrong number of indices");
  for (Expr& i : indices) i = Cast(kIndexType, i);
  return Load(dtype, id, std::move(indices));
}

DagBuilder::Tensor DagBuilder::Placeholder(std::string name, DType dtype, std::vector<int64_t> shape,
                                           bool is_constant) {
  TensorDef t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = shape;
  t.is_placeholder = true;
  t.is_constant = is_constant;
  tensors_.push_back(std::move(t));
  return Tensor{static_cast<int>(tensors_.size()) - 1, dtype, std::move(shape)};
}

namespace {
std::vector<Expr> MakeAxes(size_t n, Expr (*make)(int)) {
  std::vector<Expr> axes;
  for (size_t i = 0; i < n; ++i) axes.push_back(make(static_cast<int>(i)));
  return axes;
}
}  // namespace

DagBuilder::Tensor DagBuilder::Compute(std::string name, std::vector<int64_t> shape,
                                       const std::function<Expr(const Axes&)>& body) {
  return Reduce(std::move(name), ReduceKind::kNone, std::move(shape), {},
                [&](const Axes& axes, const Axes&) { return body(axes); });
}

DagBuilder::Tensor DagBuilder::Reduce(std::string name, ReduceKind kind, std::vector<int64_t> shape,
                                      std::vector<int64_t> reduce_extents,
                                      const std::function<Expr(const Axes&, const Axes&)>& body) {
  TF_CHECK((kind == ReduceKind::kNone) == reduce_extents.empty(), "reduce kind without reduce axes");
  TensorDef t;
  t.name = std::move(name);
  t.shape = shape;
  t.reduce = kind;
  t.reduce_extents = std::move(reduce_extents);
  t.body = body(MakeAxes(t.shape.size(), &Axis), MakeAxes(t.reduce_extents.size(), &ReduceAxis));
  t.dtype = t.body->dtype;
  tensors_.push_back(std::move(t));
  return Tensor{static_cast<int>(tensors_.size()) - 1, tensors_.back().dtype, std::move(shape)};
}

std::shared_ptr<const ComputeDag> DagBuilder::Build(const std::vector<Tensor>& outputs) {
  std::vector<int> ids;
  for (const Tensor& t : outputs) ids.push_back(t.id);
  return std::make_shared<const ComputeDag>(std::move(tensors_), std::move(ids));
}

}  // namespace tunefarm::te
