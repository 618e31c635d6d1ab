#include "compiler/te/access_analysis.h"

#include <set>
#include <string>

#include "compiler/te/expr_text.h"

namespace tunefarm::te {
namespace {

// Arithmetic operations of `e`, not counting the index arithmetic inside loads.
double CountOps(const Expr& e) {
  if (e->kind == ExprKind::kLoad) return 0;
  double n = IsBinaryArith(e->kind) || IsCompare(e->kind) || e->kind == ExprKind::kSelect ||
                     e->kind == ExprKind::kCall
                 ? 1
                 : 0;
  for (const Expr& op : e->operands) n += CountOps(op);
  return n;
}

bool HasExpensiveMath(const Expr& e) {
  bool found = false;
  Visit(e, [&](const Expr& n) {
    if (n->kind != ExprKind::kCall) return;
    auto f = static_cast<Intrinsic>(n->int_value);
    found |= f != Intrinsic::kAbs && f != Intrinsic::kFloor && f != Intrinsic::kCeil && f != Intrinsic::kRoundEven;
  });
  return found;
}

}  // namespace

std::set<int64_t> SpaceAxesUsed(const std::vector<Expr>& indices) {
  std::set<int64_t> used;
  for (const Expr& i : indices)
    Visit(i, [&](const Expr& n) {
      if (n->kind == ExprKind::kAxis) used.insert(n->int_value);
    });
  return used;
}

std::vector<StageAnalysis> AnalyzeStages(const ComputeDag& dag) {
  std::vector<StageAnalysis> out(dag.num_tensors());
  for (int id : dag.outputs()) out[id].is_output = true;
  for (int id : dag.stages()) {
    const TensorDef& t = dag.tensor(id);
    StageAnalysis& a = out[id];
    Visit(t.body, [&](const Expr& n) {
      if (n->kind == ExprKind::kLoad) a.reads[static_cast<int>(n->int_value)].push_back(n->operands);
    });
    a.has_reduction = t.reduce != ReduceKind::kNone;
    // A body with many loads (a Winograd transform reads a whole tile) would be recomputed
    // per element of every reader: it stays a stage of its own.
    // Distinct elements read: a body may repeat one load many times (Sin's polynomial reads
    // x(i) over a hundred times), which inlining does not multiply.
    std::set<std::string> distinct;
    for (const auto& [src, index_lists] : a.reads)
      for (const auto& indices : index_lists) {
        std::string key = std::to_string(src);
        for (const Expr& i : indices) key += "," + ExprToText(i);
        distinct.insert(std::move(key));
      }
    a.loads = static_cast<int>(distinct.size());
    a.strictly_inlinable = !a.has_reduction && !a.is_output && !HasExpensiveMath(t.body) &&
                           a.loads <= StageAnalysis::kMaxInlinedLoads;
    double points = static_cast<double>(t.NumElements());
    for (int64_t r : t.reduce_extents) points *= static_cast<double>(r);
    a.flops = points * (CountOps(t.body) + (a.has_reduction ? 1 : 0));
    if (a.has_reduction) {
      // Data reuse: some read does not depend on every space axis, so tiling keeps it in cache.
      for (const auto& [src, index_lists] : a.reads)
        for (const auto& indices : index_lists)
          if (SpaceAxesUsed(indices).size() < t.shape.size()) a.needs_multi_level_tiling = true;
    }
  }
  return out;
}

}  // namespace tunefarm::te
