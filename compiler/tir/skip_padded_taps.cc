#include "compiler/tir/skip_padded_taps.h"

#include <unordered_set>
#include <vector>

#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

bool IsZero(const Expr& e) {
  return (e->kind == ExprKind::kFloatImm && e->float_value == 0) || (e->kind == ExprKind::kIntImm && e->int_value == 0);
}

// A test the guard may evaluate once instead of per lane: loop variables, constants and index
// arithmetic only, no loads or calls.
bool IsIndexTest(const Expr& e) {
  bool pure = true;
  te::Visit(e, [&](const Expr& n) { pure = pure && n->kind != ExprKind::kLoad && n->kind != ExprKind::kCall; });
  return pure;
}

bool UsesVar(const Expr& e, int64_t var) {
  bool uses = false;
  te::Visit(e, [&](const Expr& n) { uses = uses || (n->kind == ExprKind::kVar && n->int_value == var); });
  return uses;
}

// `term` as select(c, x, 0), select(c, x, 0) * w, w * select(c, x, 0), or either under a cast:
// sets `test` to c and `kept` to the term with x in the select's place.
bool PeelPaddedRead(const Expr& term, Expr* test, Expr* kept) {
  switch (term->kind) {
    case ExprKind::kSelect:
      if (!IsZero(term->operands[2]) || !IsIndexTest(term->operands[0])) return false;
      *test = term->operands[0];
      *kept = term->operands[1];
      return true;
    case ExprKind::kCast: {
      Expr inner;
      if (!PeelPaddedRead(term->operands[0], test, &inner)) return false;
      *kept = te::Cast(term->dtype, inner);
      return true;
    }
    case ExprKind::kMul:
      for (int side : {0, 1}) {
        const Expr& read = term->operands[side];
        if (read->kind != ExprKind::kSelect && read->kind != ExprKind::kCast) continue;
        Expr inner;
        if (!PeelPaddedRead(read, test, &inner)) continue;
        *kept = side == 0 ? te::Binary(ExprKind::kMul, inner, term->operands[1])
                          : te::Binary(ExprKind::kMul, term->operands[0], inner);
        return true;
      }
      return false;
    default:
      return false;
  }
}

void SplitConjuncts(const Expr& e, std::vector<Expr>* out) {
  if (e->kind == ExprKind::kAnd) {
    SplitConjuncts(e->operands[0], out);
    SplitConjuncts(e->operands[1], out);
  } else {
    out->push_back(e);
  }
}

Expr AllOf(const std::vector<Expr>& conjuncts) {
  Expr all = conjuncts[0];
  for (size_t i = 1; i < conjuncts.size(); ++i) all = te::Binary(ExprKind::kAnd, all, conjuncts[i]);
  return all;
}

// A loop that runs as a loop (not unrolled into straight code or turned into vector lanes).
bool HasSerialLoop(const Stmt& s) {
  bool found = false;
  PreOrderVisit(s, [&](const Stmt& st) {
    found = found || (st->kind == StmtKind::kFor && st->for_kind != ForKind::kUnrolled &&
                      st->for_kind != ForKind::kVectorized);
  });
  return found;
}

bool WritesMemory(const Stmt& s, const std::vector<Buffer>& buffers) {
  bool found = false;
  PreOrderVisit(s, [&](const Stmt& st) {
    found = found || (st->kind == StmtKind::kStore && buffers[st->buffer].scope != BufferScope::kLocal);
  });
  return found;
}

// `if (test) { ... b[i] = v ... }` as `{ ... b[i] = select(test, v, b[i]) ... }`.
Stmt SelectEachStore(const Expr& test, const Stmt& body) {
  struct Rewriter : StmtMutator {
    Expr test;
    Stmt MutateStore(const Stmt& st) override {
      Expr old = te::Load(st->value->dtype, st->buffer, {st->index});
      return Store(st->buffer, st->index, te::Select(test, st->value, old));
    }
  } rewriter;
  rewriter.test = test;
  return rewriter.MutateStmt(body);
}

class PaddedTapSkipper : public StmtMutator {
 public:
  explicit PaddedTapSkipper(const std::vector<Buffer>& buffers) : buffers_(buffers) {}

