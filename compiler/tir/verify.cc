#include "compiler/tir/verify.h"

#include <unordered_set>

#include "common/strings.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

class Verifier : public StmtVisitor {
 public:
  explicit Verifier(const PrimFunc& f) : f_(f) {}

  absl::Status Run() {
    if (f_.num_args < 0 || f_.num_args > static_cast<int>(f_.buffers.size())) return Fail("bad num_args");
    for (size_t i = 0; i < f_.buffers.size(); ++i) {
      const Buffer& b = f_.buffers[i];
      bool is_arg = static_cast<int>(i) < f_.num_args;
      if (is_arg != (b.scope == BufferScope::kArg)) return Fail(StrCat("buffer ", b.name, " has the wrong scope"));
      if (b.scope == BufferScope::kWorkspace &&
          (b.workspace_offset % 64 != 0 || b.workspace_offset + b.NumBytes() > f_.workspace_bytes))
        return Fail(StrCat("scratch buffer ", b.name, " lies outside the workspace"));
    }
    VisitStmt(f_.body);
    return status_;
  }

 private:
  absl::Status Fail(std::string_view what) { return absl::InternalError(StrCat(f_.name, ": ", what)); }

  void Error(std::string what) {
    if (status_.ok()) status_ = Fail(what);
  }

  bool KnownBuffer(int64_t id) const { return id >= 0 && id < static_cast<int64_t>(f_.buffers.size()); }

  void CheckLocalAccess(int buffer) {
    if (IsAllocatedScope(f_.buffers[buffer].scope) && !allocated_.count(buffer))
      Error(StrCat("local buffer ", f_.buffers[buffer].name, " used outside its allocate"));
  }

  void VisitExpr(const Expr& e) override {
    te::Visit(e, [&](const Expr& n) {
      switch (n->kind) {
        case ExprKind::kAxis:
        case ExprKind::kReduceAxis:
          Error("a te axis leaf is left in the loop IR");
          break;
        case ExprKind::kVar:
          if (!bound_.count(n->int_value)) Error(StrCat("variable ", n->name, " used outside its loop"));
          break;
        case ExprKind::kLoad:
          if (!KnownBuffer(n->int_value)) {
            Error("load of an unknown buffer");
          } else if (n->dtype != f_.buffers[n->int_value].dtype) {
            Error(StrCat("load of ", f_.buffers[n->int_value].name, " with the wrong dtype"));
          } else if (n->operands.size() != 1 || n->operands[0]->dtype != te::kIndexType) {
            Error("a load takes one int64 flat index");
          } else {
            CheckLocalAccess(static_cast<int>(n->int_value));
          }
          break;
        default:
          break;
      }
    });
  }

  void VisitFor(const StmtNode& op) override {
    VisitExpr(op.extent);
    int64_t id = op.loop_var->int_value;
    if (!seen_.insert(id).second) Error(StrCat("loop variable ", op.loop_var->name, " bound twice"));
    if ((op.for_kind == ForKind::kVectorized || op.for_kind == ForKind::kUnrolled) && !te::IsConstInt(op.extent))
      Error("vectorized and unrolled loops need a constant extent");
    if (op.for_kind == ForKind::kThreadBinding && (!te::IsConstInt(op.extent) || op.thread_axis == ThreadAxis::kNone))
      Error("a thread-binding loop needs a constant extent and a thread axis");
    if (op.for_kind == ForKind::kVirtualThread)
      Error(StrCat("virtual-thread loop ", op.loop_var->name, " left after lowering"));
    bound_.insert(id);
    VisitStmt(op.body);
    bound_.erase(id);
  }

  void VisitStore(const StmtNode& op) override {
    if (!KnownBuffer(op.buffer)) return Error("store to an unknown buffer");
    if (op.value->dtype != f_.buffers[op.buffer].dtype)
      Error(StrCat("store to ", f_.buffers[op.buffer].name, " of the wrong dtype"));
    if (op.index->dtype != te::kIndexType) Error("store index must be int64");
    CheckLocalAccess(op.buffer);
    StmtVisitor::VisitStore(op);
  }

  void VisitAllocate(const StmtNode& op) override {
    if (!KnownBuffer(op.buffer) || !IsAllocatedScope(f_.buffers[op.buffer].scope))
      return Error("allocate of a buffer that is not local or shared");
    if (!allocated_.insert(op.buffer).second) return Error(StrCat("local buffer ", f_.buffers[op.buffer].name, " allocated twice in one nest"));
    VisitStmt(op.body);
    allocated_.erase(op.buffer);
  }

  const PrimFunc& f_;
  std::unordered_set<int64_t> bound_, seen_;
  std::unordered_set<int> allocated_;  // local buffers whose Allocate encloses the current point
  absl::Status status_;
};

}  // namespace

absl::Status Verify(const PrimFunc& f) { return Verifier(f).Run(); }

}  // namespace tunefarm::tir
