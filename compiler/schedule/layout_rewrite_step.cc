// layout_rewrite: a constant placeholder stored in the order its reader's loops walk it.
//
// Every node of the reader's iterator graph has a value in terms of the reader's axes (the
// forward direction: a split's outer part is parent / inner, each inner part (parent / rest) %
// length; a fused node is the mixed-radix sum of its parts), and every original axis has a value
// in terms of the leaves (the backward direction, as lowering derives it). The rewritten tensor
// has one dimension per leaf that derives from the placeholder's axes; the reader reads it at
// the leaves' forward values, and its own definition reads the placeholder at the axes'
// backward values (zero where a split that does not divide runs past an axis).
#include <algorithm>
#include <map>
#include <set>

#include "common/strings.h"
#include "compiler/schedule/dag_edit.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {
namespace {

using te::Expr;
using te::ExprKind;

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

// Which original axes (node ids) each node derives from.
std::vector<std::set<int>> RootsOf(const Stage& stage) {
  std::vector<std::set<int>> roots(stage.nodes.size());
  for (int n = 0; n < stage.num_space_axes + stage.num_reduce_axes; ++n) roots[n] = {n};
  for (const IterRelation& rel : stage.relations) {
    std::set<int> from;
    for (int f : rel.from) from.insert(roots[f].begin(), roots[f].end());
    for (int t : rel.to) roots[t] = from;
  }
  return roots;
}

// Forward: every node's value in terms of the stage's axes.
std::vector<Expr> ForwardValues(const Stage& stage) {
  std::vector<Expr> value(stage.nodes.size());
  for (int i = 0; i < stage.num_space_axes; ++i) value[i] = te::Axis(i);
  for (int r = 0; r < stage.num_reduce_axes; ++r) value[stage.num_space_axes + r] = te::ReduceAxis(r);
  for (const IterRelation& rel : stage.relations) {
    if (rel.kind == IterRelation::kSplit) {
      const Expr& parent = value[rel.from[0]];
      int64_t below = 1;  // product of the extents inside the part being computed
      for (size_t k = rel.to.size(); k-- > 0;) {
        Expr v = below == 1 ? parent : parent / Idx(below);
        value[rel.to[k]] = k == 0 ? v : v % Idx(stage.nodes[rel.to[k]].extent);
        below *= stage.nodes[rel.to[k]].extent;
      }
    } else {
      Expr fused;
      for (int f : rel.from) fused = fused.defined() ? fused * Idx(stage.nodes[f].extent) + value[f] : value[f];
      value[rel.to[0]] = fused;
    }
  }
  return value;
}

// Backward: the original axes' values from the leaves' (given in `value`), through the
// relations whose nodes all derive from `axes`.
void BackwardValues(const Stage& stage, const std::vector<std::set<int>>& roots, const std::set<int>& axes,
                    std::vector<Expr>* value) {
  auto inside = [&](int n) { return std::includes(axes.begin(), axes.end(), roots[n].begin(), roots[n].end()); };
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel) {
    if (!inside(rel->to[0])) continue;
    if (rel->kind == IterRelation::kSplit) {
      Expr v = (*value)[rel->to[0]];
      for (size_t k = 1; k < rel->to.size(); ++k) v = v * Idx(stage.nodes[rel->to[k]].extent) + (*value)[rel->to[k]];
      (*value)[rel->from[0]] = v;
    } else {
      int64_t inner = 1;
      for (size_t i = rel->from.size(); i-- > 0;) {
        Expr v = inner == 1 ? (*value)[rel->to[0]] : (*value)[rel->to[0]] / Idx(inner);
        (*value)[rel->from[i]] = i == 0 ? v : v % Idx(stage.nodes[rel->from[i]].extent);
        inner *= stage.nodes[rel->from[i]].extent;
      }
    }
  }
}

}  // namespace

