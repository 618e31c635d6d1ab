#include "compiler/schedule/default_rules.h"

#include <algorithm>
#include <set>

#include "common/check.h"
#include "common/strings.h"
#include "compiler/schedule/iter_lookup.h"
#include "compiler/schedule/padding_placement.h"

namespace tunefarm::schedule {
namespace {

// --- Facts the rules key on ---

int NumSpace(const State& s, int stage) { return s.stage(stage).num_space_axes; }
const te::StageAnalysis& Analysis(const State& s, int stage) { return s.dag().analysis(stage); }

bool AtRoot(const State& s, int stage) {
  const Stage& st = s.stage(stage);
  return !st.is_placeholder && st.location == ComputeLocation::kRoot;
}

// The stage axes a read's index expressions mention.
std::set<int64_t> AxesUsed(const std::vector<te::Expr>& indices) {
  std::set<int64_t> used;
  for (const te::Expr& i : indices)
    te::Visit(i, [&](const te::Expr& e) {
      if (e->kind == te::ExprKind::kAxis) used.insert(e->int_value);
    });
  return used;
}

// The space axis whose tile is reused across the vector axis: absent from a read that walks
// the vector (innermost) axis. GEMM C[i,j]: B[k,j] walks j and lacks i -> i. Conv NCHW: the
// input walks ow and lacks the output channel -> k. -1 when every read uses every axis.
int RowAxis(const State& s, int stage) {
  int n = NumSpace(s, stage);
  if (n < 2) return -1;
  int vector_axis = n - 1;
  int best = -1;
  for (const auto& [tensor, index_lists] : Analysis(s, stage).reads) {
    for (const auto& indices : index_lists) {
      const std::set<int64_t> used = AxesUsed(indices);
      if (!used.count(vector_axis)) continue;
      for (int a = n - 2; a >= 0; --a)
        if (!used.count(a) && s.dag().tensor(stage).shape[a] > 1) best = std::max(best, a);
    }
  }
  return best;
}

// A second reused axis for a register tile whose row is one vector: a space axis (not the
// vector or row axis) that the reads not walking the vector axis lack. NCHW[x]c conv: the
// input read (a broadcast) lacks the output-channel block axis, so two channel blocks share
// each broadcast. -1 when none.
int ColAxis(const State& s, int stage, int row_axis) {
  int n = NumSpace(s, stage);
  int vector_axis = n - 1;
  int best = -1;
  for (const auto& [tensor, index_lists] : Analysis(s, stage).reads) {
    for (const auto& indices : index_lists) {
      const std::set<int64_t> used = AxesUsed(indices);
      if (used.count(vector_axis)) continue;
      for (int a = 0; a < n - 1; ++a)
        if (a != row_axis && !used.count(a) && s.dag().tensor(stage).shape[a] > 1) best = std::max(best, a);
    }
  }
  return best;
}

// Columns per vector loop: the whole axis when it is short, else four, two or one vectors'
// worth, preferring a factor that divides the extent (a tail puts a guard inside the vector
// loop, and codegen then falls back to scalar code). Without a whole-vector divisor, a whole
// number of half vectors that divides: 1000 classes in 16 lanes take 40 (2.5 vectors), where a
// 16-lane split ran the dense layer scalar at 0.1x of sgemv.
int64_t VectorFactor(int64_t extent, int lanes) {
  if (extent <= 4 * lanes) return extent;
  for (int64_t f : {4 * lanes, 2 * lanes, lanes})
    if (extent % f == 0) return f;
  const int64_t half = std::max(1, lanes / 2);
  for (int64_t f = 4 * lanes; f >= half; f -= half)
    if (extent % f == 0) return f;
  return lanes;
}

// Splits space axis `axis` by `factor` unless the factor covers it; returns the inner name.
absl::Status SplitAxis(State* s, int stage, int axis, int64_t factor, std::string* inner) {
  std::string name = StrCat("i", axis);
  int64_t extent = s->dag().tensor(stage).shape[axis];
  if (factor >= extent) {
    *inner = name;
    return absl::OkStatus();
  }
  *inner = name + ".1";
  return s->Split(stage, FindIter(*s, stage, name), {factor});
}

struct Tiling {
  int row_axis = -1, col_axis = -1;
  int64_t row_factor = 1, col_factor = 1, vector_factor = 1;
  bool unroll_inner_reduce = false;  // a short innermost reduce loop (a channel block) unrolled
  // The vector axis's outer loop runs just outside the row axis's (ChooseMultiVectorTile says when).
  bool columns_outside_rows = false;
  // A single output row (a dense layer on one input): nothing to reuse across rows, so the
  // stage streams its operand row by row instead (TileAsStream).
  bool stream = false;
  int64_t stream_parts = 1;   // parallel parts of the vector axis
  int64_t stream_reduce = 1;  // reduce steps per pass over the output (unrolled)
};

int64_t LargestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t d = std::min(extent, limit); d > 1; --d)
    if (extent % d == 0) return d;
  return 1;
}

