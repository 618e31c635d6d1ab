#include "compiler/tir/loop_partition.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "compiler/tir/analyzer.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

// The value of the integer expression `d` with loop variable `var` set to `v`, if constant.
bool ValueAt(const Expr& d, int64_t var, int64_t v, int64_t* out) {
  static const Analyzer kNoRanges;
  return te::IsConstInt(kNoRanges.Simplify(Substitute(d, {{var, te::IntImm(te::kIndexType, v)}})), out);
}

bool Holds(ExprKind cmp, int64_t d) {  // d cmp 0
  switch (cmp) {
    case ExprKind::kEq: return d == 0;
    case ExprKind::kNe: return d != 0;
    case ExprKind::kLt: return d < 0;
    case ExprKind::kLe: return d <= 0;
    case ExprKind::kGt: return d > 0;
    case ExprKind::kGe: return d >= 0;
    default: return false;
  }
}

// Where, in [1, extent), the comparisons of the body that are linear in `var` with constant
// bounds change their value: each such comparison is constant between two of these points.
class ThresholdCollector : public StmtVisitor {
 public:
  ThresholdCollector(int64_t var, int64_t extent) : var_(var), extent_(extent) {}
  const std::set<int64_t>& thresholds() const { return thresholds_; }

 private:
  void VisitExpr(const Expr& e) override {
    if (!e.defined()) return;
    if (te::IsCompare(e->kind) && e->operands[0]->dtype == te::kIndexType) Compare(e);
    for (const Expr& operand : e->operands) VisitExpr(operand);
  }

  void Compare(const Expr& e) {
    const Expr d = te::Binary(ExprKind::kSub, e->operands[0], e->operands[1]);
    int64_t d0, d1, last;
    if (!ValueAt(d, var_, 0, &d0) || !ValueAt(d, var_, 1, &d1) || !ValueAt(d, var_, extent_ - 1, &last)) return;
    const int64_t slope = d1 - d0;
    if (slope == 0 || last != d0 + slope * (extent_ - 1)) return;  // not linear in var over the loop
    // d0 + slope * v changes sign next to -d0 / slope; the value flips at most twice there.
    const int64_t q = -d0 / slope;
    for (int64_t t = q - 1; t <= q + 2; ++t) {
      if (t <= 0 || t >= extent_) continue;
      if (Holds(e->kind, d0 + slope * t) != Holds(e->kind, d0 + slope * (t - 1))) thresholds_.insert(t);
    }
  }

  int64_t var_, extent_;
  std::set<int64_t> thresholds_;
};

bool HasAllocate(const Stmt& s) {
  bool found = false;
  PreOrderVisit(s, [&](const Stmt& st) { found = found || st->kind == StmtKind::kAllocate; });
  return found;
}

class LoopPartitioner : public StmtMutator {
 public:
  explicit LoopPartitioner(int64_t next_var_id) : next_var_id_(next_var_id) {}

 private:
  Stmt MutateFor(const Stmt& s) override {
    const int before = partitions_;
    Stmt body = MutateStmt(s->body);
    Stmt loop = RebuildFor(s, s->extent, body);
    if (partitions_ != before || !loop.defined()) return loop;  // an inner loop was split
    int64_t extent;
    if (loop->for_kind != ForKind::kSerial || !te::IsConstInt(loop->extent, &extent) || extent < 3) return loop;
    // Each copy of an Allocate would get its own stack slot: local buffers are capped per
    // function assuming one.
    if (HasAllocate(loop->body)) return loop;
    const int64_t var = loop->loop_var->int_value;
    ThresholdCollector collector(var, extent);
    collector.VisitStmt(loop->body);
    if (collector.thresholds().empty()) return loop;
    // The longest run of iterations with no threshold inside is the main loop.
    int64_t lo = 0, hi = 0, start = 0;
    std::vector<int64_t> ends(collector.thresholds().begin(), collector.thresholds().end());
    ends.push_back(extent);
    for (int64_t end : ends) {
      if (end - start > hi - lo) lo = start, hi = end;
      start = end;
    }
    if (2 * (hi - lo) < extent) return loop;  // no dominant range: three copies would not pay
    ++partitions_;
    std::vector<Stmt> parts;
    auto shifted = [&](int64_t begin, int64_t count) {
      Expr fresh = te::MakeVar(loop->loop_var->name, next_var_id_++);
      Stmt copy = Substitute(loop->body, {{var, te::Binary(ExprKind::kAdd, fresh, te::IntImm(te::kIndexType, begin))}});
      parts.push_back(For(fresh, te::IntImm(te::kIndexType, count), ForKind::kSerial,
                          parts.empty() ? copy : FreshenLoopVars(copy, &next_var_id_)));
    };
    if (lo > 0) shifted(0, lo);
    shifted(lo, hi - lo);
    if (hi < extent) shifted(hi, extent - hi);
    return Seq(std::move(parts));
  }

  int64_t next_var_id_;
  int partitions_ = 0;
};

// One past the largest variable id of `s`, bound by a loop or used in an expression.
class MaxVarId : public StmtVisitor {
 public:
  int64_t next = 0;

  void VisitFor(const StmtNode& op) override {
    next = std::max(next, op.loop_var->int_value + 1);
    StmtVisitor::VisitFor(op);
  }

 private:
  void VisitExpr(const Expr& e) override {
    if (!e.defined()) return;
    if (e->kind == ExprKind::kVar) next = std::max(next, e->int_value + 1);
    for (const Expr& operand : e->operands) VisitExpr(operand);
  }
};

int64_t NextVarId(const Stmt& s) {
  MaxVarId visitor;
  visitor.VisitStmt(s);
  return visitor.next;
}

}  // namespace

Stmt PartitionLoops(const Stmt& s) {
  if (!s.defined()) return s;
  return LoopPartitioner(NextVarId(s)).MutateStmt(s);
}

}  // namespace tunefarm::tir
