#include "compiler/tir/verify.h"

#include <unordered_set>

#include "compiler/common/strings.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

class Verifier {
 public:
  explicit Verifier(const PrimFunc& f) : f_(f) {}

  absl::Status Run() {
    if (f_.num_args < 0 || f_.num_args > static_cast<int>(f_.buffers.size())) return Fail("bad num_args");
    for (size_t i = 0; i < f_.buffers.size(); ++i) {
      const Buffer& b = f_.buffers[i];
      bool is_arg = static_cast<int>(i) < f_.num_args;
      if (is_arg != (b.scope == BufferScope::kArg)) return Fail(StrCat("buffer ", b.name, " has the wrong scope"));
      if (!is_arg && (b.workspace_offset % 64 != 0 || b.workspace_offset + b.NumBytes() > f_.workspace_bytes))
        return Fail(StrCat("scratch buffer ", b.name, " lies outside the workspace"));
    }
    if (f_.body.defined()) CheckStmt(f_.body);
    return status_;
  }

 private:
  absl::Status Fail(std::string_view what) { return absl::InternalError(StrCat(f_.name, ": ", what)); }

  void Error(std::string what) {
    if (status_.ok()) status_ = Fail(what);
  }

  void CheckExpr(const Expr& e) {
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
          if (n->int_value < 0 || n->int_value >= static_cast<int64_t>(f_.buffers.size())) {
            Error("load of an unknown buffer");
          } else if (n->dtype != f_.buffers[n->int_value].dtype) {
            Error(StrCat("load of ", f_.buffers[n->int_value].name, " with the wrong dtype"));
          } else if (n->operands.size() != 1 || n->operands[0]->dtype != te::kIndexType) {
            Error("a load takes one int64 flat index");
          }
          break;
        default:
          break;
      }
    });
  }

  void CheckStmt(const Stmt& s) {
    if (!s.defined()) return;
    switch (s->kind) {
      case StmtKind::kFor: {
        CheckExpr(s->extent);
        int64_t id = s->loop_var->int_value;
        if (!seen_.insert(id).second) Error(StrCat("loop variable ", s->loop_var->name, " bound twice"));
        if ((s->for_kind == ForKind::kVectorized || s->for_kind == ForKind::kUnrolled) && !te::IsConstInt(s->extent))
          Error("vectorized and unrolled loops need a constant extent");
        bound_.insert(id);
        CheckStmt(s->body);
        bound_.erase(id);
        break;
      }
      case StmtKind::kStore:
        if (s->buffer < 0 || s->buffer >= static_cast<int>(f_.buffers.size())) {
          Error("store to an unknown buffer");
          break;
        }
        if (s->value->dtype != f_.buffers[s->buffer].dtype)
          Error(StrCat("store to ", f_.buffers[s->buffer].name, " of the wrong dtype"));
        if (s->index->dtype != te::kIndexType) Error("store index must be int64");
        CheckExpr(s->index);
        CheckExpr(s->value);
        break;
      case StmtKind::kIf:
        CheckExpr(s->cond);
        CheckStmt(s->then_case);
        CheckStmt(s->else_case);
        break;
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq) CheckStmt(c);
        break;
    }
  }

  const PrimFunc& f_;
  std::unordered_set<int64_t> bound_, seen_;
  absl::Status status_;
};

}  // namespace

absl::Status Verify(const PrimFunc& f) { return Verifier(f).Run(); }

}  // namespace tunefarm::tir
