// Arithmetic analysis of the loop IR: integer bounds of expressions under known loop-variable
// ranges, and a simplifier for the index arithmetic splits and fuses create, e.g.
//   ((i0*8 + i1) / 8) -> i0,  ((i0*8 + i1) % 8) -> i1   when 0 <= i1 < 8,
//   (i0*8 + i1 < 64) -> true                             when i0 < 8, i1 < 8.
// Integer division and modulo are floor operations (see compiler/te/expr.h).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// An inclusive integer interval; the extremes stand for "unbounded".
struct Interval {
  static constexpr int64_t kNegInf = INT64_MIN / 4;
  static constexpr int64_t kPosInf = INT64_MAX / 4;
  int64_t min = kNegInf, max = kPosInf;
  static Interval Point(int64_t v) { return {v, v}; }
  bool IsPoint() const { return min == max; }
};

class Analyzer {
 public:
  // Declares that loop variable `var_id` ranges over [0, extent).
  void BindLoop(int64_t var_id, int64_t extent) { ranges_[var_id] = {0, extent - 1}; }
  void Unbind(int64_t var_id) { ranges_.erase(var_id); }

  Interval Bound(const Expr& e) const;
  Expr Simplify(const Expr& e) const;
  // True when `cond` (bool) is provably true under the bound ranges.
  bool CanProve(const Expr& cond) const;

 private:
  std::unordered_map<int64_t, Interval> ranges_;
};

// The least and greatest value of `e` while each variable in `ranges` runs over [0, extent),
// as expressions of the remaining variables. False when `e` is not linear in those variables
// (or they mix non-linearly with others).
bool RangeOverVars(const Expr& e, const std::unordered_map<int64_t, int64_t>& ranges, Expr* lo, Expr* hi);

// Simplifies every expression of `s`, binding loop ranges on the way down; removes provably
// true/false conditions and loops of extent 1 (substituting 0 for their variable).
Stmt SimplifyStmt(const Stmt& s);

// Replaces loop variables by expressions.
Expr Substitute(const Expr& e, const std::unordered_map<int64_t, Expr>& vars);
Stmt Substitute(const Stmt& s, const std::unordered_map<int64_t, Expr>& vars);
// Gives every loop of `s` a new variable (ids from *next_id), keeping loop variables unique in
// a PrimFunc when the same loops are emitted twice.
Stmt FreshenLoopVars(const Stmt& s, int64_t* next_id);

}  // namespace tunefarm::tir