// A tile of one vector per row (NCHW[x]c conv: the channel block is the vector) holds
// col x row accumulators; with col operand vectors and one broadcast they must fit the vector
// registers (32 with AVX-512 and on AArch64, else 16), and with 32 at most 16 accumulators: 2x14 (31
// registers) ran at half the speed of 2x7 (MobileNetV2's pointwise convs, kernel_bench). Per
// reduce step the tile loads col + row operands for col * row FMAs, so the split with the best
// ratio wins (ties: the first, fewer weight streams); factors divide their extents (no tail
// guards).
void ChooseOneVectorTile(const State& s, int stage, const RuleContext& ctx, Tiling* t) {
  const auto& shape = s.dag().tensor(stage).shape;
  const int64_t registers = ctx.Registers();
  const int col_axis = ColAxis(s, stage, t->row_axis);
  auto rows_for = [&](int64_t col) {
    return LargestDivisorAtMost(shape[t->row_axis], std::min<int64_t>(registers - col - 1, 16) / col);
  };
  double best_ratio = 0;
  for (int64_t col : {int64_t{2}, int64_t{4}, int64_t{1}}) {
    if (col > 1 && (col_axis < 0 || shape[col_axis] % col != 0)) continue;
    const int64_t rows = rows_for(col);
    double ratio = static_cast<double>(col * rows) / static_cast<double>(col + rows);
    if (ratio > best_ratio) {
      best_ratio = ratio;
      t->row_factor = rows;
      t->col_factor = col;
      t->col_axis = col > 1 ? col_axis : -1;
    }
  }
  t->unroll_inner_reduce = true;
}

// Columns per vector loop of a streamed part: a divisor of the part up to four vectors, a whole
// number of half vectors if one divides, else at least one vector; 0 when none divides.
int64_t StreamVectorFactor(int64_t part, int lanes) {
  const int64_t half = std::max(1, lanes / 2);
  for (int64_t f = 4 * lanes; f >= half; f -= half)
    if (part % f == 0) return f;
  for (int64_t f = 4 * lanes; f >= lanes; --f)
    if (part % f == 0) return f;
  return 0;
}

// A matrix-vector product: every space axis but the vector axis has extent 1, and every read
// that walks the vector axis walks it contiguously (its last index uses it). Then each part of
// the output can stay in L1 while the operand streams through in order; a register tile with
// the reduction inside would read the operand in short strided strips, which the prefetchers
// do not follow (dense 1x1000x512: 0.2x of sgemv that way, 0.7x streamed).
bool ChooseStream(const State& s, int stage, const RuleContext& ctx, Tiling* t) {
  const auto& shape = s.dag().tensor(stage).shape;
  const int n = NumSpace(s, stage);
  if (n == 0 || s.stage(stage).num_reduce_axes == 0 || shape[n - 1] <= 4 * ctx.vector_lanes) return false;
  for (int a = 0; a < n - 1; ++a)
    if (shape[a] != 1) return false;
  for (const auto& [tensor, index_lists] : Analysis(s, stage).reads)
    for (const auto& indices : index_lists)
      if (AxesUsed(indices).count(n - 1) && !AxesUsed({indices.back()}).count(n - 1)) return false;
  for (int64_t parts = std::max(1, ctx.num_threads); parts >= 1; --parts) {
    if (shape[n - 1] % parts != 0) continue;
    const int64_t vec = StreamVectorFactor(shape[n - 1] / parts, ctx.vector_lanes);
    if (vec == 0) continue;
    t->stream = true;
    t->stream_parts = parts;
    t->vector_factor = vec;
    const int64_t reduce = s.stage(stage).node_of(static_cast<int>(s.stage(stage).iters.size()) - 1).extent;
    t->stream_reduce = reduce % 8 == 0 ? 8 : reduce % 4 == 0 ? 4 : 1;
    return true;
  }
  return false;
}

