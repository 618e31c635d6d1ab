#include "compiler/tir/analyzer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <string_view>

#include "compiler/te/expr_text.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

int64_t Clamp(__int128 v) {
  if (v < Interval::kNegInf) return Interval::kNegInf;
  if (v > Interval::kPosInf) return Interval::kPosInf;
  return static_cast<int64_t>(v);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

bool IsIndex(const Expr& e) { return e->dtype == te::kIndexType; }

// A term's identity and place in a linear form. Terms are the same when their canonical text
// (te/expr_text.h) is, and are ordered by that text. A loop variable, the usual term, is keyed
// without printing it: every other kind's text sorts before "(var", and two variables' texts
// "(var i64 <id> <name>)" order by the id's digits, then the name.
struct TermKey {
  const te::ExprNode* var = nullptr;  // set for a variable; kept alive by the term its form holds
  std::string text;                   // the canonical text of any other term

  static TermKey Of(const Expr& term) {
    TermKey k;
    if (term->kind == ExprKind::kVar) {
      k.var = term.get();
    } else {
      k.text = te::ExprToText(term);
    }
    return k;
  }

  bool operator<(const TermKey& o) const {
    if ((var == nullptr) != (o.var == nullptr)) return var == nullptr;
    if (var == nullptr) return text < o.text;
    if (var->dtype != o.var->dtype) return te::DTypeName(var->dtype) < te::DTypeName(o.var->dtype);
    if (var->int_value != o.var->int_value) {
      char a[24], b[24];
      const char* a_end = std::to_chars(a, a + sizeof(a), var->int_value).ptr;
      const char* b_end = std::to_chars(b, b + sizeof(b), o.var->int_value).ptr;
      return std::string_view(a, a_end - a) < std::string_view(b, b_end - b);
    }
    return VarName(var) < VarName(o.var);
  }

  static std::string_view VarName(const te::ExprNode* v) {
    return v->name.empty() ? std::string_view("_") : std::string_view(v->name);
  }
};

// sum(coeff * term) + constant over int64, with terms kept in a canonical order.
struct LinearForm {
  std::map<TermKey, std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;

  void AddTerm(const Expr& term, int64_t coeff) {
    if (coeff != 0) AddKeyed(TermKey::Of(term), term, coeff);
  }
  void Add(const LinearForm& o, int64_t scale) {
    for (const auto& [key, tc] : o.terms) AddKeyed(key, tc.first, tc.second * scale);
    constant += o.constant * scale;
  }
  // The key is the term's (TermKey::Of), kept from the form the term came from.
  void AddKeyed(const TermKey& key, const Expr& term, int64_t coeff) {
    if (coeff == 0) return;
    auto& slot = terms[key];
    if (!slot.first.defined()) slot.first = term;
    slot.second += coeff;
  }
};

LinearForm ToLinear(const Expr& e) {
  LinearForm f;
  int64_t c;
  if (te::IsConstInt(e, &c)) {
    f.constant = c;
  } else if (e->kind == ExprKind::kAdd || e->kind == ExprKind::kSub) {
    f = ToLinear(e->operands[0]);
    f.Add(ToLinear(e->operands[1]), e->kind == ExprKind::kAdd ? 1 : -1);
  } else if (e->kind == ExprKind::kMul && te::IsConstInt(e->operands[1], &c)) {
    f.Add(ToLinear(e->operands[0]), c);
  } else if (e->kind == ExprKind::kMul && te::IsConstInt(e->operands[0], &c)) {
    f.Add(ToLinear(e->operands[1]), c);
  } else {
    f.AddTerm(e, 1);
  }
  return f;
}

Expr FromLinear(const LinearForm& f) {
  Expr out;
  for (const auto& [key, tc] : f.terms) {
    const auto& [term, coeff] = tc;
    if (coeff == 0) continue;
    int64_t mag = coeff < 0 ? -coeff : coeff;
    Expr scaled = mag == 1 ? term : te::Binary(ExprKind::kMul, term, te::IntImm(te::kIndexType, mag));
    if (!out.defined()) {
      out = coeff < 0 ? te::Binary(ExprKind::kSub, te::IntImm(te::kIndexType, 0), scaled) : scaled;
    } else {
      out = te::Binary(coeff < 0 ? ExprKind::kSub : ExprKind::kAdd, out, scaled);
    }
  }
  if (!out.defined()) return te::IntImm(te::kIndexType, f.constant);
  if (f.constant > 0) return te::Binary(ExprKind::kAdd, out, te::IntImm(te::kIndexType, f.constant));
  if (f.constant < 0) return te::Binary(ExprKind::kSub, out, te::IntImm(te::kIndexType, -f.constant));
  return out;
}

Interval Add(Interval a, Interval b) { return {Clamp(__int128(a.min) + b.min), Clamp(__int128(a.max) + b.max)}; }

Interval Scale(Interval a, int64_t c) {
  __int128 x = __int128(a.min) * c, y = __int128(a.max) * c;
  return {Clamp(std::min(x, y)), Clamp(std::max(x, y))};
}

bool IsUnbounded(Interval a) { return a.min <= Interval::kNegInf || a.max >= Interval::kPosInf; }

// Folds an operation whose operands are all immediates; undefined when it cannot.
Expr FoldConstants(const Expr& e) {
  for (const Expr& op : e->operands)
    if (op->kind != ExprKind::kIntImm && op->kind != ExprKind::kFloatImm) return Expr();
  if (e->operands.empty()) return Expr();
  auto val = [](const Expr& x) {
    return x->kind == ExprKind::kIntImm ? static_cast<double>(x->int_value) : x->float_value;
  };
  const DType in = e->operands[0]->dtype;
  if (e->kind == ExprKind::kCast) return te::Cast(e->dtype, e->operands[0]);
  if (e->kind == ExprKind::kSelect) return e->operands[0]->int_value ? e->operands[1] : e->operands[2];
  if (e->kind == ExprKind::kNot) return te::IntImm(DType::kBool, !e->operands[0]->int_value);
  if (e->operands.size() != 2) return Expr();
  if (te::IsInt(in) || in == DType::kBool) {
    int64_t a = e->operands[0]->int_value, b = e->operands[1]->int_value;
    // Only fold index arithmetic; narrower integer types would need wrap-around semantics.
    if (in != te::kIndexType && te::IsBinaryArith(e->kind)) return Expr();
    if (in == DType::kUInt64 && te::IsCompare(e->kind)) {
      // Immediates hold uint64 as bit patterns: flipping the top bit orders them as int64.
      a ^= std::numeric_limits<int64_t>::min();
      b ^= std::numeric_limits<int64_t>::min();
    }
    switch (e->kind) {
      case ExprKind::kAdd: return te::IntImm(in, a + b);
      case ExprKind::kSub: return te::IntImm(in, a - b);
      case ExprKind::kMul: return te::IntImm(in, a * b);
      case ExprKind::kDiv: return b == 0 ? Expr() : te::IntImm(in, FloorDiv(a, b));
      case ExprKind::kMod: return b == 0 ? Expr() : te::IntImm(in, FloorMod(a, b));
      case ExprKind::kMin: return te::IntImm(in, std::min(a, b));
      case ExprKind::kMax: return te::IntImm(in, std::max(a, b));
      case ExprKind::kEq: return te::IntImm(DType::kBool, a == b);
      case ExprKind::kNe: return te::IntImm(DType::kBool, a != b);
      case ExprKind::kLt: return te::IntImm(DType::kBool, a < b);
      case ExprKind::kLe: return te::IntImm(DType::kBool, a <= b);
      case ExprKind::kGt: return te::IntImm(DType::kBool, a > b);
      case ExprKind::kGe: return te::IntImm(DType::kBool, a >= b);
      case ExprKind::kAnd: return te::IntImm(DType::kBool, a && b);
      case ExprKind::kOr: return te::IntImm(DType::kBool, a || b);
      default: return Expr();
    }
  }
  double a = val(e->operands[0]), b = val(e->operands[1]);
  switch (e->kind) {
    case ExprKind::kAdd: return te::FloatImm(in, a + b);
    case ExprKind::kSub: return te::FloatImm(in, a - b);
    case ExprKind::kMul: return te::FloatImm(in, a * b);
    case ExprKind::kDiv: return te::FloatImm(in, a / b);
    case ExprKind::kEq: return te::IntImm(DType::kBool, a == b);
    case ExprKind::kNe: return te::IntImm(DType::kBool, a != b);
    case ExprKind::kLt: return te::IntImm(DType::kBool, a < b);
    case ExprKind::kLe: return te::IntImm(DType::kBool, a <= b);
    case ExprKind::kGt: return te::IntImm(DType::kBool, a > b);
    case ExprKind::kGe: return te::IntImm(DType::kBool, a >= b);
    default: return Expr();  // min/max of NaN etc.: leave to the kernel's semantics
  }
}

}  // namespace

