#include "compiler/tir/stmt.h"

#include "common/check.h"
#include "common/strings.h"
#include "compiler/te/expr_text.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {

std::string_view ForKindName(ForKind k) {
  switch (k) {
    case ForKind::kSerial: return "for";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kThreadBinding: return "bound";
    case ForKind::kVirtualThread: return "vthread";
  }
  return "?";
}

std::string_view ThreadAxisName(ThreadAxis a) {
  switch (a) {
    case ThreadAxis::kNone: return "none";
    case ThreadAxis::kBlockX: return "blockIdx.x";
    case ThreadAxis::kBlockY: return "blockIdx.y";
    case ThreadAxis::kBlockZ: return "blockIdx.z";
    case ThreadAxis::kThreadX: return "threadIdx.x";
    case ThreadAxis::kThreadY: return "threadIdx.y";
    case ThreadAxis::kThreadZ: return "threadIdx.z";
  }
  return "?";
}

std::string_view ArgRoleName(ArgRole r) {
  switch (r) {
    case ArgRole::kInput: return "in";
    case ArgRole::kOutput: return "out";
    case ArgRole::kParam: return "param";
  }
  return "?";
}

namespace {
std::shared_ptr<StmtNode> NewNode(StmtKind kind) {
  auto n = std::make_shared<StmtNode>();
  n->kind = kind;
  return n;
}
}  // namespace