// Most rows of a tile of several vectors a row: with four vectors, eight rows already ask for
// 37 registers.
constexpr int64_t kMaxTileRows = 8;

// Rows of a tile where no divisor of the row axis up to the cap is this large (a prime M such as
// ViT's 197 tokens): this many, the last row tile guarded, as the rule before the register
// budget had it, rather than a tile of one row.
constexpr int64_t kGuardedTileRows = 4;

// A tile of several vectors a row (a GEMM: rows of A broadcast, columns of B in vectors) holds
// rows x vectors accumulators; with the row of B's vectors and a broadcast of A they must fit
// the vector registers, else LLVM spills accumulators inside the reduce loop. The widths tried
// are VectorFactor's, then four, three, two and one vectors where they divide the axis; the one
// whose tile does the most FMAs per load (rows * vectors / (rows + vectors)) wins, ties keeping
// the wider. Rows divide their axis where a divisor of at least kGuardedTileRows fits. The
// transformer's 128 x 768 projection with AVX-512 (32 registers): 8 rows x 3 vectors, where
// 8 x 4 (32 accumulators) spilled; with AVX2 (16 registers): 4 x 3.
//
// A GEMM-like tile (nothing but 1-long axes between its row and vector axes) wider than it is
// tall runs its column strips just outside its row tiles. Each of those loops streams the
// operand it does not keep: rows outside read all of B (K x N) once per row tile, M / rows
// times; columns outside read A (M x K) once per column strip, N / width times, and B's strip
// stays in cache across the row tiles. The untuned transformer (its GEMMs 128 rows by 256 to
// 1,024) ran 1.17-1.30x faster so, at 1 and 2 threads, timed in turns. Not for an NCHW conv,
// whose output rows lie between its channel (row) and column axes.
void ChooseMultiVectorTile(const std::vector<int64_t>& shape, const RuleContext& ctx, Tiling* t) {
  const int64_t row_extent = shape[t->row_axis], vector_extent = shape.back();
  const int64_t lanes = ctx.vector_lanes, registers = ctx.Registers();
  const int64_t widest = t->vector_factor;
  double best_ratio = 0;
  for (int64_t width : {widest, 4 * lanes, 3 * lanes, 2 * lanes, lanes}) {
    if (width > widest || (width != widest && vector_extent % width != 0)) continue;
    const int64_t vectors = (width + lanes - 1) / lanes;
    const int64_t fit = (registers - vectors - 1) / vectors;
    if (fit < 1) continue;
    const int64_t cap = std::min(kMaxTileRows, fit);
    int64_t rows = LargestDivisorAtMost(row_extent, cap);
    if (rows < std::min(kGuardedTileRows, cap) && row_extent > cap) rows = std::min(kGuardedTileRows, cap);
    const double ratio = static_cast<double>(rows * vectors) / static_cast<double>(rows + vectors);
    if (ratio > best_ratio * (1 + 1e-9)) {
      best_ratio = ratio;
      t->row_factor = rows;
      t->vector_factor = width;
    }
  }
  bool gemm_like = true;
  for (size_t a = t->row_axis + 1; a + 1 < shape.size(); ++a) gemm_like = gemm_like && shape[a] == 1;
  t->columns_outside_rows = gemm_like && t->vector_factor > t->row_factor;
}

Tiling ChooseTiling(const State& s, int reuse_stage, const RuleContext& ctx) {
  Tiling t;
  if (ChooseStream(s, reuse_stage, ctx, &t)) return t;
  const auto& shape = s.dag().tensor(reuse_stage).shape;
  t.row_axis = RowAxis(s, reuse_stage);
  t.vector_factor = VectorFactor(shape.back(), ctx.vector_lanes);
  if (t.row_axis < 0) return t;
  if (t.vector_factor <= ctx.vector_lanes)
    ChooseOneVectorTile(s, reuse_stage, ctx, &t);
  else
    ChooseMultiVectorTile(shape, ctx, &t);
  return t;
}

