#include "compiler/codegen/validate.h"

#include <set>
#include <string>

#include "common/strings.h"
#include "compiler/tir/stmt_functor.h"

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

class FuncValidator : public tir::StmtVisitor {
 public:
  FuncValidator(const tir::PrimFunc& f, bool gpu) : f_(f), gpu_(gpu) {}

  absl::Status Run() {
    if (absl::Status s = CheckBuffers(); !s.ok()) return s;
    if (!f_.body.defined()) return Error("has no body");
    VisitStmt(f_.body);
    return status_;
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
    int64_t local_bytes = 0;
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
      } else if (b.scope == tir::BufferScope::kLocal) {
        if (b.NumBytes() > tir::kMaxLocalBufferBytes) {
          return Error(StrCat("local buffer ", b.name, " needs ", b.NumBytes(), " bytes, over the ",
                              tir::kMaxLocalBufferBytes, "-byte limit"));
        }
        local_bytes += b.NumBytes();
        if (local_bytes > tir::kMaxLocalBytesPerFunc) {
          return Error(StrCat("local buffers need over ", tir::kMaxLocalBytesPerFunc, " bytes in all"));
        }
      } else if (b.scope == tir::BufferScope::kShared) {
        if (!gpu_) return Error(StrCat("buffer ", b.name, " is in shared memory, which only a GPU (cuda) target has"));
      } else {
        if (b.scope != tir::BufferScope::kWorkspace) {
          return Error(StrCat("buffer ", b.name, " after the arguments must be in the workspace or local"));
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
        if (absl::Status s = CheckLocalAccess(static_cast<int>(e->int_value)); !s.ok()) return s;
        if (e->operands.size() != 1 || !te::IsInt(e->operands[0]->dtype)) {
          return Error(StrCat("load from ", b.name, " needs one integer flat index"));
        }
        break;
      }
      case ExprKind::kCall: {
        auto f = static_cast<te::Intrinsic>(e->int_value);
        if (e->int_value < 0 || e->int_value > static_cast<int64_t>(te::kLastIntrinsic) ||
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

  absl::Status CheckLocalAccess(int buffer) const {
    const tir::Buffer& b = f_.buffers[buffer];
    if (tir::IsAllocatedScope(b.scope) && !allocated_.count(buffer))
      return Error(StrCat(b.scope == tir::BufferScope::kShared ? "shared" : "local", " buffer ", b.name,
                          " is used outside its allocate"));
    return absl::OkStatus();
  }

  // The first error wins; the walk goes on but records nothing more.
  void Check(absl::Status s) {
    if (status_.ok() && !s.ok()) status_ = std::move(s);
  }

  void VisitStmt(const Stmt& s) override {
    if (!status_.ok()) return;
    if (!s.defined()) return Check(Error("undefined statement"));
    tir::StmtVisitor::VisitStmt(s);
  }

  void VisitFor(const tir::StmtNode& op) override {
    const Expr& v = op.loop_var;
    if (v->kind != ExprKind::kVar || v->dtype != te::kIndexType) return Check(Error("loop variable must be an int64 var"));
    if (!op.extent.defined() || op.extent->dtype != te::kIndexType)
      return Check(Error(StrCat("loop ", v->name, " needs an int64 extent")));
    Check(CheckExpr(op.extent));
    if (op.for_kind == tir::ForKind::kThreadBinding && !gpu_) {
      return Check(Error(StrCat("loop ", v->name, " is bound to ", tir::ThreadAxisName(op.thread_axis),
                                ", which only a GPU (cuda) target runs")));
    }
    if (op.for_kind == tir::ForKind::kParallel && gpu_) {
      return Check(Error(StrCat("loop ", v->name, " is a parallel loop, which a GPU target runs only as "
                                "blockIdx/threadIdx bindings")));
    }
    if (!ever_bound_.insert(v->int_value).second)
      return Check(Error(StrCat("loop variable id ", v->int_value, " is bound twice")));
    bound_.insert(v->int_value);
    VisitStmt(op.body);
    bound_.erase(v->int_value);
  }

  void VisitStore(const tir::StmtNode& op) override {
    if (op.buffer < 0 || op.buffer >= static_cast<int>(f_.buffers.size()))
      return Check(Error(StrCat("store to unknown buffer ", op.buffer)));
    const tir::Buffer& b = f_.buffers[op.buffer];
    if (!op.value.defined() || op.value->dtype != b.dtype)
      return Check(Error(StrCat("store to ", b.name, " of a value with another dtype")));
    if (!op.index.defined() || !te::IsInt(op.index->dtype))
      return Check(Error(StrCat("store to ", b.name, " needs an integer index")));
    Check(CheckLocalAccess(op.buffer));
    Check(CheckExpr(op.index));
    Check(CheckExpr(op.value));
  }

  void VisitIf(const tir::StmtNode& op) override {
    Check(CheckExpr(op.cond));
    if (status_.ok() && op.cond->dtype != te::DType::kBool) Check(Error("if condition is not bool"));
    VisitStmt(op.then_case);
    if (op.else_case.defined()) VisitStmt(op.else_case);
  }

  void VisitAllocate(const tir::StmtNode& op) override {
    if (op.buffer < 0 || op.buffer >= static_cast<int>(f_.buffers.size()) ||
        !tir::IsAllocatedScope(f_.buffers[op.buffer].scope))
      return Check(Error(StrCat("allocate of buffer ", op.buffer, ", which is not a local or shared buffer")));
    if (!allocated_.insert(op.buffer).second)
      return Check(Error(StrCat("local buffer ", f_.buffers[op.buffer].name, " is allocated inside its own allocate")));
    VisitStmt(op.body);
    allocated_.erase(op.buffer);
  }

  void VisitBarrier(const tir::StmtNode&) override {
    if (!gpu_) Check(Error("a barrier, which only a GPU (cuda) target has"));
  }

  const tir::PrimFunc& f_;
  const bool gpu_;
  std::set<int64_t> bound_;
  std::set<int64_t> ever_bound_;
  std::set<int> allocated_;  // local buffers whose allocate encloses the current statement
  absl::Status status_;
};

}  // namespace

absl::Status ValidatePrimFuncs(const std::vector<tir::PrimFunc>& funcs, bool gpu) {
  std::set<std::string> names;
  for (const tir::PrimFunc& f : funcs) {
    if (!IsCIdentifier(f.name) || StartsWith(f.name, "tunefarm_")) {
      return absl::InvalidArgumentError(
          StrCat("PrimFunc name \"", f.name, "\" must be a C identifier not starting with tunefarm_"));
    }
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(StrCat("two PrimFuncs are named ", f.name));
    }
    if (absl::Status s = FuncValidator(f, gpu).Run(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::codegen
