#include "tuner/features/program_features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "common/strings.h"
#include "compiler/tir/shared_bank_conflicts.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tuner {
namespace {

using te::Expr;
using te::ExprKind;
using tir::ForKind;
using tir::StmtNode;

constexpr int kBufferSlots = 5;
constexpr int kCurvePoints = 10;
constexpr double kCacheLineBytes = 64;
constexpr int64_t kMaxVarId = int64_t{1} << 24;  // loop variable ids index a flat table

double Slog(double x) { return std::log2(1.0 + std::max(x, 0.0)); }

// --- The columns ---

enum OpKind {
  kFloatMad, kFloatAddSub, kFloatMul, kFloatDiv, kFloatCmp, kFloatMinMax, kFloatMath, kFloatOtherFunc,
  kIntMad, kIntAddSub, kIntMul, kIntDivMod, kIntCmp, kIntMinMax, kBoolOp, kSelectOp, kCastOp,
  kNumOpKinds,
};
constexpr const char* kOpNames[kNumOpKinds] = {
    "float_mad", "float_addsub", "float_mul", "float_div", "float_cmp", "float_minmax", "float_math_func",
    "float_other_func", "int_mad", "int_addsub", "int_mul", "int_divmod", "int_cmp", "int_minmax", "bool_op",
    "select_op", "cast_op",
};

// Where the innermost loop of one annotation kind sits among the store's loops (Ansor's one-hot).
enum LoopPosition {
  kPosNone, kPosInnerSpatial, kPosMiddleSpatial, kPosOuterSpatial, kPosInnerReduce, kPosMiddleReduce,
  kPosOuterReduce, kPosMixed, kNumPositions,
};
constexpr const char* kPositionNames[kNumPositions] = {
    "pos_none", "pos_inner_spatial", "pos_middle_spatial", "pos_outer_spatial",
    "pos_inner_reduce", "pos_middle_reduce", "pos_outer_reduce", "pos_mixed",
};

constexpr ForKind kAnnotatedKinds[] = {ForKind::kVectorized, ForKind::kUnrolled, ForKind::kParallel};
constexpr const char* kAnnotationPrefixes[] = {"vec_", "unroll_", "parallel_"};
constexpr int kNumAnnotations = 3;

enum ReuseType { kReuseLoopCarried, kReuseSerialMultipleRead, kReuseNone, kNumReuseTypes };
constexpr const char* kBufferPrefixes[kBufferSlots] = {"b0.", "b1.", "b2.", "b3.", "b4."};

struct AnnotatedLoops {
  int num = 0;
  double prod = 0;  // of their extents; 0 when there are none
  double len = 0;   // extent of the innermost one
  LoopPosition position = kPosNone;
};

struct BufferFacts {
  int buffer = -1;  // -1: an empty slot
  bool read = false, write = false;
  double bytes = 0, unique_bytes = 0, lines = 0, unique_lines = 0;
  ReuseType reuse = kReuseNone;
  double reuse_dis_iter = 0, reuse_dis_bytes = 0, reuse_ct = 0;
  double stride = 0;
};

// Everything one row says, before the log transform.
struct StoreFacts {
  std::array<double, kNumOpKinds> ops{};  // over all executions of the store
  std::array<AnnotatedLoops, kNumAnnotations> annotations{};
  std::array<BufferFacts, kBufferSlots> buffers{};
  std::array<double, kCurvePoints> intensity{};
  double alloc_size = 0, alloc_prod = 0, alloc_outer_prod = 0, alloc_inner_prod = 0;
  double outer_prod = 1;
  int num_loops = 0, num_guards = 0;
  double innermost_extent = 0;
  bool reduction_update = false;
  tir::BufferScope scope = tir::BufferScope::kArg;
  double workspace_bytes = 0, live_local_bytes = 0;
  // On a GPU: the extent of the loop bound to blockIdx.x, .y, .z, threadIdx.x, .y, .z around
  // the store (0: none), as Ansor's GPU features have them.
  std::array<double, 6> gpu_axis_len{};
  // The most ways a warp's access of a shared buffer at this store is replayed for bank
  // conflicts (tir/shared_bank_conflicts.h; 0: no shared access).
  double shared_bank_conflict_ways = 0;
};

constexpr const char* kGpuAxisNames[6] = {"blockIdx_x_len",  "blockIdx_y_len",  "blockIdx_z_len",
                                          "threadIdx_x_len", "threadIdx_y_len", "threadIdx_z_len"};

// The one place the column order is written: `out(prefix, name, value)` once per column. The
// names come from running it with a sink that keeps the names, the rows with one that keeps the
// values.
template <typename Sink>
void WriteRow(const StoreFacts& f, Sink& out) {
  for (int k = 0; k < kNumOpKinds; ++k) out("", kOpNames[k], Slog(f.ops[k]));
  for (int a = 0; a < kNumAnnotations; ++a) {
    const AnnotatedLoops& l = f.annotations[a];
    const char* p = kAnnotationPrefixes[a];
    out(p, "num", l.num);
    out(p, "prod", Slog(l.prod));
    out(p, "len", Slog(l.len));
    for (int pos = 0; pos < kNumPositions; ++pos) out(p, kPositionNames[pos], l.position == pos ? 1.0 : 0.0);
  }
  for (int s = 0; s < kBufferSlots; ++s) {
    const BufferFacts& b = f.buffers[s];
    const char* p = kBufferPrefixes[s];
    const bool used = b.buffer >= 0;
    out(p, "acc_read", used && b.read && !b.write);
    out(p, "acc_write", used && b.write && !b.read);
    out(p, "acc_rw", used && b.read && b.write);
    out(p, "bytes", Slog(b.bytes));
    out(p, "unique_bytes", Slog(b.unique_bytes));
    out(p, "lines", Slog(b.lines));
    out(p, "unique_lines", Slog(b.unique_lines));
    out(p, "reuse_loop_carried", used && b.reuse == kReuseLoopCarried);
    out(p, "reuse_serial_multiple_read", used && b.reuse == kReuseSerialMultipleRead);
    out(p, "reuse_none", used && b.reuse == kReuseNone);
    out(p, "reuse_dis_iter", Slog(b.reuse_dis_iter));
    out(p, "reuse_dis_bytes", Slog(b.reuse_dis_bytes));
    out(p, "reuse_ct", Slog(b.reuse_ct));
    const double per_reuse = b.reuse_ct > 0 ? 1.0 / b.reuse_ct : 1.0;
    out(p, "bytes_d_reuse_ct", Slog(b.bytes * per_reuse));
    out(p, "unique_bytes_d_reuse_ct", Slog(b.unique_bytes * per_reuse));
    out(p, "lines_d_reuse_ct", Slog(b.lines * per_reuse));
    out(p, "unique_lines_d_reuse_ct", Slog(b.unique_lines * per_reuse));
    out(p, "stride", Slog(b.stride));
  }
  static constexpr const char* kCurveNames[kCurvePoints] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  for (int i = 0; i < kCurvePoints; ++i) out("arith_intensity_curve_", kCurveNames[i], f.intensity[i]);
  out("", "alloc_size", Slog(f.alloc_size));
  out("", "alloc_prod", Slog(f.alloc_prod));
  out("", "alloc_outer_prod", Slog(f.alloc_outer_prod));
  out("", "alloc_inner_prod", Slog(f.alloc_inner_prod));
  out("", "outer_prod", Slog(f.outer_prod));
  out("", "num_loops", f.num_loops);
  out("", "num_guards", f.num_guards);
  out("", "innermost_extent", Slog(f.innermost_extent));
  out("", "reduction_update", f.reduction_update);
  out("", "scope_arg", f.scope == tir::BufferScope::kArg);
  out("", "scope_workspace", f.scope == tir::BufferScope::kWorkspace);
  out("", "scope_local", f.scope == tir::BufferScope::kLocal);
  out("", "scope_shared", f.scope == tir::BufferScope::kShared);
  out("", "workspace_bytes", Slog(f.workspace_bytes));
  out("", "live_local_bytes", Slog(f.live_local_bytes));
  for (int a = 0; a < 6; ++a) out("", kGpuAxisNames[a], Slog(f.gpu_axis_len[a]));
  out("", "shared_bank_conflict_ways", f.shared_bank_conflict_ways);
}

struct NameSink {
  std::vector<std::string> names;
  void operator()(std::string_view prefix, std::string_view name, double) { names.push_back(StrCat(prefix, name)); }
};

struct ValueSink {
  float* out;
  void operator()(std::string_view, std::string_view, double v) { *out++ = static_cast<float>(v); }
};

// --- The walk ---

struct Loop {
  int64_t var;
  double extent;  // at least 1
  ForKind kind;
  tir::ThreadAxis axis;  // kThreadBinding only
};

// One buffer access of a store: its index's coefficient per enclosing loop (coeffs_ at
// coeff_offset, outermost loop first) and constant part.
struct Access {
  int buffer;
  bool write;
  int coeff_offset;
  double constant;
};

class StoreFeatureExtractor : public tir::StmtVisitor {
 public:
  StoreFeatureExtractor(const tir::PrimFunc& func, int cols)
      : func_(func), cols_(cols), alloc_depth_(func.buffers.size(), -1) {}