Interval Analyzer::Bound(const Expr& e) const {
  int64_t c;
  switch (e->kind) {
    case ExprKind::kIntImm: return Interval::Point(e->int_value);
    case ExprKind::kVar: {
      auto it = ranges_.find(e->int_value);
      return it == ranges_.end() ? Interval{} : it->second;
    }
    case ExprKind::kAdd: return Add(Bound(e->operands[0]), Bound(e->operands[1]));
    case ExprKind::kSub: return Add(Bound(e->operands[0]), Scale(Bound(e->operands[1]), -1));
    case ExprKind::kMul: {
      if (te::IsConstInt(e->operands[1], &c)) return Scale(Bound(e->operands[0]), c);
      if (te::IsConstInt(e->operands[0], &c)) return Scale(Bound(e->operands[1]), c);
      Interval a = Bound(e->operands[0]), b = Bound(e->operands[1]);
      if (IsUnbounded(a) || IsUnbounded(b)) return {};
      __int128 p[4] = {__int128(a.min) * b.min, __int128(a.min) * b.max, __int128(a.max) * b.min,
                       __int128(a.max) * b.max};
      return {Clamp(*std::min_element(p, p + 4)), Clamp(*std::max_element(p, p + 4))};
    }
    case ExprKind::kDiv:
      if (IsIndex(e) && te::IsConstInt(e->operands[1], &c) && c > 0) {
        Interval a = Bound(e->operands[0]);
        return {a.min <= Interval::kNegInf ? a.min : FloorDiv(a.min, c),
                a.max >= Interval::kPosInf ? a.max : FloorDiv(a.max, c)};
      }
      return {};
    case ExprKind::kMod:
      if (IsIndex(e) && te::IsConstInt(e->operands[1], &c) && c > 0) {
        Interval a = Bound(e->operands[0]);
        if (a.min >= 0 && a.max < c) return a;
        return {0, c - 1};
      }
      return {};
    case ExprKind::kMin:
    case ExprKind::kMax: {
      Interval a = Bound(e->operands[0]), b = Bound(e->operands[1]);
      if (e->kind == ExprKind::kMin) return {std::min(a.min, b.min), std::min(a.max, b.max)};
      return {std::max(a.min, b.min), std::max(a.max, b.max)};
    }
    case ExprKind::kSelect: {
      Interval a = Bound(e->operands[1]), b = Bound(e->operands[2]);
      return {std::min(a.min, b.min), std::max(a.max, b.max)};
    }
    case ExprKind::kCast:
      if (te::IsInt(e->dtype) && te::IsInt(e->operands[0]->dtype) &&
          te::DTypeBytes(e->dtype) >= te::DTypeBytes(e->operands[0]->dtype) && te::IsSigned(e->dtype))
        return Bound(e->operands[0]);
      return {};
    default:
      if (e->dtype == DType::kBool) return {0, 1};
      return {};
  }
}

