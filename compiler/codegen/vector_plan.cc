#include "compiler/codegen/vector_plan.h"

#include <algorithm>

#include "common/check.h"
#include "common/strings.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::codegen {
namespace {

using te::DType;
using te::Expr;
using tir::Stmt;

// Finds why a loop body cannot run for all lanes at once (reason stays "" if it can), and the
// widest element it touches.
class LaneBodyChecker : public tir::StmtVisitor {
 public:
  explicit LaneBodyChecker(int64_t var) : var_(var) {}
  std::string reason;
  int widest_bytes = 1;

  void VisitStmt(const Stmt& s) override {
    if (reason.empty()) tir::StmtVisitor::VisitStmt(s);
  }

 private:
  void NoteDType(DType t) { widest_bytes = std::max(widest_bytes, te::DTypeBytes(t)); }

  void VisitFor(const tir::StmtNode&) override { reason = "the body holds a nested loop"; }
  void VisitIf(const tir::StmtNode& op) override {
    if (UsesVar(op.cond, var_)) {
      reason = "an if condition depends on the lane";
      return;
    }
    VisitStmt(op.then_case);
    VisitStmt(op.else_case);
  }
  void VisitStore(const tir::StmtNode& op) override {
    if (!UsesVar(op.index, var_) && UsesVar(op.value, var_)) {
      reason = "a store writes one address from every lane";
      return;
    }
    NoteDType(op.value->dtype);
    te::Visit(op.value, [&](const Expr& e) {
      if (e->kind == te::ExprKind::kLoad || e->kind == te::ExprKind::kCast) NoteDType(e->dtype);
    });
  }

  int64_t var_;
};

}  // namespace

bool UsesVar(const Expr& e, int64_t var_id) {
  bool found = false;
  te::Visit(e, [&](const Expr& n) {
    if (n->kind == te::ExprKind::kVar && n->int_value == var_id) found = true;
  });
  return found;
}

int64_t PowerOfTwoChunk(int64_t lanes, int native) {
  if (lanes <= native) return lanes;
  int64_t chunk = native;
  while (chunk * 2 <= lanes) chunk *= 2;
  return chunk;
}

VectorPlan PlanVectorLoop(const tir::StmtNode& loop, const Target& target) {
  TF_CHECK(loop.kind == tir::StmtKind::kFor, "not a loop");
  VectorPlan plan;
  int64_t extent = 0;
  if (!te::IsConstInt(loop.extent, &extent)) {
    plan.reason = "the extent is not a constant";
    return plan;
  }
  if (extent <= 1) {
    plan.reason = StrCat("extent ", extent, " has nothing to vectorize");
    return plan;
  }
  LaneBodyChecker checker(loop.loop_var->int_value);
  checker.VisitStmt(loop.body);
  plan.reason = checker.reason;
  if (!plan.reason.empty()) return plan;
  const int widest_bytes = checker.widest_bytes;
  // Lanes of the widest element type fill one register; a chunk holds a few registers.
  int native = std::max(1, target.VectorBits() / (8 * widest_bytes));
  int64_t max_lanes = static_cast<int64_t>(native) * kMaxVectorsPerChunk;
  plan.vectorize = true;
  plan.native_lanes = native;
  plan.chunk_lanes = static_cast<int>(PowerOfTwoChunk(std::min(extent, max_lanes), native));
  plan.num_full_chunks = extent / plan.chunk_lanes;
  plan.tail_lanes = static_cast<int>(extent % plan.chunk_lanes);
  return plan;
}

}  // namespace tunefarm::codegen
