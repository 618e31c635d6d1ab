#include "compiler/codegen/validate.h"

#include <set>
#include <string>

#include "compiler/common/strings.h"

namespace tunefarm::codegen {
namespace {

using te::Expr;
using te::ExprKind;
using tir::Stmt;
using tir::StmtKind;

bool IsCIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

class FuncValidator {
 public:
  explicit FuncValidator(const tir::PrimFunc& f) : f_(f) {}

  absl::Status Run() {
    if (absl::Status s = CheckBuffers(); !s.ok()) return s;
    if (!f_.body.defined()) return Error("has no body");
    return CheckStmt(f_.body);
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(StrCat("PrimFunc ", f_.name, ": ", what));
  }

  absl::Status CheckBuffers() {
    const int n = static_cast<int>(f_.buffers.size());
    if (f_.num_args < 0 || f_.num_args > n) return Error("num_args out of range");
    if (f_.workspace_bytes < 0) return Error("negative workspace_bytes");
    bool seen_output = false;
    std::set<std::string> names;
    for (int i = 0; i < n; ++i) {
      const tir::Buffer& b = f_.buffers[i];
      for (int64_t d : b.shape) {
        if (d < 0) return Error(StrCat("buffer ", b.name, " has a negative extent"));
      }
      if (i < f_.num_args) {
        if (b.scope != tir::BufferScope::kArg) return Error(StrCat("buffer ", i, " must be an argument"));
        if (b.name.empty() || !names.insert(b.name).second) {
          return Error(StrCat("argument ", i, " needs a unique non-empty name, got \"", b.name, "\""));
        }
        if (b.role == tir::ArgRole::kOutput) seen_output = true;
        if (b.role != tir::ArgRole::kOutput && seen_output) {
          return Error(StrCat("argument ", b.name, " is an input after an output (inputs come first)"));
        }
        if (b.has_range && (!te::IsInt(b.dtype) || b.range_min > b.range_max)) {
          return Error(StrCat("argument ", b.name, " has a range but is not an integer or lo > hi"));
        }
      } else {
        if (b.scope != tir::BufferScope::kWorkspace) {
          return Error(StrCat("buffer ", b.name, " after the arguments must be in the workspace"));
        }
        if (b.workspace_offset < 0 || b.workspace_offset % 64 != 0 ||
            b.workspace_offset + b.NumBytes() > f_.workspace_bytes) {
          return Error(StrCat("workspace buffer ", b.name, " at offset ", b.workspace_offset,
                              " (", b.NumBytes(), " bytes) is unaligned or outside the ",
                              f_.workspace_bytes, "-byte workspace"));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckExpr(const Expr& e) {
    if (!e.defined()) return Error("undefined expression");
    switch (e->kind) {
      case ExprKind::kAxis:
      case ExprKind::kReduceAxis:
        return Error("te axis leaf in the loop IR");
      case ExprKind::kVar:
        if (!bound_.count(e->int_value)) {
          return Error(StrCat("variable ", e->name, "_", e->int_value, " is used outside its loop"));
        }
        break;
      case ExprKind::kLoad: {
        if (e->int_value < 0 || e->int_value >= static_cast<int64_t>(f_.buffers.size())) {
          return Error(StrCat("load from unknown buffer ", e->int_value));
        }
        const tir::Buffer& b = f_.buffers[e->int_value];
        if (b.dtype != e->dtype) return Error(StrCat("load from ", b.name, " with the wrong dtype"));
        if (e->operands.size() != 1 || !te::IsInt(e->operands[0]->dtype)) {
          return Error(StrCat("load from ", b.name, " needs one integer flat index"));
        }
        break;
      }
      case ExprKind::kCall: {
        auto f = static_cast<te::Intrinsic>(e->int_value);
        if (e->int_value < 0 || e->int_value > static_cast<int64_t>(te::Intrinsic::kCeil) ||
            static_cast<int>(e->operands.size()) != te::IntrinsicArity(f)) {
          return Error("malformed intrinsic call");
        }
        if (f != te::Intrinsic::kAbs && !te::IsFloat(e->dtype)) {
          return Error(StrCat(te::IntrinsicName(f), " of a non-float"));
        }
        break;
      }
      default:
        break;
    }
    for (const Expr& op : e->operands) {
      if (absl::Status s = CheckExpr(op); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status CheckStmt(const Stmt& s) {
    if (!s.defined()) return Error("undefined statement");
    switch (s->kind) {
      case StmtKind::kFor: {
        const Expr& v = s->loop_var;
        if (v->kind != ExprKind::kVar || v->dtype != te::kIndexType) {
          return Error("loop variable must be an int64 var");
        }
        if (!s->extent.defined() || s->extent->dtype != te::kIndexType) {
          return Error(StrCat("loop ", v->name, " needs an int64 extent"));
        }
        if (absl::Status st = CheckExpr(s->extent); !st.ok()) return st;
        if (!ever_bound_.insert(v->int_value).second) {
          return Error(StrCat("loop variable id ", v->int_value, " is bound twice"));
        }
        bound_.insert(v->int_value);
        absl::Status st = CheckStmt(s->body);
        bound_.erase(v->int_value);
        return st;
      }
      case StmtKind::kStore: {
        if (s->buffer < 0 || s->buffer >= static_cast<int>(f_.buffers.size())) {
          return Error(StrCat("store to unknown buffer ", s->buffer));
        }
        const tir::Buffer& b = f_.buffers[s->buffer];
        if (!s->value.defined() || s->value->dtype != b.dtype) {
          return Error(StrCat("store to ", b.name, " of a value with another dtype"));
        }
        if (!s->index.defined() || !te::IsInt(s->index->dtype)) {
          return Error(StrCat("store to ", b.name, " needs an integer index"));
        }
        if (absl::Status st = CheckExpr(s->index); !st.ok()) return st;
        return CheckExpr(s->value);
      }
      case StmtKind::kIf: {
        if (absl::Status st = CheckExpr(s->cond); !st.ok()) return st;
        if (s->cond->dtype != te::DType::kBool) return Error("if condition is not bool");
        if (absl::Status st = CheckStmt(s->then_case); !st.ok()) return st;
        return s->else_case.defined() ? CheckStmt(s->else_case) : absl::OkStatus();
      }
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq) {
          if (absl::Status st = CheckStmt(c); !st.ok()) return st;
        }
        return absl::OkStatus();
    }
    return Error("unknown statement kind");
  }

  const tir::PrimFunc& f_;
  std::set<int64_t> bound_;
  std::set<int64_t> ever_bound_;
};

}  // namespace

absl::Status ValidatePrimFuncs(const std::vector<tir::PrimFunc>& funcs) {
  if (funcs.empty()) return absl::InvalidArgumentError("no PrimFuncs to compile");
  std::set<std::string> names;
  for (const tir::PrimFunc& f : funcs) {
    if (!IsCIdentifier(f.name) || StartsWith(f.name, "tunefarm_")) {
      return absl::InvalidArgumentError(
          StrCat("PrimFunc name \"", f.name, "\" must be a C identifier not starting with tunefarm_"));
    }
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(StrCat("two PrimFuncs are named ", f.name));
    }
    if (absl::Status s = FuncValidator(f).Run(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::codegen