namespace {

// floor(L / c) and L mod c for a linear form L and a constant c > 0.
struct DivModResult {
  Expr div, mod;
};

// L = d*Q + R: Q collects the terms whose coefficient d divides (divided by d) and floor(constant
// / d), R the other terms and constant mod d.
struct Divided {
  LinearForm quotient, rest;
};

Divided DivideTerms(const LinearForm& l, int64_t d) {
  Divided out;
  for (const auto& [key, tc] : l.terms) {
    if (tc.second % d == 0) {
      out.quotient.AddKeyed(key, tc.first, tc.second / d);
    } else {
      out.rest.AddKeyed(key, tc.first, tc.second);
    }
  }
  out.quotient.constant = FloorDiv(l.constant, d);
  out.rest.constant = FloorMod(l.constant, d);
  return out;
}

DivModResult SimplifyDivMod(const Analyzer& an, const LinearForm& num, int64_t c) {
  auto [q, r] = DivideTerms(num, c);
  Expr r_expr = FromLinear(r);
  Interval rb = an.Bound(r_expr);
  if (!IsUnbounded(rb) && FloorDiv(rb.min, c) == FloorDiv(rb.max, c)) {
    int64_t k = FloorDiv(rb.min, c);
    q.constant += k;
    r.constant -= k * c;
    return {FromLinear(q), FromLinear(r)};
  }
  // R = d*B + s with 0 <= s < d and d | c gives floor(R/c) = floor(B/(c/d)) and
  // R mod c = d*(B mod (c/d)) + s. Try every d = gcd(c, coefficient) and keep the largest.
  int64_t best_d = 1;
  LinearForm best_b, best_s;
  for (const auto& [key, tc] : r.terms) {
    int64_t d = std::gcd(c, tc.second < 0 ? -tc.second : tc.second);
    if (d <= best_d) continue;
    auto [b, s] = DivideTerms(r, d);
    Interval sb = an.Bound(FromLinear(s));
    if (sb.min >= 0 && sb.max < d) {
      best_d = d;
      best_b = b;
      best_s = s;
    }
  }
  Expr div, mod;
  if (best_d > 1) {
    Expr b = FromLinear(best_b);
    int64_t cd = c / best_d;
    Interval bb = an.Bound(b);
    Expr bdiv = cd == 1 ? te::IntImm(te::kIndexType, 0) : te::Binary(ExprKind::kDiv, b, te::IntImm(te::kIndexType, cd));
    Expr bmod = cd == 1 ? te::IntImm(te::kIndexType, 0) : te::Binary(ExprKind::kMod, b, te::IntImm(te::kIndexType, cd));
    if (bb.min >= 0 && bb.max < cd) bdiv = te::IntImm(te::kIndexType, 0), bmod = b;
    LinearForm d_form = q;
    d_form.AddTerm(bdiv, 1);
    LinearForm m_form = best_s;
    m_form.AddTerm(bmod, best_d);
    return {FromLinear(ToLinear(FromLinear(d_form))), FromLinear(ToLinear(FromLinear(m_form)))};
  }
  LinearForm d_form = q;
  d_form.AddTerm(te::Binary(ExprKind::kDiv, r_expr, te::IntImm(te::kIndexType, c)), 1);
  return {FromLinear(d_form), te::Binary(ExprKind::kMod, r_expr, te::IntImm(te::kIndexType, c))};
}

// The simplified linear form of an index expression. Sums, differences and constant multiples
// are collected in one walk: simplifying each operand to an expression and reading it back as a
// form, level by level, made a long sum quadratic. Any other node is simplified on its own.
LinearForm SimplifiedLinear(const Analyzer& an, const Expr& e) {
  const ExprKind k = e->kind;
  if (IsIndex(e) && (k == ExprKind::kAdd || k == ExprKind::kSub)) {
    LinearForm f = SimplifiedLinear(an, e->operands[0]);
    f.Add(SimplifiedLinear(an, e->operands[1]), k == ExprKind::kAdd ? 1 : -1);
    return f;
  }
  if (IsIndex(e) && k == ExprKind::kMul) {
    LinearForm a = SimplifiedLinear(an, e->operands[0]), b = SimplifiedLinear(an, e->operands[1]);
    LinearForm f;
    if (a.terms.empty()) {
      f.Add(b, a.constant);
    } else if (b.terms.empty()) {
      f.Add(a, b.constant);
    } else {
      f.AddTerm(te::WithOperands(e, {FromLinear(a), FromLinear(b)}), 1);
    }
    return f;
  }
  return ToLinear(an.Simplify(e));
}

}  // namespace

