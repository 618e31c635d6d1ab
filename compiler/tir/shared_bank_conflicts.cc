#include "compiler/tir/shared_bank_conflicts.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <unordered_map>

#include "compiler/te/dtype.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::ExprKind;

constexpr int64_t kWarpSize = 32;
constexpr int64_t kBankBytes = 4;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The value of integer (or bool) expression `e` with loop variables at `vars`; nullopt for what
// an index of a shared access does not hold (a load, a float, an unknown variable).
std::optional<int64_t> EvalInt(const Expr& e, const std::unordered_map<int64_t, int64_t>& vars) {
  if (e->kind == ExprKind::kIntImm) return e->int_value;
  if (e->kind == ExprKind::kVar) {
    auto it = vars.find(e->int_value);
    return it == vars.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  if (e->kind == ExprKind::kNot) {
    auto a = EvalInt(e->operands[0], vars);
    return a ? std::optional<int64_t>(*a == 0) : std::nullopt;
  }
  if (e->kind == ExprKind::kCast) {  // to bool or to a 64-bit integer: no wrapping to model
    const te::DType from = e->operands[0]->dtype, to = e->dtype;
    const bool widening = te::IsInt(from) && (to == te::DType::kInt64 || (to == te::DType::kUInt64 && te::IsUnsignedInt(from)));
    if (to != te::DType::kBool && !widening && from != to) return std::nullopt;
    auto a = EvalInt(e->operands[0], vars);
    if (!a) return std::nullopt;
    return to == te::DType::kBool ? int64_t{*a != 0} : *a;
  }
  if (e->kind == ExprKind::kSelect) {
    auto c = EvalInt(e->operands[0], vars);
    if (!c) return std::nullopt;
    return EvalInt(e->operands[*c != 0 ? 1 : 2], vars);
  }
  if (e->operands.size() != 2) return std::nullopt;
  auto a = EvalInt(e->operands[0], vars), b = EvalInt(e->operands[1], vars);
  if (!a || !b) return std::nullopt;
  switch (e->kind) {
    case ExprKind::kAdd: return *a + *b;
    case ExprKind::kSub: return *a - *b;
    case ExprKind::kMul: return *a * *b;
    case ExprKind::kDiv: return *b == 0 ? std::nullopt : std::optional<int64_t>(FloorDiv(*a, *b));
    case ExprKind::kMod: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a - FloorDiv(*a, *b) * *b);
    case ExprKind::kMin: return std::min(*a, *b);
    case ExprKind::kMax: return std::max(*a, *b);
    case ExprKind::kEq: return int64_t{*a == *b};
    case ExprKind::kNe: return int64_t{*a != *b};
    case ExprKind::kLt: return int64_t{*a < *b};
    case ExprKind::kLe: return int64_t{*a <= *b};
    case ExprKind::kGt: return int64_t{*a > *b};
    case ExprKind::kGe: return int64_t{*a >= *b};
    case ExprKind::kAnd: return int64_t{*a != 0 && *b != 0};
    case ExprKind::kOr: return int64_t{*a != 0 || *b != 0};
    default: return std::nullopt;
  }
}

// Walks a loop nest with the loops around each point, recording every shared access.
class SharedAccessCollector : private StmtVisitor {
 public:
  explicit SharedAccessCollector(const PrimFunc& f) : f_(f) {}

  std::vector<SharedAccess> Collect(const Stmt& body) {
    VisitStmt(body);
    return std::move(out_);
  }

 private:
  void VisitFor(const StmtNode& op) override {
    VisitExpr(op.extent);
    const int64_t extent = op.extent->kind == ExprKind::kIntImm ? op.extent->int_value : 1;
    const ThreadAxis axis = op.for_kind == ForKind::kThreadBinding ? op.thread_axis : ThreadAxis::kNone;
    loops_.push_back({op.loop_var->int_value, axis, op.for_kind, extent});
    VisitStmt(op.body);
    loops_.pop_back();
  }
  void VisitStore(const StmtNode& op) override {
    VisitExpr(op.index);
    VisitExpr(op.value);
    Record(op.buffer, op.index, /*store=*/true);
  }
  void VisitExpr(const Expr& e) override {
    if (!e.defined()) return;
    for (const Expr& operand : e->operands) VisitExpr(operand);
    if (e->kind == ExprKind::kLoad) Record(static_cast<int>(e->int_value), e->operands[0], /*store=*/false);
  }

  void Record(int buffer, const Expr& index, bool store) {
    const Buffer& b = f_.buffers[buffer];
    if (b.scope != BufferScope::kShared) return;
    out_.push_back({buffer, store, WarpBankConflictWays(index, te::DTypeBytes(b.dtype), loops_)});
  }

  const PrimFunc& f_;
  std::vector<WarpLoop> loops_;
  std::vector<SharedAccess> out_;
};

}  // namespace

int WarpBankConflictWays(const Expr& index, int element_bytes, const std::vector<WarpLoop>& loops) {
  // The block's shape: the outermost loop bound to each thread axis has the launch's extent.
  std::array<int64_t, 3> block{0, 0, 0};
  for (const WarpLoop& l : loops)
    if (IsThreadAxis(l.axis)) {
      int64_t& dim = block[static_cast<int>(l.axis) - static_cast<int>(ThreadAxis::kThreadX)];
      if (dim == 0) dim = std::max<int64_t>(1, l.extent);
    }
  for (int64_t& d : block) d = std::max<int64_t>(d, 1);
  const int64_t lanes = std::min(kWarpSize, block[0] * block[1] * block[2]);
  std::unordered_map<int64_t, int64_t> vars;
  std::array<std::set<int64_t>, kSharedMemoryBanks> words;  // per bank, the words lanes touch
  for (int64_t lane = 0; lane < lanes; ++lane) {
    const std::array<int64_t, 3> thread{lane % block[0], lane / block[0] % block[1], lane / (block[0] * block[1])};
    for (const WarpLoop& l : loops)
      vars[l.var] = IsThreadAxis(l.axis) ? thread[static_cast<int>(l.axis) - static_cast<int>(ThreadAxis::kThreadX)] : 0;
    const std::optional<int64_t> element = EvalInt(index, vars);
    if (!element) return 0;
    const int64_t first = *element * element_bytes;
    for (int64_t byte = first; byte < first + element_bytes; byte += kBankBytes) {
      const int64_t word = FloorDiv(byte, kBankBytes);
      words[static_cast<size_t>(word - FloorDiv(word, kSharedMemoryBanks) * kSharedMemoryBanks)].insert(word);
    }
  }
  size_t ways = 0;
  for (const auto& w : words) ways = std::max(ways, w.size());
  return static_cast<int>(ways);
}

std::vector<SharedAccess> SharedBankConflicts(const PrimFunc& f, const Stmt& body) {
  return SharedAccessCollector(f).Collect(body);
}

}  // namespace tunefarm::tir