Stmt For(Expr loop_var, Expr extent, ForKind kind, Stmt body, ThreadAxis axis) {
  TF_CHECK(loop_var->kind == te::ExprKind::kVar, "loop variable must be a var");
  TF_CHECK((kind == ForKind::kThreadBinding) == (axis != ThreadAxis::kNone),
           "a thread axis is given exactly for a thread-binding loop");
  auto n = NewNode(StmtKind::kFor);
  n->loop_var = std::move(loop_var);
  n->extent = std::move(extent);
  n->for_kind = kind;
  n->thread_axis = axis;
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt Store(int buffer, Expr index, Expr value) {
  auto n = NewNode(StmtKind::kStore);
  n->buffer = buffer;
  n->index = std::move(index);
  n->value = std::move(value);
  return Stmt(std::move(n));
}

Stmt Allocate(int buffer, Stmt body) {
  auto n = NewNode(StmtKind::kAllocate);
  n->buffer = buffer;
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt Barrier() { return Stmt(NewNode(StmtKind::kBarrier)); }

Stmt IfThenElse(Expr cond, Stmt then_case, Stmt else_case) {
  TF_CHECK(cond->dtype == te::DType::kBool, "if condition must be bool");
  auto n = NewNode(StmtKind::kIf);
  n->cond = std::move(cond);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  return Stmt(std::move(n));
}

Stmt Seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s.defined()) continue;
    if (s->kind == StmtKind::kSeq) {
      flat.insert(flat.end(), s->seq.begin(), s->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  auto n = NewNode(StmtKind::kSeq);
  n->seq = std::move(flat);
  return Stmt(std::move(n));
}

int64_t Buffer::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Buffer::NumBytes() const { return NumElements() * te::DTypeBytes(dtype); }

namespace {

using te::ExprKind;

const char* InfixOp(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd: return " + ";
    case ExprKind::kSub: return " - ";
    case ExprKind::kMul: return "*";
    case ExprKind::kDiv: return "/";
    case ExprKind::kMod: return " % ";
    case ExprKind::kEq: return " == ";
    case ExprKind::kNe: return " != ";
    case ExprKind::kLt: return " < ";
    case ExprKind::kLe: return " <= ";
    case ExprKind::kGt: return " > ";
    case ExprKind::kGe: return " >= ";
    case ExprKind::kAnd: return " && ";
    case ExprKind::kOr: return " || ";
    default: return nullptr;
  }
}

void PrintExpr(const Expr& e, const PrimFunc* f, std::string* out) {
  switch (e->kind) {
    case ExprKind::kIntImm: StrAppend(out, e->int_value); return;
    case ExprKind::kFloatImm: StrAppend(out, te::FormatExactDouble(e->float_value)); return;
    case ExprKind::kVar: StrAppend(out, e->name.empty() ? "v" : e->name, "_", e->int_value); return;
    case ExprKind::kAxis: StrAppend(out, "axis", e->int_value); return;
    case ExprKind::kReduceAxis: StrAppend(out, "raxis", e->int_value); return;
    case ExprKind::kLoad:
      if (f && e->int_value >= 0 && e->int_value < static_cast<int64_t>(f->buffers.size()))
        StrAppend(out, f->buffers[e->int_value].name);
      else
        StrAppend(out, "buf", e->int_value);
      out->push_back('[');
      for (size_t i = 0; i < e->operands.size(); ++i) {
        if (i) out->append(", ");
        PrintExpr(e->operands[i], f, out);
      }
      out->push_back(']');
      return;
    default: break;
  }
  if (const char* op = InfixOp(e->kind)) {
    out->push_back('(');
    PrintExpr(e->operands[0], f, out);
    out->append(op);
    PrintExpr(e->operands[1], f, out);
    out->push_back(')');
    return;
  }
  if (e->kind == ExprKind::kCall) {
    StrAppend(out, te::IntrinsicName(static_cast<te::Intrinsic>(e->int_value)));
  } else if (e->kind == ExprKind::kCast) {
    StrAppend(out, te::DTypeName(e->dtype));
  } else {
    StrAppend(out, te::ExprKindName(e->kind));
  }
  out->push_back('(');
  for (size_t i = 0; i < e->operands.size(); ++i) {
    if (i) out->append(", ");
    PrintExpr(e->operands[i], f, out);
  }
  out->push_back(')');
}

// Prints one statement per line, nested blocks indented by two spaces.
class StmtPrinter : public StmtVisitor {
 public:
  StmtPrinter(const PrimFunc* f, int indent, std::string* out) : f_(f), indent_(indent), out_(out) {}

 private:
  std::string Pad() const { return std::string(indent_ * 2, ' '); }
  void Nested(const Stmt& s) {
    ++indent_;
    VisitStmt(s);
    --indent_;
  }

  void VisitFor(const StmtNode& op) override {
    StrAppend(out_, Pad(), ForKindName(op.for_kind), " (");
    PrintExpr(op.loop_var, f_, out_);
    out_->append(", 0, ");
    PrintExpr(op.extent, f_, out_);
    out_->append(")");
    if (op.for_kind == ForKind::kThreadBinding) StrAppend(out_, " @", ThreadAxisName(op.thread_axis));
    out_->append(" {\n");
    Nested(op.body);
    StrAppend(out_, Pad(), "}\n");
  }
  void VisitStore(const StmtNode& op) override {
    out_->append(Pad());
    PrintExpr(te::Load(op.value->dtype, op.buffer, {op.index}), f_, out_);
    out_->append(" = ");
    PrintExpr(op.value, f_, out_);
    out_->append("\n");
  }
  void VisitIf(const StmtNode& op) override {
    StrAppend(out_, Pad(), "if (");
    PrintExpr(op.cond, f_, out_);
    out_->append(") {\n");
    Nested(op.then_case);
    if (op.else_case.defined()) {
      StrAppend(out_, Pad(), "} else {\n");
      Nested(op.else_case);
    }
    StrAppend(out_, Pad(), "}\n");
  }
  void VisitAllocate(const StmtNode& op) override {
    std::string name = f_ && op.buffer >= 0 && op.buffer < static_cast<int>(f_->buffers.size())
                           ? f_->buffers[op.buffer].name
                           : StrCat("buf", op.buffer);
    StrAppend(out_, Pad(), "allocate ", name, " {\n");
    Nested(op.body);
    StrAppend(out_, Pad(), "}\n");
  }

  void VisitBarrier(const StmtNode&) override { StrAppend(out_, Pad(), "barrier()\n"); }

  const PrimFunc* f_;
  int indent_;
  std::string* out_;
};

}  // namespace

std::string StmtToString(const Stmt& s) {
  std::string out;
  StmtPrinter(nullptr, 0, &out).VisitStmt(s);
  return out;
}

std::string PrimFuncToString(const PrimFunc& f) {
  std::string out = StrCat("func ", f.name, "(");
  for (int i = 0; i < f.num_args; ++i)
    StrAppend(&out, i ? ", " : "", f.buffers[i].name, ": ", te::DTypeName(f.buffers[i].dtype), "[",
              StrJoin(f.buffers[i].shape, ","), "] ", ArgRoleName(f.buffers[i].role));
  StrAppend(&out, ") workspace ", f.workspace_bytes, " bytes\n");
  for (size_t i = f.num_args; i < f.buffers.size(); ++i) {
    const Buffer& b = f.buffers[i];
    StrAppend(&out, "  ", b.scope == BufferScope::kLocal ? "local " : b.scope == BufferScope::kShared ? "shared " : "scratch ",
              b.name, ": ", te::DTypeName(b.dtype), "[", b.NumElements(), "]");
    if (!IsAllocatedScope(b.scope)) StrAppend(&out, " at +", b.workspace_offset);
    out.append("\n");
  }
  StmtPrinter(&f, 1, &out).VisitStmt(f.body);
  return out;
}

}  // namespace tunefarm::tir