Expr Analyzer::Simplify(const Expr& e) const {
  if (IsIndex(e) && (e->kind == ExprKind::kAdd || e->kind == ExprKind::kSub || e->kind == ExprKind::kMul))
    return FromLinear(SimplifiedLinear(*this, e));
  if (e->operands.empty()) {
    // A variable bound to a single value (a loop of one iteration) is that value.
    if (e->kind == ExprKind::kVar)
      if (auto it = ranges_.find(e->int_value); it != ranges_.end() && it->second.IsPoint())
        return te::IntImm(e->dtype, it->second.min);
    return e;
  }
  Expr x = te::RewriteOperands(e, [this](const Expr& op) { return Simplify(op); });
  if (Expr folded = FoldConstants(x); folded.defined()) return folded;

  int64_t c;
  const ExprKind k = x->kind;
  if (IsIndex(x) && (k == ExprKind::kDiv || k == ExprKind::kMod) && te::IsConstInt(x->operands[1], &c) && c > 0) {
    if (c == 1) return k == ExprKind::kDiv ? x->operands[0] : te::IntImm(te::kIndexType, 0);
    // (a / b) / c == a / (b*c) for positive b, c.
    int64_t inner;
    if (k == ExprKind::kDiv && x->operands[0]->kind == ExprKind::kDiv &&
        te::IsConstInt(x->operands[0]->operands[1], &inner) && inner > 0)
      return Simplify(te::Binary(ExprKind::kDiv, x->operands[0]->operands[0], te::IntImm(te::kIndexType, inner * c)));
    DivModResult r = SimplifyDivMod(*this, ToLinear(x->operands[0]), c);
    return k == ExprKind::kDiv ? r.div : r.mod;
  }
  if ((k == ExprKind::kMin || k == ExprKind::kMax) && IsIndex(x)) {
    Interval d = Bound(FromLinear(ToLinear(te::Binary(ExprKind::kSub, x->operands[0], x->operands[1]))));
    if (d.max <= 0) return k == ExprKind::kMin ? x->operands[0] : x->operands[1];
    if (d.min >= 0) return k == ExprKind::kMin ? x->operands[1] : x->operands[0];
    return x;
  }
  if (te::IsCompare(k) && IsIndex(x->operands[0])) {
    Interval d = Bound(FromLinear(ToLinear(te::Binary(ExprKind::kSub, x->operands[0], x->operands[1]))));
    auto yes = te::IntImm(DType::kBool, 1), no = te::IntImm(DType::kBool, 0);
    switch (k) {
      case ExprKind::kLt: return d.max < 0 ? yes : d.min >= 0 ? no : x;
      case ExprKind::kLe: return d.max <= 0 ? yes : d.min > 0 ? no : x;
      case ExprKind::kGt: return d.min > 0 ? yes : d.max <= 0 ? no : x;
      case ExprKind::kGe: return d.min >= 0 ? yes : d.max < 0 ? no : x;
      case ExprKind::kEq: return (d.IsPoint() && d.min == 0) ? yes : (d.min > 0 || d.max < 0) ? no : x;
      case ExprKind::kNe: return (d.IsPoint() && d.min == 0) ? no : (d.min > 0 || d.max < 0) ? yes : x;
      default: return x;
    }
  }
  if (k == ExprKind::kAnd || k == ExprKind::kOr) {
    bool is_and = k == ExprKind::kAnd;
    for (int i = 0; i < 2; ++i) {
      if (!te::IsConstInt(x->operands[i], &c)) continue;
      if (is_and) return c ? x->operands[1 - i] : x->operands[i];
      return c ? x->operands[i] : x->operands[1 - i];
    }
    return x;
  }
  if (k == ExprKind::kSelect && te::IsConstInt(x->operands[0], &c)) return c ? x->operands[1] : x->operands[2];
  return x;
}