// Splits the vector axis into parts x strips x vector and the innermost reduce axis by
// stream_reduce, then orders loops as
//   [outer space parts] [reduce outer] [strips] [reduce inner, unrolled] [vector]
// so that the output's vectors are loaded and stored once per stream_reduce operand rows.
// Returns the number of outer loops.
absl::StatusOr<int> TileAsStream(State* s, int stage, const Tiling& t) {
  const int n = NumSpace(*s, stage);
  const int64_t extent = s->dag().tensor(stage).shape[n - 1];
  const std::string vec = StrCat("i", n - 1);
  if (auto st = s->Split(stage, FindIter(*s, stage, vec), {extent / t.stream_parts / t.vector_factor, t.vector_factor});
      !st.ok())
    return st;
  const Stage& before = s->stage(stage);
  std::string reduce_inner;
  if (before.num_reduce_axes > 0 && t.stream_reduce > 1) {
    const int last = static_cast<int>(before.iters.size()) - 1;  // the innermost reduce axis
    reduce_inner = before.node_of(last).name + ".1";
    if (auto st = s->Split(stage, last, {t.stream_reduce}); !st.ok()) return st;
  }
  const Stage& st = s->stage(stage);
  std::vector<int> outer, reduce;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    const IterNode& node = st.node_of(i);
    if (node.name == vec + ".1" || node.name == vec + ".2" || node.name == reduce_inner) continue;
    (node.kind == IterKind::kReduce ? reduce : outer).push_back(i);
  }
  std::vector<int> order = outer;
  order.insert(order.end(), reduce.begin(), reduce.end());
  order.push_back(FindIter(*s, stage, vec + ".1"));
  if (!reduce_inner.empty()) order.push_back(FindIter(*s, stage, reduce_inner));
  order.push_back(FindIter(*s, stage, vec + ".2"));
  if (auto r = s->Reorder(stage, order); !r.ok()) return r;
  const int last = static_cast<int>(order.size()) - 1;
  if (auto r = s->Annotate(stage, last, IterAnnotation::kVectorize); !r.ok()) return r;
  if (!reduce_inner.empty())
    if (auto r = s->Annotate(stage, last - 1, IterAnnotation::kUnroll); !r.ok()) return r;
  return static_cast<int>(outer.size());
}

