#include "compiler/codegen/vector_plan.h"

#include <algorithm>

#include "compiler/common/check.h"
#include "compiler/common/strings.h"

namespace tunefarm::codegen {
namespace {

using te::DType;
using te::Expr;
using tir::Stmt;
using tir::StmtKind;

// Returns "" if the statement can run for all lanes at once, else the reason it cannot.
std::string CheckBody(const Stmt& s, int64_t var, int* widest_bytes) {
  auto note_dtype = [&](DType t) { *widest_bytes = std::max(*widest_bytes, te::DTypeBytes(t)); };
  switch (s->kind) {
    case StmtKind::kFor:
      return "the body holds a nested loop";
    case StmtKind::kIf: {
      if (UsesVar(s->cond, var)) return "an if condition depends on the lane";
      std::string r = CheckBody(s->then_case, var, widest_bytes);
      if (r.empty() && s->else_case.defined()) r = CheckBody(s->else_case, var, widest_bytes);
      return r;
    }
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq) {
        std::string r = CheckBody(c, var, widest_bytes);
        if (!r.empty()) return r;
      }
      return "";
    case StmtKind::kStore:
      if (!UsesVar(s->index, var) && UsesVar(s->value, var)) {
        return "a store writes one address from every lane";
      }
      note_dtype(s->value->dtype);
      te::Visit(s->value, [&](const Expr& e) {
        if (e->kind == te::ExprKind::kLoad || e->kind == te::ExprKind::kCast) note_dtype(e->dtype);
      });
      return "";
  }
  return "unknown statement";
}

}  // namespace

bool UsesVar(const Expr& e, int64_t var_id) {
  bool found = false;
  te::Visit(e, [&](const Expr& n) {
    if (n->kind == te::ExprKind::kVar && n->int_value == var_id) found = true;
  });
  return found;
}

VectorPlan PlanVectorLoop(const tir::StmtNode& loop, const Target& target) {
  TF_CHECK(loop.kind == StmtKind::kFor, "not a loop");
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
  int widest_bytes = 1;
  plan.reason = CheckBody(loop.body, loop.loop_var->int_value, &widest_bytes);
  if (!plan.reason.empty()) return plan;
  // Lanes of the widest element type fill one register; a chunk holds a few registers.
  int native = std::max(1, target.VectorBits() / (8 * widest_bytes));
  int64_t max_lanes = static_cast<int64_t>(native) * kMaxVectorsPerChunk;
  plan.vectorize = true;
  plan.chunk_lanes = static_cast<int>(std::min(extent, max_lanes));
  plan.num_full_chunks = extent / plan.chunk_lanes;
  plan.tail_lanes = static_cast<int>(extent % plan.chunk_lanes);
  return plan;
}

}  // namespace tunefarm::codegen