  absl::Status status() const { return status_; }
  int rows() const { return rows_; }
  std::vector<float> TakeValues() { return std::move(values_); }

 private:
  void VisitFor(const StmtNode& op) override;
  void VisitIf(const StmtNode& op) override;
  void VisitAllocate(const StmtNode& op) override;
  void VisitStore(const StmtNode& op) override;

  void Fail(std::string message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(std::move(message));
  }
  void CountOps(const Expr& e);
  void AddAccess(int64_t buffer, const Expr& index, bool write);
  void AddCoefficients(const Expr& e, double scale, double* coeff, double* constant);
  const double* Coeffs(const Access& a) const { return coeffs_.data() + a.coeff_offset; }

  void SummarizeBuffers(StoreFacts* facts);
  double SharedBankConflictWays(const StmtNode& store) const;
  void SummarizeAnnotations(StoreFacts* facts) const;
  void SummarizeIntensity(StoreFacts* facts);

  const tir::PrimFunc& func_;
  const int cols_;
  absl::Status status_;
  int rows_ = 0;
  std::vector<float> values_;

  // The enclosing structure at the statement being visited.
  std::vector<Loop> loops_;
  std::vector<int32_t> var_depth_;  // loop variable id -> index in loops_, -1 when not enclosing
  std::vector<int> alloc_depth_;    // buffer -> loops_.size() at its Allocate, -1 outside it
  int guards_ = 0;
  double live_local_bytes_ = 0;