// Splits the col, row and vector axes, then orders loops as
//   [outer space parts] [reduce axes] [col tile] [row tile] [vector tile]
// with the col and row tiles unrolled and the vector tile vectorized; the outer parts in axis
// order, but a GEMM-like tile's column strips just outside its row tiles
// (Tiling::columns_outside_rows). Returns the number of outer loops.
absl::StatusOr<int> TileForRegisters(State* s, int stage, const Tiling& t) {
  if (t.stream) return TileAsStream(s, stage, t);
  int n = NumSpace(*s, stage);
  std::string col_inner, row_inner, vec_inner;
  if (t.col_axis >= 0)
    if (auto st = SplitAxis(s, stage, t.col_axis, t.col_factor, &col_inner); !st.ok()) return st;
  if (t.row_axis >= 0)
    if (auto st = SplitAxis(s, stage, t.row_axis, t.row_factor, &row_inner); !st.ok()) return st;
  if (auto st = SplitAxis(s, stage, n - 1, t.vector_factor, &vec_inner); !st.ok()) return st;
  const Stage& st = s->stage(stage);
  std::vector<int> outer, reduce, inner;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    const IterNode& node = st.node_of(i);
    if (node.name == col_inner || node.name == row_inner || node.name == vec_inner) continue;
    (node.kind == IterKind::kReduce ? reduce : outer).push_back(i);
  }
  // Both split (else a whole axis is inside the tile, and the order of the others is moot).
  if (t.columns_outside_rows && vec_inner != StrCat("i", n - 1) && row_inner != StrCat("i", t.row_axis)) {
    const int columns = FindIter(*s, stage, StrCat("i", n - 1, ".0"));
    const int rows = FindIter(*s, stage, StrCat("i", t.row_axis, ".0"));
    TF_CHECK(columns >= 0 && rows >= 0, "the split column and row loops");
    outer.erase(std::find(outer.begin(), outer.end(), columns));
    outer.insert(std::find(outer.begin(), outer.end(), rows), columns);
  }
  if (!col_inner.empty()) inner.push_back(FindIter(*s, stage, col_inner));
  if (!row_inner.empty()) inner.push_back(FindIter(*s, stage, row_inner));
  inner.push_back(FindIter(*s, stage, vec_inner));
  std::vector<int> order = outer;
  order.insert(order.end(), reduce.begin(), reduce.end());
  order.insert(order.end(), inner.begin(), inner.end());
  if (auto r = s->Reorder(stage, order); !r.ok()) return r;
  int last = static_cast<int>(order.size()) - 1;
  if (auto r = s->Annotate(stage, last, IterAnnotation::kVectorize); !r.ok()) return r;
  if (!row_inner.empty() && s->stage(stage).node_of(last - 1).extent > 1)
    if (auto r = s->Annotate(stage, last - 1, IterAnnotation::kUnroll); !r.ok()) return r;
  if (!col_inner.empty() && s->stage(stage).node_of(last - 2).extent > 1)
    if (auto r = s->Annotate(stage, last - 2, IterAnnotation::kUnroll); !r.ok()) return r;
  // The input-channel lanes of a block: a short loop whose overhead a small tile cannot hide.
  const int last_reduce = static_cast<int>(outer.size() + reduce.size()) - 1;
  if (t.unroll_inner_reduce && !reduce.empty() && s->stage(stage).node_of(last_reduce).extent <= 16 &&
      s->stage(stage).node_of(last_reduce).extent > 1)
    if (auto r = s->Annotate(stage, last_reduce, IterAnnotation::kUnroll); !r.ok()) return r;
  return static_cast<int>(outer.size());
}

// Waking the thread pool costs microseconds per kernel call; a stage with fewer points than
// this (output points times reduce points) runs faster on one thread. The tuner measured
// 6-85x on small elementwise kernels of the transformer run without `parallel`.
constexpr int64_t kMinParallelPoints = int64_t{1} << 16;

// The stage's loop-nest points: the product of its leaf loop extents.
int64_t StagePoints(const State& s, int stage) {
  int64_t points = 1;
  for (size_t i = 0; i < s.stage(stage).iters.size(); ++i) points *= s.stage(stage).node_of(static_cast<int>(i)).extent;
  return points;
}

// Fuses loops [0, count) and runs them in parallel (when there is more than one iteration and
// `work` points, counted by the caller, pay for waking the pool).
absl::Status ParallelizeOuter(State* s, int stage, int count, int64_t work) {
  if (count <= 0) return absl::OkStatus();
  if (count > 1)
    if (auto st = s->Fuse(stage, [&] {
          std::vector<int> v(count);
          for (int i = 0; i < count; ++i) v[i] = i;
          return v;
        }());
        !st.ok())
      return st;
  if (s->stage(stage).node_of(0).extent <= 1 || work < kMinParallelPoints) return absl::OkStatus();
  return s->Annotate(stage, 0, IterAnnotation::kParallel);
}

// The one reuse-heavy stage whose only reader (through inlined stages) is `stage`.
int TiledProducerOf(const State& s, int stage) {
  for (int p = 0; p < stage; ++p) {
    // An output (TopK's indices, read by its values) must be stored whole: it cannot move into a reader's tiles.
    if (!AtRoot(s, p) || !Analysis(s, p).needs_multi_level_tiling || Analysis(s, p).is_output) continue;
    std::vector<int> readers = s.EffectiveConsumers(p);
    if (readers.size() == 1 && readers[0] == stage && s.dag().tensor(p).shape == s.dag().tensor(stage).shape) return p;
  }
  return -1;
}

// --- The rules ---

// Cheap producers are inlined, except a conv's padding worth computing once (padding_placement.h).
bool InlineCondition(const State& s, int stage, const RuleContext& ctx) {
  return AtRoot(s, stage) && Analysis(s, stage).strictly_inlinable && !PaddingWorthComputingOnce(s, stage, ctx.vector_lanes);
}
absl::Status InlineApply(State* s, int stage, const RuleContext&) { return s->ComputeInline(stage); }

