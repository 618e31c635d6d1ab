#include "compiler/codegen/lane_groups.h"

#include <map>
#include <set>

#include "common/strings.h"
#include "compiler/codegen/vector_plan.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::codegen {
namespace {

using te::Expr;
using te::ExprKind;
using tir::Stmt;
using tir::StmtNode;

// Checks the body of the vector loop v against the rules of lane_groups.h, for the outer loop
// variable u and E lanes of v. `reason` stays empty when every rule holds.
class GroupSafetyChecker : public tir::StmtVisitor {
 public:
  GroupSafetyChecker(int64_t u, int64_t v, int64_t lanes) : u_(u), v_(v), lanes_(lanes) {}
  std::string reason;

  void Check(const Stmt& body) {
    VisitStmt(body);
    if (!reason.empty()) return;
    for (const Expr& load : loads_) {
      auto stored = store_index_.find(static_cast<int>(load->int_value));
      if (stored != store_index_.end() && !te::StructurallyEqual(stored->second, load->operands[0])) {
        reason = StrCat("buffer ", load->int_value, " is loaded at another index than it is stored at");
        return;
      }
    }
  }

  void VisitStmt(const Stmt& s) override {
    if (reason.empty()) tir::StmtVisitor::VisitStmt(s);
  }

 private:
  void VisitFor(const StmtNode&) override { reason = "the body holds a nested loop"; }
  void VisitAllocate(const StmtNode&) override { reason = "the body allocates a buffer"; }
  void VisitIf(const StmtNode& op) override {
    if (UsesVar(op.cond, u_)) {
      reason = "an if condition depends on the outer loop";
      return;
    }
    NoteLoads(op.cond);
    VisitStmt(op.then_case);
    VisitStmt(op.else_case);
  }
  void VisitStore(const StmtNode& op) override {
    NoteLoads(op.index);
    NoteLoads(op.value);
    const bool invariant = !UsesVar(op.index, u_) && !UsesVar(op.index, v_) && !UsesVar(op.value, u_) &&
                           !UsesVar(op.value, v_);
    if (!invariant) {
      const std::optional<int64_t> cu = AffineCoefficient(op.index, u_);
      const std::optional<int64_t> cv = AffineCoefficient(op.index, v_);
      if (!cu || !cv || *cv != 1 || *cu != lanes_) {
        reason = StrCat("a store to buffer ", op.buffer, " is not contiguous across the groups");
        return;
      }
    }
    auto [it, inserted] = store_index_.emplace(op.buffer, op.index);
    if (!inserted && !te::StructurallyEqual(it->second, op.index))
      reason = StrCat("buffer ", op.buffer, " is stored at two indices");
  }

  void NoteLoads(const Expr& e) {
    if (!e.defined()) return;
    te::Visit(e, [&](const Expr& n) {
      if (n->kind == ExprKind::kLoad) loads_.push_back(n);
    });
  }

  int64_t u_, v_, lanes_;
  std::map<int, Expr> store_index_;
  std::vector<Expr> loads_;
};

}  // namespace

std::optional<int64_t> AffineCoefficient(const Expr& e, int64_t var) {
  if (!UsesVar(e, var)) return 0;
  switch (e->kind) {
    case ExprKind::kVar:
      return 1;  // it uses var, so it is var
    case ExprKind::kAdd:
    case ExprKind::kSub: {
      auto a = AffineCoefficient(e->operands[0], var);
      auto b = AffineCoefficient(e->operands[1], var);
      if (!a || !b) return std::nullopt;
      return e->kind == ExprKind::kAdd ? *a + *b : *a - *b;
    }
    case ExprKind::kMul: {
      int64_t c = 0;
      if (te::IsConstInt(e->operands[1], &c)) {
        auto a = AffineCoefficient(e->operands[0], var);
        return a ? std::optional<int64_t>(*a * c) : std::nullopt;
      }
      if (te::IsConstInt(e->operands[0], &c)) {
        auto b = AffineCoefficient(e->operands[1], var);
        return b ? std::optional<int64_t>(*b * c) : std::nullopt;
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

LaneGroupPlan PlanLaneGroups(const StmtNode& outer, const Target& target) {
  LaneGroupPlan plan;
  if (outer.kind != tir::StmtKind::kFor ||
      (outer.for_kind != tir::ForKind::kSerial && outer.for_kind != tir::ForKind::kUnrolled)) {
    plan.reason = "not a serial or unrolled loop";
    return plan;
  }
  const Stmt& body = outer.body;
  if (!body.defined() || body->kind != tir::StmtKind::kFor || body->for_kind != tir::ForKind::kVectorized) {
    plan.reason = "the body is not a vectorized loop";
    return plan;
  }
  int64_t extent = 0;
  if (!te::IsConstInt(outer.extent, &extent)) {
    plan.reason = "the extent is not a constant";
    return plan;
  }
  const VectorPlan inner = PlanVectorLoop(*body, target);
  if (!inner.vectorize || inner.num_full_chunks != 1 || inner.tail_lanes != 0) {
    plan.reason = "the vectorized loop is not one chunk";
    return plan;
  }
  const int lanes = inner.chunk_lanes;
  if (lanes >= inner.native_lanes || inner.native_lanes % lanes != 0) {
    plan.reason = StrCat(lanes, " lanes do not leave a register part idle");
    return plan;
  }
  plan.narrow = true;
  const int groups = inner.native_lanes / lanes;
  if (extent < groups) {
    plan.reason = StrCat("extent ", extent, " is less than ", groups, " groups");
    return plan;
  }
  GroupSafetyChecker checker(outer.loop_var->int_value, body->loop_var->int_value, lanes);
  checker.Check(body->body);
  plan.reason = checker.reason;
  if (plan.reason.empty()) plan.groups = groups;
  return plan;
}

}  // namespace tunefarm::codegen