bool Analyzer::CanProve(const Expr& cond) const {
  int64_t v;
  return te::IsConstInt(Simplify(cond), &v) && v != 0;
}

bool RangeOverVars(const Expr& e, const std::unordered_map<int64_t, int64_t>& ranges, Expr* lo, Expr* hi) {
  Analyzer an;
  for (const auto& [id, extent] : ranges) an.BindLoop(id, extent);
  LinearForm form = ToLinear(an.Simplify(e)), low, high;
  low.constant = high.constant = form.constant;
  for (const auto& [key, tc] : form.terms) {
    const auto& [term, coeff] = tc;
    bool has_ranged = false, has_other = false;
    te::Visit(term, [&](const Expr& n) {
      if (n->kind != ExprKind::kVar) return;
      (ranges.count(n->int_value) ? has_ranged : has_other) = true;
    });
    if (!has_ranged) {
      low.AddKeyed(key, term, coeff);
      high.AddKeyed(key, term, coeff);
      continue;
    }
    if (has_other) return false;
    Interval b = an.Bound(term);
    if (IsUnbounded(b)) return false;
    Interval scaled = Scale(b, coeff);
    low.constant += scaled.min;
    high.constant += scaled.max;
  }
  *lo = FromLinear(low);
  *hi = FromLinear(high);
  return true;
}

