// Expression trees: the one node type shared by tensor expressions (te) and the loop IR (tir).
//
// Semantics, fixed here once for every printer, simplifier, interpreter and code generator:
//  - Every node has a dtype. Binary operands have the same dtype (builders convert immediates).
//  - Integer kDiv/kMod are *floor* division and modulo (the sign of kMod follows the divisor), so
//    index arithmetic simplifies like mathematics. Float kDiv is IEEE division; float kMod is
//    not allowed.
//  - Comparisons and kAnd/kOr/kNot produce bool. kSelect evaluates both arms (no side effects
//    exist, loads are always in bounds of the buffer they name).
//  - Leaves: kIntImm (int_value), kFloatImm (float_value), kVar (a loop variable of the loop IR,
//    identified by int_value; name is for printing only), kAxis / kReduceAxis (the i-th space or
//    reduce axis of the compute stage the expression belongs to; te only).
//  - kLoad: int_value names the tensor (te: tensor id in the DAG) or buffer (tir: buffer id);
//    operands are the indices (te: one per dimension; tir: one flat element index).
//  - kCall: int_value is an Intrinsic; operands are its arguments.
// Nodes are immutable and shared; rewriting builds new nodes and reuses unchanged subtrees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "compiler/te/dtype.h"

namespace tunefarm::te {

enum class ExprKind : uint8_t {
  kIntImm, kFloatImm, kVar, kAxis, kReduceAxis,
  kAdd, kSub, kMul, kDiv, kMod, kMin, kMax,
  kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kNot,
  kSelect, kCast, kCall, kLoad,
};

enum class Intrinsic : uint8_t {
  kExp, kLog, kSqrt, kRsqrt, kTanh, kErf, kSigmoid, kPow, kAbs, kFloor, kCeil,
  kRoundEven,  // to the nearest integer, ties to even (ONNX Round, quantization)
};
inline constexpr Intrinsic kLastIntrinsic = Intrinsic::kRoundEven;

std::string_view ExprKindName(ExprKind k);  // "add", "load", ...
std::string_view IntrinsicName(Intrinsic f);  // "exp", ...
bool ParseExprKind(std::string_view name, ExprKind* out);
bool ParseIntrinsic(std::string_view name, Intrinsic* out);
int IntrinsicArity(Intrinsic f);
inline bool IsBinaryArith(ExprKind k) { return k >= ExprKind::kAdd && k <= ExprKind::kMax; }
inline bool IsCompare(ExprKind k) { return k >= ExprKind::kEq && k <= ExprKind::kGe; }

struct ExprNode;

// A shared handle to an immutable node. Null only when default-constructed.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  Expr(int v);      // int64 immediate NOLINT(google-explicit-constructor): index arithmetic
  Expr(int64_t v);  // NOLINT
  const ExprNode* operator->() const { return node_.get(); }
  const ExprNode& operator*() const { return *node_; }
  const ExprNode* get() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Expr& other) const { return node_ == other.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t int_value = 0;  // see the header comment for its meaning per kind
  double float_value = 0;
  std::vector<Expr> operands;
  std::string name;  // kVar only, for printing
};

// --- Builders. Each checks its arguments (a mismatch is a bug in the caller: it aborts). ---
Expr IntImm(DType t, int64_t v);
Expr FloatImm(DType t, double v);
Expr Const(DType t, double v);  // immediate of any dtype
Expr MakeVar(std::string name, int64_t id, DType t = kIndexType);
Expr Axis(int index);
Expr ReduceAxis(int index);
Expr Binary(ExprKind kind, Expr a, Expr b);  // arithmetic, comparison, and/or
Expr Not(Expr a);
Expr Select(Expr cond, Expr t, Expr f);
Expr Cast(DType t, Expr a);
Expr Call(Intrinsic f, std::vector<Expr> args);
Expr Load(DType t, int64_t tensor, std::vector<Expr> indices);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr Min(Expr a, Expr b);
Expr Max(Expr a, Expr b);
Expr Eq(Expr a, Expr b);
Expr Ne(Expr a, Expr b);
Expr Lt(Expr a, Expr b);
Expr Le(Expr a, Expr b);
Expr Gt(Expr a, Expr b);
Expr Ge(Expr a, Expr b);
Expr And(Expr a, Expr b);
Expr Or(Expr a, Expr b);
Expr Exp(Expr a);
Expr Log(Expr a);
Expr Sqrt(Expr a);
Expr Rsqrt(Expr a);
Expr Tanh(Expr a);
Expr Erf(Expr a);
Expr Sigmoid(Expr a);
Expr Pow(Expr a, Expr b);
Expr Abs(Expr a);

// Rebuilds `e` with new operands (same kind, dtype and payload); returns `e` itself when every
// operand is the same node, so unchanged subtrees stay shared.
Expr WithOperands(const Expr& e, std::vector<Expr> operands);

bool IsConstInt(const Expr& e, int64_t* value = nullptr);
bool StructurallyEqual(const Expr& a, const Expr& b);

// `e` with each operand replaced by fn(operand); `e` itself when every operand comes back the
// same node. Nothing is allocated until an operand changes: rewrites mostly keep subtrees.
template <typename Fn>
Expr RewriteOperands(const Expr& e, Fn&& fn) {
  const std::vector<Expr>& old = e->operands;
  std::vector<Expr> ops;
  for (size_t i = 0; i < old.size(); ++i) {
    Expr op = fn(old[i]);
    if (ops.empty()) {
      if (op.same_as(old[i])) continue;
      ops.reserve(old.size());
      ops.assign(old.begin(), old.begin() + static_cast<std::ptrdiff_t>(i));
    }
    ops.push_back(std::move(op));
  }
  return ops.empty() ? e : WithOperands(e, std::move(ops));
}

// Post-order rewrite: `fn` sees a node whose operands were already rewritten and returns the
// replacement (or an undefined Expr to keep it).
template <typename Fn>
Expr Rewrite(const Expr& e, Fn&& fn) {
  Expr rebuilt = RewriteOperands(e, [&fn](const Expr& op) { return Rewrite(op, fn); });
  Expr replaced = fn(rebuilt);
  return replaced.defined() ? replaced : rebuilt;
}

// Pre-order visit of every node.
template <typename Fn>
void Visit(const Expr& e, Fn&& fn) {
  fn(e);
  for (const Expr& op : e->operands) Visit(op, fn);
}

}  // namespace tunefarm::te