  // Per store scratch, kept to reuse its memory.
  std::array<double, kNumOpKinds> ops_{};
  std::vector<Access> accesses_;
  std::vector<double> coeffs_;
  std::vector<double> inner_prod_;   // [L]: product of the extents of loops L.. (size depth + 1)
  std::vector<double> footprint_;    // per buffer group x (depth + 1): distinct elements at level L
  std::vector<double> level_bytes_;  // [L]: distinct bytes of all buffers at level L
  std::vector<double> cnt_, span_;   // per access of one group
  std::vector<double> xs_, ys_;      // the intensity curve's points, innermost level first
  std::vector<BufferFacts> groups_;
  std::vector<int> group_first_;     // group -> its first access (accesses_ sorted by buffer)
};

void StoreFeatureExtractor::VisitFor(const StmtNode& op) {
  int64_t extent = 1;
  if (!te::IsConstInt(op.extent, &extent)) extent = 1;  // constants after lowering (see the header)
  const int64_t id = op.loop_var->int_value;
  if (id < 0 || id >= kMaxVarId) return Fail(StrCat("loop variable id ", id, " out of range"));
  if (id >= static_cast<int64_t>(var_depth_.size())) var_depth_.resize(id + 1, -1);
  const int32_t outer_binding = var_depth_[id];
  var_depth_[id] = static_cast<int32_t>(loops_.size());
  // A thread axis bound again inside a loop bound to it (a cooperative fetch) is the same
  // index, not more iterations: it multiplies nothing.
  if (op.for_kind == ForKind::kThreadBinding)
    for (const Loop& outer : loops_)
      if (outer.kind == ForKind::kThreadBinding && outer.axis == op.thread_axis) extent = 1;
  loops_.push_back({id, static_cast<double>(std::max<int64_t>(extent, 1)), op.for_kind, op.thread_axis});
  VisitStmt(op.body);
  loops_.pop_back();
  var_depth_[id] = outer_binding;
}

void StoreFeatureExtractor::VisitIf(const StmtNode& op) {
  ++guards_;
  VisitStmt(op.then_case);
  VisitStmt(op.else_case);
  --guards_;
}

void StoreFeatureExtractor::VisitAllocate(const StmtNode& op) {
  if (op.buffer < 0 || op.buffer >= static_cast<int>(func_.buffers.size()))
    return Fail(StrCat("allocate of unknown buffer ", op.buffer));
  const double bytes = static_cast<double>(func_.buffers[op.buffer].NumBytes());
  const int outer = alloc_depth_[op.buffer];
  alloc_depth_[op.buffer] = static_cast<int>(loops_.size());
  live_local_bytes_ += bytes;
  VisitStmt(op.body);
  live_local_bytes_ -= bytes;
  alloc_depth_[op.buffer] = outer;
}

// Adds scale x (e's coefficient of each enclosing loop variable) to coeff, and scale x its
// constant part to *constant. The approximations of the non-affine parts are the header's.
void StoreFeatureExtractor::AddCoefficients(const Expr& e, double scale, double* coeff, double* constant) {
  const te::ExprNode& n = *e;
  int64_t c = 0;
  switch (n.kind) {
    case ExprKind::kIntImm:
      *constant += scale * static_cast<double>(n.int_value);
      return;
    case ExprKind::kVar: {
      const int64_t id = n.int_value;
      const int32_t depth = id >= 0 && id < static_cast<int64_t>(var_depth_.size()) ? var_depth_[id] : -1;
      if (depth < 0) return Fail(StrCat("index uses ", n.name, " (id ", id, "), not an enclosing loop"));
      coeff[depth] += scale;
      return;
    }
    case ExprKind::kAdd:
    case ExprKind::kSub:
      AddCoefficients(n.operands[0], scale, coeff, constant);
      AddCoefficients(n.operands[1], n.kind == ExprKind::kAdd ? scale : -scale, coeff, constant);
      return;
    case ExprKind::kMul:
      if (te::IsConstInt(n.operands[1], &c)) return AddCoefficients(n.operands[0], scale * c, coeff, constant);
      if (te::IsConstInt(n.operands[0], &c)) return AddCoefficients(n.operands[1], scale * c, coeff, constant);
      AddCoefficients(n.operands[0], scale, coeff, constant);  // a product of variables: a rough stand-in
      AddCoefficients(n.operands[1], scale, coeff, constant);
      return;
    case ExprKind::kDiv:
      if (te::IsConstInt(n.operands[1], &c) && c != 0)
        AddCoefficients(n.operands[0], scale / static_cast<double>(c), coeff, constant);
      return;
    case ExprKind::kMod:
      if (te::IsConstInt(n.operands[1], &c)) AddCoefficients(n.operands[0], scale, coeff, constant);
      return;
    case ExprKind::kMin:
    case ExprKind::kMax:
      return AddCoefficients(te::IsConstInt(n.operands[0]) ? n.operands[1] : n.operands[0], scale, coeff, constant);
    case ExprKind::kSelect:
      return AddCoefficients(n.operands[1], scale, coeff, constant);
    case ExprKind::kCast:
      return AddCoefficients(n.operands[0], scale, coeff, constant);
    default:
      return;  // loads (a gathered index), calls: no affine part
  }
}

void StoreFeatureExtractor::AddAccess(int64_t buffer, const Expr& index, bool write) {
  if (buffer < 0 || buffer >= static_cast<int64_t>(func_.buffers.size()))
    return Fail(StrCat("access to unknown buffer ", buffer));
  const int depth = static_cast<int>(loops_.size());
  Access a{static_cast<int>(buffer), write, static_cast<int>(coeffs_.size()), 0.0};
  coeffs_.resize(coeffs_.size() + depth, 0.0);
  AddCoefficients(index, 1.0, coeffs_.data() + a.coeff_offset, &a.constant);
  accesses_.push_back(a);
}

bool IsMathCall(int64_t intrinsic) {
  switch (static_cast<te::Intrinsic>(intrinsic)) {
    case te::Intrinsic::kAbs:
    case te::Intrinsic::kFloor:
    case te::Intrinsic::kCeil:
    case te::Intrinsic::kRoundEven: return false;
    default: return true;
  }
}

// Counts the operations of one evaluation of `e` into ops_ and records its loads as accesses.
void StoreFeatureExtractor::CountOps(const Expr& e) {
  const te::ExprNode& n = *e;
  const bool is_float = te::IsFloat(n.dtype);
  switch (n.kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
    case ExprKind::kAxis:
    case ExprKind::kReduceAxis:
      return;
    case ExprKind::kLoad:
      AddAccess(n.int_value, n.operands[0], /*write=*/false);
      CountOps(n.operands[0]);
      return;
    case ExprKind::kAdd:
    case ExprKind::kSub: {
      // a * b + c is one multiply-add, as an FMA computes it.
      int mul = -1;
      for (int i = 0; i < 2 && mul < 0; ++i)
        if (n.operands[i]->kind == ExprKind::kMul && n.operands[i]->dtype == n.dtype) mul = i;
      if (mul >= 0) {
        ++ops_[is_float ? kFloatMad : kIntMad];
        for (const Expr& op : n.operands[mul]->operands) CountOps(op);
        CountOps(n.operands[1 - mul]);
        return;
      }
      ++ops_[is_float ? kFloatAddSub : kIntAddSub];
      break;
    }
    case ExprKind::kMul: ++ops_[is_float ? kFloatMul : kIntMul]; break;
    case ExprKind::kDiv:
    case ExprKind::kMod: ++ops_[is_float ? kFloatDiv : kIntDivMod]; break;
    case ExprKind::kMin:
    case ExprKind::kMax: ++ops_[is_float ? kFloatMinMax : kIntMinMax]; break;
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kGt:
    case ExprKind::kGe: ++ops_[te::IsFloat(n.operands[0]->dtype) ? kFloatCmp : kIntCmp]; break;
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot: ++ops_[kBoolOp]; break;
    case ExprKind::kSelect: ++ops_[kSelectOp]; break;
    case ExprKind::kCast: ++ops_[kCastOp]; break;
    case ExprKind::kCall: ++ops_[IsMathCall(n.int_value) ? kFloatMath : kFloatOtherFunc]; break;
  }
  for (const Expr& op : n.operands) CountOps(op);
}

void StoreFeatureExtractor::VisitStore(const StmtNode& op) {
  if (!status_.ok()) return;
  const int depth = static_cast<int>(loops_.size());
  ops_.fill(0);
  accesses_.clear();
  coeffs_.clear();
  AddAccess(op.buffer, op.index, /*write=*/true);  // first: its coefficients sit at coeffs_[0, depth)
  CountOps(op.index);
  CountOps(op.value);
  if (!status_.ok()) return;

  inner_prod_.assign(depth + 1, 1.0);
  for (int l = depth - 1; l >= 0; --l) inner_prod_[l] = inner_prod_[l + 1] * loops_[l].extent;

  StoreFacts facts;
  facts.outer_prod = inner_prod_[0];
  for (int k = 0; k < kNumOpKinds; ++k) facts.ops[k] = ops_[k] * facts.outer_prod;
  facts.num_loops = depth;
  facts.num_guards = guards_;
  facts.innermost_extent = depth > 0 ? loops_.back().extent : 0;
  for (size_t i = 1; i < accesses_.size(); ++i)
    if (accesses_[i].buffer == op.buffer) facts.reduction_update = true;
  const tir::Buffer& buffer = func_.buffers[op.buffer];
  facts.scope = buffer.scope;
  facts.workspace_bytes = static_cast<double>(func_.workspace_bytes);
  facts.live_local_bytes = live_local_bytes_;
  for (const Loop& loop : loops_)  // the outermost binding of an axis has the launch's extent
    if (loop.kind == ForKind::kThreadBinding && loop.axis != tir::ThreadAxis::kNone &&
        facts.gpu_axis_len[static_cast<int>(loop.axis) - 1] == 0)
      facts.gpu_axis_len[static_cast<int>(loop.axis) - 1] = loop.extent;
  facts.shared_bank_conflict_ways = SharedBankConflictWays(op);
  const bool allocated_here = buffer.scope == tir::BufferScope::kLocal || buffer.scope == tir::BufferScope::kShared;
  if (allocated_here && alloc_depth_[op.buffer] >= 0) {
    const int at = alloc_depth_[op.buffer];
    facts.alloc_size = static_cast<double>(buffer.NumBytes());
    facts.alloc_outer_prod = inner_prod_[0] / inner_prod_[at];
    facts.alloc_prod = static_cast<double>(buffer.NumElements()) * facts.alloc_outer_prod;
    facts.alloc_inner_prod = inner_prod_[at];
  }
  SummarizeAnnotations(&facts);
  SummarizeBuffers(&facts);
  SummarizeIntensity(&facts);

  values_.resize(values_.size() + cols_);
  ValueSink sink{values_.data() + static_cast<size_t>(rows_) * cols_};
  WriteRow(facts, sink);
  ++rows_;
}

double StoreFeatureExtractor::SharedBankConflictWays(const StmtNode& store) const {
  std::vector<std::pair<const Expr*, int64_t>> shared;  // (index, buffer)
  if (func_.buffers[store.buffer].scope == tir::BufferScope::kShared) shared.push_back({&store.index, store.buffer});
  te::Visit(store.value, [&](const Expr& e) {
    if (e->kind == ExprKind::kLoad && func_.buffers[e->int_value].scope == tir::BufferScope::kShared)
      shared.push_back({&e->operands[0], e->int_value});
  });
  if (shared.empty()) return 0;
  std::vector<tir::WarpLoop> loops;
  for (const Loop& l : loops_)
    loops.push_back({l.var, l.kind == ForKind::kThreadBinding ? l.axis : tir::ThreadAxis::kNone, l.kind,
                     static_cast<int64_t>(l.extent)});
  int ways = 0;
  for (const auto& [index, buffer] : shared)
    ways = std::max(ways, tir::WarpBankConflictWays(*index, te::DTypeBytes(func_.buffers[buffer].dtype), loops));
  return ways;
}

void StoreFeatureExtractor::SummarizeAnnotations(StoreFacts* facts) const {
  const int depth = static_cast<int>(loops_.size());
  const double* write = coeffs_.data();  // the store's own access
  // Innermost and outermost loop of each class (0 spatial, 1 reduce).
  int inner[2] = {-1, -1}, outer[2] = {-1, -1};
  for (int l = 0; l < depth; ++l) {
    const int cls = write[l] == 0 ? 1 : 0;
    if (outer[cls] < 0) outer[cls] = l;
    inner[cls] = l;
  }
  for (int a = 0; a < kNumAnnotations; ++a) {
    AnnotatedLoops& out = facts->annotations[a];
    int innermost = -1;
    bool classes[2] = {false, false};
    for (int l = 0; l < depth; ++l) {
      if (loops_[l].kind != kAnnotatedKinds[a]) continue;
      out.prod = out.num == 0 ? loops_[l].extent : out.prod * loops_[l].extent;
      ++out.num;
      innermost = l;
      classes[write[l] == 0 ? 1 : 0] = true;
    }
    if (innermost < 0) continue;
    out.len = loops_[innermost].extent;
    const int cls = write[innermost] == 0 ? 1 : 0;
    const int base = cls == 0 ? kPosInnerSpatial : kPosInnerReduce;
    if (classes[0] && classes[1]) {
      out.position = kPosMixed;
    } else if (innermost == inner[cls]) {
      out.position = static_cast<LoopPosition>(base);
    } else if (innermost == outer[cls]) {
      out.position = static_cast<LoopPosition>(base + 2);
    } else {
      out.position = static_cast<LoopPosition>(base + 1);
    }
  }
}

void StoreFeatureExtractor::SummarizeBuffers(StoreFacts* facts) {
  const int depth = static_cast<int>(loops_.size());
  const double outer_prod = inner_prod_[0];
  const int write_buffer = accesses_[0].buffer;
  std::stable_sort(accesses_.begin(), accesses_.end(),
                   [](const Access& a, const Access& b) { return a.buffer < b.buffer; });
  groups_.clear();
  group_first_.clear();
  for (size_t i = 0; i < accesses_.size(); ++i) {
    if (i == 0 || accesses_[i].buffer != accesses_[i - 1].buffer) {
      groups_.emplace_back();
      groups_.back().buffer = accesses_[i].buffer;
      group_first_.push_back(static_cast<int>(i));
    }
    (accesses_[i].write ? groups_.back().write : groups_.back().read) = true;
  }
  const int num_groups = static_cast<int>(groups_.size());
  group_first_.push_back(static_cast<int>(accesses_.size()));

  // Distinct elements each buffer touches at each loop level L (loops L.. run, outer ones are
  // fixed), from the innermost level out: per access the lesser of the number of index values
  // and the index span; for the union of a buffer's accesses, their sum, or when they differ only
  // by a constant, the largest plus the spread of the constants.
  footprint_.assign(static_cast<size_t>(num_groups) * (depth + 1), 0.0);
  level_bytes_.assign(depth + 1, 0.0);
  for (int g = 0; g < num_groups; ++g) {
    const int first = group_first_[g], end = group_first_[g + 1], count = end - first;
    const tir::Buffer& buf = func_.buffers[groups_[g].buffer];
    const double elems = static_cast<double>(buf.NumElements());
    const double elem_bytes = te::DTypeBytes(buf.dtype);
    bool same_coeffs = true;
    double lo = accesses_[first].constant, hi = lo;
    for (int i = first + 1; i < end; ++i) {
      same_coeffs = same_coeffs && std::equal(Coeffs(accesses_[i]), Coeffs(accesses_[i]) + depth, Coeffs(accesses_[first]));
      lo = std::min(lo, accesses_[i].constant);
      hi = std::max(hi, accesses_[i].constant);
    }
    cnt_.assign(count, 1.0);
    span_.assign(count, 1.0);
    double* fp = footprint_.data() + static_cast<size_t>(g) * (depth + 1);
    for (int l = depth; l >= 0; --l) {
      double sum = 0, largest = 0;
      for (int i = 0; i < count; ++i) {
        if (l < depth) {
          const double c = Coeffs(accesses_[first + i])[l];
          if (c != 0) cnt_[i] *= loops_[l].extent;
          span_[i] += std::abs(c) * (loops_[l].extent - 1);
        }
        const double one = std::min(cnt_[i], span_[i]);
        sum += one;
        largest = std::max(largest, one);
      }
      double distinct = same_coeffs ? std::min(sum, largest + (hi - lo)) : sum;
      fp[l] = std::min(distinct, elems);
      level_bytes_[l] += fp[l] * elem_bytes;
    }

    // Stride: of the innermost loop any access's index depends on.
    BufferFacts& b = groups_[g];
    int stride_level = -1;
    for (int l = depth - 1; l >= 0 && stride_level < 0; --l) {
      for (int i = first; i < end; ++i) {
        const double c = std::abs(Coeffs(accesses_[i])[l]);
        if (c == 0) continue;
        b.stride = stride_level < 0 ? c : std::min(b.stride, c);
        stride_level = l;
      }
    }
    b.bytes = count * outer_prod * elem_bytes;
    b.unique_bytes = fp[0] * elem_bytes;
    if (stride_level >= 0) {
      // Consecutive iterations of the stride loop share a line while stride x element < a line;
      // the loops inside it re-read the same element.
      const double line_share = std::min(1.0, b.stride * elem_bytes / kCacheLineBytes);
      b.lines = count * outer_prod / inner_prod_[stride_level + 1] * line_share;
      b.unique_lines = std::max(1.0, fp[0] * line_share);
    } else {
      b.lines = count;
      b.unique_lines = 1;
    }
  }

  // Reuse: the innermost loop none of the buffer's indices depends on carries it; otherwise
  // several accesses in one iteration read it again.
  for (int g = 0; g < num_groups; ++g) {
    const int first = group_first_[g], end = group_first_[g + 1];
    BufferFacts& b = groups_[g];
    for (int l = depth - 1; l >= 0; --l) {
      if (loops_[l].extent <= 1) continue;
      bool invariant = true;
      for (int i = first; i < end && invariant; ++i) invariant = Coeffs(accesses_[i])[l] == 0;
      if (!invariant) continue;
      b.reuse = kReuseLoopCarried;
      b.reuse_dis_iter = inner_prod_[l + 1];
      b.reuse_dis_bytes = level_bytes_[l + 1];
      b.reuse_ct = loops_[l].extent;
      break;
    }
    if (b.reuse == kReuseNone && end - first > 1) {
      b.reuse = kReuseSerialMultipleRead;
      b.reuse_dis_iter = 1;
      b.reuse_dis_bytes = level_bytes_[depth] / (end - first);
      b.reuse_ct = end - first;
    }
  }

  // The slots: largest bytes first (ties: lower buffer id), the written buffer always kept.
  std::sort(groups_.begin(), groups_.end(), [](const BufferFacts& x, const BufferFacts& y) {
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.buffer < y.buffer;
  });
  const int kept = std::min(num_groups, kBufferSlots);
  for (int s = 0; s < kept; ++s) facts->buffers[s] = groups_[s];
  if (num_groups > kBufferSlots) {
    bool written_kept = false;
    for (int s = 0; s < kept; ++s) written_kept = written_kept || groups_[s].buffer == write_buffer;
    for (int g = kept; g < num_groups && !written_kept; ++g) {
      if (groups_[g].buffer != write_buffer) continue;
      facts->buffers[kBufferSlots - 1] = groups_[g];
      written_kept = true;
    }
  }
}

// Float ops per distinct byte at each loop level, innermost first, as a curve over log2(ops);
// sampled at evenly spaced points of that axis by linear interpolation.
void StoreFeatureExtractor::SummarizeIntensity(StoreFacts* facts) {
  const int depth = static_cast<int>(loops_.size());
  double flops = 2 * ops_[kFloatMad];
  for (int k = kFloatAddSub; k <= kFloatOtherFunc; ++k) flops += ops_[k];
  if (depth == 0 || flops == 0) return;
  xs_.clear();
  ys_.clear();
  for (int l = depth - 1; l >= 0; --l) {
    const double ops = flops * inner_prod_[l];
    xs_.push_back(std::log2(1 + ops));
    ys_.push_back(ops / std::max(level_bytes_[l], 1.0));
  }
  int p = 0;
  for (int s = 0; s < kCurvePoints; ++s) {
    const double x = xs_[depth - 1] * (s + 1) / kCurvePoints;
    while (p < depth - 1 && xs_[p] < x - 1e-9) ++p;
    if (p == 0 || xs_[p] <= xs_[p - 1]) {
      facts->intensity[s] = ys_[p];
    } else {
      const double t = (x - xs_[p - 1]) / (xs_[p] - xs_[p - 1]);
      facts->intensity[s] = ys_[p - 1] + t * (ys_[p] - ys_[p - 1]);
    }
  }
}

}  // namespace

const std::vector<std::string>& StoreFeatureNames() {
  static const std::vector<std::string>* names = [] {
    NameSink sink;
    WriteRow(StoreFacts{}, sink);
    return new std::vector<std::string>(std::move(sink.names));
  }();
  return *names;
}

absl::StatusOr<FeatureMatrix> ExtractFeatures(const tir::PrimFunc& func) {
  const int cols = static_cast<int>(StoreFeatureNames().size());
  StoreFeatureExtractor extractor(func, cols);
  extractor.VisitStmt(func.body);
  if (!extractor.status().ok()) return extractor.status();
  FeatureMatrix m;
  m.rows = extractor.rows();
  m.cols = cols;
  m.values = extractor.TakeValues();
  return m;
}

}  // namespace tunefarm::tuner