bool EpilogueCondition(const State& s, int stage, const RuleContext&) {
  return AtRoot(s, stage) && !Analysis(s, stage).has_reduction && TiledProducerOf(s, stage) >= 0;
}
absl::Status EpilogueApply(State* s, int stage, const RuleContext& ctx) {
  int producer = TiledProducerOf(*s, stage);
  Tiling t = ChooseTiling(*s, producer, ctx);
  const int64_t work = StagePoints(*s, producer);  // the epilogue's tiles carry the producer's loops
  auto outer = TileForRegisters(s, stage, t);
  if (!outer.ok()) return outer.status();
  if (auto st = ParallelizeOuter(s, stage, *outer, work); !st.ok()) return st;
  // A single tile has no loop to host the producer: it stays at the root for the tile rule.
  if (*outer == 0) return absl::OkStatus();
  if (auto st = s->ComputeAt(producer, stage, 0); !st.ok()) return st;
  return TileForRegisters(s, producer, t).status();
}

bool TileCondition(const State& s, int stage, const RuleContext&) {
  return AtRoot(s, stage) && Analysis(s, stage).needs_multi_level_tiling;
}
absl::Status TileApply(State* s, int stage, const RuleContext& ctx) {
  auto outer = TileForRegisters(s, stage, ChooseTiling(*s, stage, ctx));
  if (!outer.ok()) return outer.status();
  return ParallelizeOuter(s, stage, *outer, StagePoints(*s, stage));
}

bool ReductionCondition(const State& s, int stage, const RuleContext&) {
  return AtRoot(s, stage) && Analysis(s, stage).has_reduction;
}
absl::Status ReductionApply(State* s, int stage, const RuleContext& ctx) {
  int n = NumSpace(*s, stage);
  if (n == 0) return absl::OkStatus();
  if (n == 1) return ParallelizeOuter(s, stage, 1, StagePoints(*s, stage));  // one row per task, reduce inside
  // Move the innermost space loop inside the reduce loops and vectorize it.
  std::string vec_inner;
  if (auto st = SplitAxis(s, stage, n - 1, VectorFactor(s->dag().tensor(stage).shape[n - 1], ctx.vector_lanes), &vec_inner);
      !st.ok())
    return st;
  const Stage& st = s->stage(stage);
  std::vector<int> outer, reduce;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    if (st.node_of(i).name == vec_inner) continue;
    (st.node_of(i).kind == IterKind::kReduce ? reduce : outer).push_back(i);
  }
  std::vector<int> order = outer;
  order.insert(order.end(), reduce.begin(), reduce.end());
  order.push_back(FindIter(*s, stage, vec_inner));
  if (auto r = s->Reorder(stage, order); !r.ok()) return r;
  if (auto r = s->Annotate(stage, static_cast<int>(order.size()) - 1, IterAnnotation::kVectorize); !r.ok()) return r;
  return ParallelizeOuter(s, stage, static_cast<int>(outer.size()), StagePoints(*s, stage));
}

// Inner loops of a many-load stage left serial for unrolling: at most this many iterations,
// unrolled up to this many statements.
constexpr int64_t kMaxUnrolledTransform = 64;
constexpr int kTransformUnrollSteps = 512;

// Parallel tasks per thread an elementwise stage's fused outer loop should have at least: with
// fewer, one thread can get twice the work of another.
constexpr int64_t kElementwiseTasksPerThread = 8;

// How many of the loops [0, available) an elementwise stage fuses into its parallel loop: the
// fewest whose iterations give every thread enough tasks, or none when the stage is too small to
// run in parallel. Each fused loop costs a division and a remainder per iteration to recover its
// index; loops left inside stay plain loops (and a serial loop around a narrow vector loop can be
// widened: lane_groups.h). Packing a tensor into NCHW16c with all four outer loops fused spent
// most of its time on those divisions.
int ParallelPrefix(const State& s, int stage, int available, const RuleContext& ctx) {
  if (StagePoints(s, stage) < kMinParallelPoints) return 0;
  const int64_t wanted = kElementwiseTasksPerThread * std::max(ctx.num_threads, 1);
  int64_t iterations = 1;
  for (int i = 0; i < available; ++i) {
    iterations *= s.stage(stage).node_of(i).extent;
    if (iterations >= wanted) return i + 1;
  }
  return available;
}

