#include "compiler/schedule/dag_edit.h"

namespace tunefarm::schedule {
namespace {

using te::Expr;
using te::ExprKind;

// Tensor reads of ids >= `at` move one up (a tensor was inserted at `at`).
Expr ShiftReads(const Expr& e, int at) {
  return te::Rewrite(e, [&](const Expr& n) -> Expr {
    if (n->kind != ExprKind::kLoad || n->int_value < at) return Expr();
    return te::Load(n->dtype, n->int_value + 1, n->operands);
  });
}

}  // namespace

Expr RetargetReads(const Expr& e, int from, int to) {
  return te::Rewrite(e, [&](const Expr& n) -> Expr {
    if (n->kind != ExprKind::kLoad || n->int_value != from) return Expr();
    return te::Load(n->dtype, to, n->operands);
  });
}

std::vector<Expr> AxesOf(size_t rank) {
  std::vector<Expr> axes;
  for (size_t i = 0; i < rank; ++i) axes.push_back(te::Axis(static_cast<int>(i)));
  return axes;
}

std::shared_ptr<const te::ComputeDag> InsertTensor(const te::ComputeDag& dag, int at, te::TensorDef def,
                                                   const std::function<void(int, te::TensorDef*)>& edit) {
  std::vector<te::TensorDef> tensors;
  for (int id = 0; id < dag.num_tensors(); ++id) {
    if (id == at) tensors.push_back(def);
    te::TensorDef t = dag.tensor(id);
    if (id >= at && !t.is_placeholder) t.body = ShiftReads(t.body, at);
    if (edit) edit(static_cast<int>(tensors.size()), &t);
    tensors.push_back(std::move(t));
  }
  if (at == dag.num_tensors()) tensors.push_back(std::move(def));
  std::vector<int> outputs;
  for (int o : dag.outputs()) outputs.push_back(o >= at ? o + 1 : o);
  return std::make_shared<const te::ComputeDag>(std::move(tensors), std::move(outputs));
}

}  // namespace tunefarm::schedule