  // The guards left innermost around stores to buffers in memory become selects of the update
  // (`acc = select(test, acc + x * w, acc)`): LLVM keeps such an accumulator in registers
  // across the reduction loops only while every iteration stores it, and a branch around the
  // store would leave every multiply-add loading and storing it. A local tile is promoted to
  // registers either way, and a guard around a serial loop costs one branch per pass over it.
  Stmt StoresUnconditionalWhereNeeded(const Stmt& s) {
    struct Rewriter : StmtMutator {
      PaddedTapSkipper* self;
      Stmt MutateIf(const Stmt& st) override {
        if (!self->IsOurGuard(st) || HasSerialLoop(st->then_case) || !WritesMemory(st->then_case, self->buffers_))
          return StmtMutator::MutateIf(st);
        return SelectEachStore(st->cond, MutateStmt(st->then_case));  // inner guards first
      }
    } rewriter;
    rewriter.self = this;
    return rewriter.MutateStmt(s);
  }

 private:
  Stmt MutateFor(const Stmt& s) override {
    const bool vectorized = s->for_kind == ForKind::kVectorized;
    if (vectorized) {
      vector_vars_.push_back(s->loop_var->int_value);
      // A guard left inside a vectorized loop would make it scalar: guard only a store that is
      // the loop's whole body, whose test then moves out of it.
      vector_body_is_store_.push_back(s->body.defined() && s->body->kind == StmtKind::kStore);
    }
    Stmt body = MutateStmt(s->body);
    if (vectorized) {
      vector_vars_.pop_back();
      vector_body_is_store_.pop_back();
    }
    Stmt loop = RebuildFor(s, s->extent, body);
    // A thread-bound loop keeps its guards inside: barriers are planned around its body.
    if (!loop.defined() || s->for_kind == ForKind::kThreadBinding || !IsOurGuard(body)) return loop;
    std::vector<Expr> conjuncts, outside, inside;
    SplitConjuncts(body->cond, &conjuncts);
    for (const Expr& c : conjuncts) (UsesVar(c, s->loop_var->int_value) ? inside : outside).push_back(c);
    if (outside.empty()) return loop;
    Stmt inner_body = inside.empty() ? body->then_case : Guard(AllOf(inside), body->then_case);
    return Guard(AllOf(outside), For(s->loop_var, s->extent, s->for_kind, inner_body, s->thread_axis));
  }

  Stmt MutateStore(const Stmt& s) override {
    const Expr& v = s->value;
    if (v->kind != ExprKind::kAdd) return s;
    // A sum in shared memory is updated in loops that get barriers, which must not sit under a
    // test of the thread index.
    if (buffers_[s->buffer].scope == BufferScope::kShared) return s;
    if (!vector_body_is_store_.empty() && !vector_body_is_store_.back()) return s;
    for (int side : {0, 1}) {
      const Expr& acc = v->operands[side];
      if (acc->kind != ExprKind::kLoad || acc->int_value != s->buffer || acc->operands.size() != 1 ||
          !te::StructurallyEqual(acc->operands[0], s->index))
        continue;
      Expr test, kept;
      if (!PeelPaddedRead(v->operands[1 - side], &test, &kept)) continue;
      for (int64_t var : vector_vars_)
        if (UsesVar(test, var)) return s;  // differs across lanes: a blend, not a branch
      Expr sum = side == 0 ? te::Binary(ExprKind::kAdd, acc, kept) : te::Binary(ExprKind::kAdd, kept, acc);
      return Guard(test, Store(s->buffer, s->index, sum));
    }
    return s;
  }

  Stmt Guard(const Expr& test, const Stmt& then_case) {
    Stmt guard = IfThenElse(test, then_case);
    guards_.insert(guard.operator->());
    kept_.push_back(guard);  // alive, so no other node is made at a guard's address
    return guard;
  }

  // Only the guards made here move: the bounds tests of tails are left where lowering put them.
  bool IsOurGuard(const Stmt& s) const {
    return s.defined() && s->kind == StmtKind::kIf && !s->else_case.defined() && guards_.count(s.operator->()) > 0;
  }

  const std::vector<Buffer>& buffers_;
  std::vector<int64_t> vector_vars_;
  std::vector<bool> vector_body_is_store_;
  std::unordered_set<const StmtNode*> guards_;
  std::vector<Stmt> kept_;
};

}  // namespace

Stmt SkipPaddedTaps(const Stmt& s, const std::vector<Buffer>& buffers) {
  if (!s.defined()) return s;
  PaddedTapSkipper skipper(buffers);
  return skipper.StoresUnconditionalWhereNeeded(skipper.MutateStmt(s));
}

}  // namespace tunefarm::tir
