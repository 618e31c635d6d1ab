#include "compiler/ops/loss.h"

#include "common/strings.h"

namespace tunefarm::ops {

absl::StatusOr<Tensor> NegativeLogLikelihoodLoss(DagBuilder& b, const Tensor& input, const Tensor& target,
                                                 const Tensor* weight, const NllLossParams& p, std::string name) {
  constexpr std::string_view kOp = "nll_loss";
  if (auto s = CheckShape(kOp, "input", input.shape); !s.ok()) return s;
  if (auto s = CheckShape(kOp, "target", target.shape); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "input", input.dtype, DTypeSet::kFloat); !s.ok()) return s;
  if (auto s = CheckDType(kOp, "target", target.dtype, DTypeSet::kInt); !s.ok()) return s;
  const size_t rank = input.shape.size();
  if (rank < 2) return OpError(kOp, "input needs axes N and C");
  bool fits = target.shape.size() == rank - 1 && target.shape[0] == input.shape[0];
  for (size_t d = 2; fits && d < rank; ++d) fits = target.shape[d - 1] == input.shape[d];
  if (!fits) return OpError(kOp, "target's shape must be input's without axis C");
  const int64_t classes = input.shape[1];
  if (weight != nullptr) {
    if (auto s = CheckDType(kOp, "weight", weight->dtype, DTypeSet::kFloat); !s.ok()) return s;
    if (weight->dtype != input.dtype) return OpError(kOp, "weight's dtype differs from input's");
    if (weight->shape != Shape{classes}) return OpError(kOp, "weight needs one value per class");
  }
  const DType dt = input.dtype;

  // The target class at target index `t`, and whether it is ignored.
  auto ignored = [&](const Axes& t) {
    if (!p.ignore_index) return te::IntImm(DType::kBool, 0);
    return te::Eq(te::Cast(DType::kInt64, target(t)), te::IntImm(DType::kInt64, *p.ignore_index));
  };
  auto class_of = [&](const Axes& t) { return Clamp(te::Cast(te::kIndexType, target(t)), 0, classes - 1); };
  auto weight_of = [&](const Axes& t) {
    Expr w = weight != nullptr ? (*weight)({class_of(t)}) : ScalarConst(dt, 1);
    return te::Select(ignored(t), ScalarConst(dt, 0), w);
  };
  auto loss_of = [&](const Axes& t) {
    Axes x_index{t[0], class_of(t)};
    x_index.insert(x_index.end(), t.begin() + 1, t.end());
    return te::Select(ignored(t), ScalarConst(dt, 0), -(input(x_index) * weight_of(t)));
  };

  if (p.reduction == LossReduction::kNone) return b.Compute(std::move(name), target.shape, loss_of);
  const std::string sum_name = p.reduction == LossReduction::kSum ? name : StrCat(name, ".sum");
  Tensor sum = b.Reduce(sum_name, te::ReduceKind::kSum, {}, target.shape,
                        [&](const Axes&, const Axes& r) { return loss_of(r); });
  if (p.reduction == LossReduction::kSum) return sum;
  Tensor total_weight = b.Reduce(StrCat(name, ".weight"), te::ReduceKind::kSum, {}, target.shape,
                                 [&](const Axes&, const Axes& r) { return weight_of(r); });
  return b.Compute(std::move(name), {}, [&](const Axes&) { return sum({}) / total_weight({}); });
}

}  // namespace tunefarm::ops