absl::Status ApplyLayoutRewrite(const LayoutRewriteStep& step, State* state) {
  auto error = [&](std::string_view why) { return StepError("LR", step.stage, -1, why); };
  const te::ComputeDag& dag = state->dag();
  if (step.stage < 0 || step.stage >= dag.num_tensors()) return error("no such tensor");
  const te::TensorDef& weights = dag.tensor(step.stage);
  if (!weights.is_placeholder || !weights.is_constant)
    return error("only a constant placeholder (model weights) can have its layout rewritten");
  if (auto s = CheckStageIter(*state, "LR", step.reader, -1); !s.ok()) return s;
  if (dag.consumers(step.stage) != std::vector<int>{step.reader})
    return error(StrCat("the weights must be read by stage ", step.reader, " alone"));
  const auto& reads = dag.analysis(step.reader).reads.at(step.stage);
  if (reads.size() != 1) return error("the reader must read the weights at one index");
  const Stage& reader = state->stage(step.reader);
  if (reader.location == ComputeLocation::kInlined) return error("the reader is inlined");

  // The weights' dimensions must each be one axis of the reader, no axis twice.
  std::vector<int> dim_node;  // per weight dimension: the reader's node of its axis
  std::set<int> axes;
  for (const Expr& index : reads[0]) {
    int node = -1;
    if (index->kind == ExprKind::kAxis) node = static_cast<int>(index->int_value);
    if (index->kind == ExprKind::kReduceAxis) node = reader.num_space_axes + static_cast<int>(index->int_value);
    if (node < 0 || !axes.insert(node).second)
      return error("every dimension of the weights must be read at one loop axis of the reader, each axis once");
    dim_node.push_back(node);
  }
  // The rewritten tensor's dimensions: the reader's loops over those axes, outermost first.
  const std::vector<std::set<int>> roots = RootsOf(reader);
  std::vector<int> leaves;
  for (const Iterator& it : reader.iters) {
    const std::set<int>& r = roots[it.node];
    bool any = std::any_of(r.begin(), r.end(), [&](int a) { return axes.count(a); });
    if (!any) continue;
    if (!std::includes(axes.begin(), axes.end(), r.begin(), r.end()))
      return error(StrCat("loop ", reader.nodes[it.node].name, " mixes a weight axis with another axis"));
    if (reader.nodes[it.node].extent == kUnknownExtent) return error("the reader's split lengths must be filled");
    leaves.push_back(it.node);
  }

  te::TensorDef layout;
  layout.name = StrCat(weights.name, ".layout");
  layout.dtype = weights.dtype;
  for (int leaf : leaves) layout.shape.push_back(reader.nodes[leaf].extent);
  std::vector<Expr> value(reader.nodes.size());
  for (size_t d = 0; d < leaves.size(); ++d) value[leaves[d]] = te::Axis(static_cast<int>(d));
  BackwardValues(reader, roots, axes, &value);
  std::vector<Expr> source_index;
  Expr inside;
  for (size_t d = 0; d < dim_node.size(); ++d) {
    const int64_t extent = weights.shape[d];
    const Expr& v = value[dim_node[d]];
    Expr ok = te::Lt(v, Idx(extent));
    inside = inside.defined() ? te::And(inside, ok) : ok;
    // Select evaluates both arms: the read stays in bounds by clamping.
    source_index.push_back(te::Min(v, Idx(extent - 1)));
  }
  layout.body = te::Select(inside, te::Load(weights.dtype, step.stage, source_index), te::Const(weights.dtype, 0));

  const std::vector<Expr> forward = ForwardValues(reader);
  std::vector<Expr> read_index;
  for (int leaf : leaves) read_index.push_back(forward[leaf]);
  const int at = step.stage + 1;
  auto new_dag = InsertTensor(dag, at, layout, [&](int id, te::TensorDef* t) {
    if (id != step.reader + 1) return;
    t->body = te::Rewrite(t->body, [&](const Expr& n) -> Expr {
      if (n->kind != ExprKind::kLoad || n->int_value != step.stage) return Expr();
      return te::Load(n->dtype, at, read_index);
    });
  });
  state->InsertStage(new_dag, at);
  state->mutable_stage(at).scope = kLayoutScope;
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