bool ElementwiseCondition(const State& s, int stage, const RuleContext&) { return AtRoot(s, stage); }
// Vectorizes the innermost axis on its own and runs the loops around it (fused) in parallel.
// Fusing every axis before splitting off the vector would give each lane an index that is a
// div/mod of the fused index, which codegen can only gather and scatter: Concat and layout
// conversions in NCHW[x]c ran 10-20x slower that way.
absl::Status ElementwiseApply(State* s, int stage, const RuleContext& ctx) {
  const int n = NumSpace(*s, stage);
  if (n == 0) return absl::OkStatus();
  const int64_t inner = s->stage(stage).node_of(n - 1).extent;
  const int64_t vf = VectorFactor(inner, ctx.vector_lanes);
  int outer = n - 1;
  if (vf < inner) {
    if (auto st = s->Split(stage, n - 1, {vf}); !st.ok()) return st;
    outer = n;
  }
  // A stage reading many elements per point (a Winograd transform: select chains over its
  // small inner axes) keeps those axes serial and unrolled, so that the chains fold.
  int unrolled = 0;
  if (Analysis(*s, stage).loads > te::StageAnalysis::kMaxInlinedLoads) {
    int64_t product = 1;
    for (int i = outer - 1; i > 0 && product * s->stage(stage).node_of(i).extent <= kMaxUnrolledTransform; --i) {
      product *= s->stage(stage).node_of(i).extent;
      ++unrolled;
    }
  }
  if (auto st = ParallelizeOuter(s, stage, ParallelPrefix(*s, stage, outer - unrolled, ctx), StagePoints(*s, stage));
      !st.ok())
    return st;
  if (unrolled > 0)
    if (auto st = s->PragmaAutoUnroll(stage, 0, kTransformUnrollSteps); !st.ok()) return st;
  const int last = static_cast<int>(s->stage(stage).iters.size()) - 1;
  if (s->stage(stage).node_of(last).extent <= 1) return absl::OkStatus();
  return s->Annotate(stage, last, IterAnnotation::kVectorize);
}

}  // namespace

const std::vector<ScheduleRule>& DefaultRules() {
  static const std::vector<ScheduleRule> kRules = {
      {"inline", InlineCondition, InlineApply},
      {"tile+epilogue", EpilogueCondition, EpilogueApply},
      {"tile", TileCondition, TileApply},
      {"reduction", ReductionCondition, ReductionApply},
      {"elementwise", ElementwiseCondition, ElementwiseApply},
  };
  return kRules;
}

absl::StatusOr<State> ApplyDefaultSchedule(std::shared_ptr<const te::ComputeDag> dag, const RuleContext& ctx,
                                           std::vector<std::string>* applied) {
  State state(std::move(dag));
  const auto& rules = DefaultRules();
  auto run = [&](int stage, size_t first_rule, size_t end_rule) -> absl::Status {
    for (size_t r = first_rule; r < end_rule; ++r) {
      if (!rules[r].condition(state, stage, ctx)) continue;
      if (auto st = rules[r].apply(&state, stage, ctx); !st.ok())
        return absl::InternalError(StrCat("default rule '", rules[r].name, "' on stage ", stage, ": ",
                                          std::string(st.message())));
      if (applied) applied->push_back(StrCat(state.dag().tensor(stage).name, ": ", rules[r].name));
      return absl::OkStatus();
    }
    return absl::OkStatus();
  };
  // Inlining first, so the other rules see readers through inlined stages; then the rest,
  // outputs first, so an epilogue claims its producer before the producer is visited.
  for (int stage = state.dag().num_tensors() - 1; stage >= 0; --stage)
    if (auto st = run(stage, 0, 1); !st.ok()) return st;
  for (int stage = state.dag().num_tensors() - 1; stage >= 0; --stage)
    if (auto st = run(stage, 1, rules.size()); !st.ok()) return st;
  return state;
}

}  // namespace tunefarm::schedule