Expr Substitute(const Expr& e, const std::unordered_map<int64_t, Expr>& vars) {
  return te::Rewrite(e, [&](const Expr& n) -> Expr {
    if (n->kind != ExprKind::kVar) return Expr();
    auto it = vars.find(n->int_value);
    return it == vars.end() ? Expr() : it->second;
  });
}

namespace {

class VarSubstituter : public StmtMutator {
 public:
  explicit VarSubstituter(const std::unordered_map<int64_t, Expr>& vars) : vars_(vars) {}

 private:
  Expr MutateExpr(const Expr& e) override { return Substitute(e, vars_); }
  const std::unordered_map<int64_t, Expr>& vars_;
};

// One walk: the enclosing loops' fresh variables are substituted on the way down (substituting
// each loop's body before walking it made deep nests quadratic).
class LoopVarFreshener : public StmtMutator {
 public:
  explicit LoopVarFreshener(int64_t* next_id) : next_id_(next_id) {}

 private:
  Expr MutateExpr(const Expr& e) override { return fresh_.empty() ? e : Substitute(e, fresh_); }

  Stmt MutateFor(const Stmt& s) override {
    Expr fresh = te::MakeVar(s->loop_var->name, (*next_id_)++);
    Expr extent = MutateExpr(s->extent);
    fresh_[s->loop_var->int_value] = fresh;
    Stmt body = MutateStmt(s->body);
    fresh_.erase(s->loop_var->int_value);
    return For(fresh, extent, s->for_kind, body, s->thread_axis);
  }

  int64_t* next_id_;
  std::unordered_map<int64_t, Expr> fresh_;  // enclosing loops: old variable id -> new variable
};

// Folds every expression with what the enclosing loops say about their variables; drops
// loops of no iterations, replaces one-iteration loops by their body at 0, and takes the
// branch of a constant condition.
class StmtSimplifier : public StmtMutator {
 private:
  Expr MutateExpr(const Expr& e) override { return an_.Simplify(e); }

  Stmt MutateFor(const Stmt& s) override {
    Expr extent = an_.Simplify(s->extent);
    int64_t n;
    bool constant = te::IsConstInt(extent, &n);
    if (constant && n <= 0) return Stmt();
    // A loop of one iteration goes: its variable is bound to 0, which Simplify substitutes
    // on the way down (one walk, where substituting first would walk the body twice).
    if (constant) an_.BindLoop(s->loop_var->int_value, n);
    if (constant && n == 1) {
      Stmt body = MutateStmt(s->body);
      an_.Unbind(s->loop_var->int_value);
      return body;
    }
    Stmt body = MutateStmt(s->body);
    an_.Unbind(s->loop_var->int_value);
    return RebuildFor(s, extent, body);
  }

  Stmt MutateIf(const Stmt& s) override {
    Expr cond = an_.Simplify(s->cond);
    int64_t v;
    if (te::IsConstInt(cond, &v)) return MutateStmt(v ? s->then_case : s->else_case);
    Stmt then_case = MutateStmt(s->then_case);
    return RebuildIf(s, cond, then_case, MutateStmt(s->else_case));
  }

  Analyzer an_;
};

}  // namespace

Stmt Substitute(const Stmt& s, const std::unordered_map<int64_t, Expr>& vars) {
  return VarSubstituter(vars).MutateStmt(s);
}

Stmt FreshenLoopVars(const Stmt& s, int64_t* next_id) { return LoopVarFreshener(next_id).MutateStmt(s); }

Stmt SimplifyStmt(const Stmt& s) { return StmtSimplifier().MutateStmt(s); }

}  // namespace tunefarm::tir
