// Per-store program features: hand-built loop nests whose features are known by hand, then
// programs the search space draws for a GEMM and a conv2d, lowered as the tuner lowers them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/elementwise.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/stmt_functor.h"
#include "tests/common/test_dags.h"
#include "tuner/features/program_features.h"
#include "tuner/search_space/initial_population.h"

namespace tunefarm::tuner {
namespace {

using tunefarm::testing::ConvBiasReluDag;

using te::DType;
using te::Expr;
using tir::ForKind;
using tir::Stmt;

// --- Helpers ---

int Col(const std::string& name) {
  const auto& names = StoreFeatureNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

float At(const FeatureMatrix& m, int row, const std::string& name) { return m.row(row)[Col(name)]; }

double Slog(double x) { return std::log2(1 + x); }

tir::Buffer Buf(std::string name, std::vector<int64_t> shape, tir::BufferScope scope = tir::BufferScope::kArg) {
  tir::Buffer b;
  b.name = std::move(name);
  b.dtype = DType::kFloat32;
  b.shape = std::move(shape);
  b.scope = scope;
  return b;
}

Expr Var(const char* name, int64_t id) { return te::MakeVar(name, id); }
Expr Ld(int buffer, Expr index) { return te::Load(DType::kFloat32, buffer, {std::move(index)}); }
Expr F(double v) { return te::FloatImm(DType::kFloat32, v); }

tir::PrimFunc Func(std::vector<tir::Buffer> buffers, Stmt body) {
  tir::PrimFunc f;
  f.name = "f";
  f.buffers = std::move(buffers);
  f.num_args = static_cast<int>(f.buffers.size());
  f.body = std::move(body);
  return f;
}

FeatureMatrix Extract(const tir::PrimFunc& f) {
  auto m = ExtractFeatures(f);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : FeatureMatrix{};
}

int CountStores(const Stmt& s) {
  int n = 0;
  tir::PreOrderVisit(s, [&](const Stmt& st) { n += st->kind == tir::StmtKind::kStore; });
  return n;
}

// C[i, j] += A[i, k] * B[k, j], loops i j k (k innermost); buffers A 0, B 1, C 2.
constexpr int64_t kM = 64, kN = 32, kK = 16;
tir::PrimFunc HandGemm() {
  Expr i = Var("i", 0), j = Var("j", 1), k = Var("k", 2);
  Expr c_index = i * Expr(kN) + j;
  Stmt update = tir::Store(2, c_index, Ld(2, c_index) + Ld(0, i * Expr(kK) + k) * Ld(1, k * Expr(kN) + j));
  Stmt nest = tir::For(i, Expr(kM), ForKind::kSerial,
                       tir::For(j, Expr(kN), ForKind::kSerial, tir::For(k, Expr(kK), ForKind::kSerial, update)));
  return Func({Buf("A", {kM, kK}), Buf("B", {kK, kN}), Buf("C", {kM, kN})}, nest);
}

// --- The columns ---

TEST(StoreFeatureNamesTest, AreUniqueAndAsManyAsTheColumns) {
  const auto& names = StoreFeatureNames();
  EXPECT_GE(names.size(), 150u);
  EXPECT_LE(names.size(), 180u);
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  EXPECT_EQ(unique.count(""), 0u);
  FeatureMatrix m = Extract(HandGemm());
  EXPECT_EQ(m.cols, static_cast<int>(names.size()));
  EXPECT_EQ(m.values.size(), static_cast<size_t>(m.rows) * m.cols);
}

// --- Hand-built nests ---

TEST(ProgramFeaturesTest, GemmCountsOneMultiplyAddPerIteration) {
  FeatureMatrix m = Extract(HandGemm());
  ASSERT_EQ(m.rows, 1);
  const double iters = kM * kN * kK;
  EXPECT_FLOAT_EQ(At(m, 0, "float_mad"), Slog(iters));
  EXPECT_FLOAT_EQ(At(m, 0, "float_mul"), 0);
  EXPECT_FLOAT_EQ(At(m, 0, "float_addsub"), 0);
  // Index arithmetic: i*N + j twice (store and load of C), i*K + k, k*N + j: four int mads.
  EXPECT_FLOAT_EQ(At(m, 0, "int_mad"), Slog(4 * iters));
  EXPECT_FLOAT_EQ(At(m, 0, "outer_prod"), Slog(iters));
  EXPECT_EQ(At(m, 0, "num_loops"), 3);
  EXPECT_EQ(At(m, 0, "reduction_update"), 1);
  EXPECT_EQ(At(m, 0, "scope_arg"), 1);
}

TEST(ProgramFeaturesTest, GemmBuffersHaveTheirBytesStridesAndReuse) {
  FeatureMatrix m = Extract(HandGemm());
  ASSERT_EQ(m.rows, 1);
  const double iters = kM * kN * kK;
  // Slots by bytes: C (read and written every iteration), then A and B (ties: lower id first).
  // C: read-write, reused across k (the innermost loop) K times, one iteration apart.
  EXPECT_EQ(At(m, 0, "b0.acc_rw"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b0.bytes"), Slog(2 * iters * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.unique_bytes"), Slog(kM * kN * 4));
  EXPECT_EQ(At(m, 0, "b0.reuse_loop_carried"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b0.reuse_ct"), Slog(kK));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.reuse_dis_iter"), Slog(1));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.stride"), Slog(1));  // along j
  // A[i, k]: read, reused across j, K iterations apart.
  EXPECT_EQ(At(m, 0, "b1.acc_read"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b1.bytes"), Slog(iters * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b1.unique_bytes"), Slog(kM * kK * 4));
  EXPECT_EQ(At(m, 0, "b1.reuse_loop_carried"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b1.reuse_ct"), Slog(kN));
  EXPECT_FLOAT_EQ(At(m, 0, "b1.reuse_dis_iter"), Slog(kK));
  EXPECT_FLOAT_EQ(At(m, 0, "b1.stride"), Slog(1));
  // B[k, j]: reused across i, N*K iterations apart; stride N along k.
  EXPECT_FLOAT_EQ(At(m, 0, "b2.unique_bytes"), Slog(kK * kN * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.reuse_ct"), Slog(kM));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.reuse_dis_iter"), Slog(kN * kK));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.stride"), Slog(kN));
  // Reuse distance in bytes for B: what one i iteration touches, all of B, a row of A and of C.
  EXPECT_FLOAT_EQ(At(m, 0, "b2.reuse_dis_bytes"), Slog((kK * kN + kK + kN) * 4));
  // Unused slots are zero.
  for (const char* name : {"b3.bytes", "b3.acc_read", "b4.reuse_none", "b4.stride"}) EXPECT_EQ(At(m, 0, name), 0);
  // The intensity curve ends at the whole nest: 2 flops per iteration over all distinct bytes.
  const double whole = 2 * iters / ((kM * kN + kM * kK + kK * kN) * 4.0);
  EXPECT_NEAR(At(m, 0, "arith_intensity_curve_9"), whole, 1e-3 * whole);
  EXPECT_GT(At(m, 0, "arith_intensity_curve_0"), 0);
}

TEST(ProgramFeaturesTest, VectorizedAndParallelLoopsHaveLengthsAndPositions) {
  // for i in 16 (parallel): for j in 8 (vectorized): y[i*8 + j] = x[i*8 + j] * 2
  Expr i = Var("i", 0), j = Var("j", 1);
  Expr index = i * Expr(8) + j;
  Stmt nest = tir::For(i, Expr(16), ForKind::kParallel,
                       tir::For(j, Expr(8), ForKind::kVectorized, tir::Store(1, index, Ld(0, index) * F(2))));
  FeatureMatrix m = Extract(Func({Buf("x", {128}), Buf("y", {128})}, nest));
  ASSERT_EQ(m.rows, 1);
  EXPECT_EQ(At(m, 0, "vec_num"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "vec_len"), Slog(8));
  EXPECT_FLOAT_EQ(At(m, 0, "vec_prod"), Slog(8));
  EXPECT_EQ(At(m, 0, "vec_pos_inner_spatial"), 1);
  EXPECT_EQ(At(m, 0, "vec_pos_none"), 0);
  EXPECT_EQ(At(m, 0, "parallel_num"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "parallel_len"), Slog(16));
  EXPECT_EQ(At(m, 0, "parallel_pos_outer_spatial"), 1);
  EXPECT_EQ(At(m, 0, "unroll_num"), 0);
  EXPECT_EQ(At(m, 0, "unroll_pos_none"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "float_mul"), Slog(128));
  EXPECT_FLOAT_EQ(At(m, 0, "innermost_extent"), Slog(8));
}

TEST(ProgramFeaturesTest, UnrolledReduceLoopIsAtAReducePosition) {
  // for i in 32: for r in 4 (unrolled): y[i] = y[i] + x[i*4 + r]
  Expr i = Var("i", 0), r = Var("r", 1);
  Stmt nest = tir::For(i, Expr(32), ForKind::kSerial,
                       tir::For(r, Expr(4), ForKind::kUnrolled, tir::Store(1, i, Ld(1, i) + Ld(0, i * Expr(4) + r))));
  FeatureMatrix m = Extract(Func({Buf("x", {128}), Buf("y", {32})}, nest));
  ASSERT_EQ(m.rows, 1);
  EXPECT_EQ(At(m, 0, "unroll_pos_inner_reduce"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "unroll_len"), Slog(4));
  EXPECT_FLOAT_EQ(At(m, 0, "float_addsub"), Slog(128));
}

TEST(ProgramFeaturesTest, StridedReadHasItsStrideAndCacheLines) {
  // for i in 32: for j in 4: y[i*4 + j] = x[j*32 + i]   (a transposed read)
  Expr i = Var("i", 0), j = Var("j", 1);
  Stmt nest = tir::For(i, Expr(32), ForKind::kSerial,
                       tir::For(j, Expr(4), ForKind::kSerial, tir::Store(1, i * Expr(4) + j, Ld(0, j * Expr(32) + i))));
  FeatureMatrix m = Extract(Func({Buf("x", {128}), Buf("y", {128})}, nest));
  ASSERT_EQ(m.rows, 1);
  // Same bytes: x (id 0) first.
  EXPECT_EQ(At(m, 0, "b0.acc_read"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b0.stride"), Slog(32));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.bytes"), Slog(128 * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.unique_bytes"), Slog(128 * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.lines"), Slog(128));        // 128-byte stride: a line per access
  EXPECT_FLOAT_EQ(At(m, 0, "b0.unique_lines"), Slog(128));
  EXPECT_EQ(At(m, 0, "b0.reuse_none"), 1);
  EXPECT_EQ(At(m, 0, "b1.acc_write"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b1.stride"), Slog(1));
  EXPECT_FLOAT_EQ(At(m, 0, "b1.lines"), Slog(128 * 4 / 64.0));  // contiguous: 16 floats a line
  EXPECT_FLOAT_EQ(At(m, 0, "b1.unique_lines"), Slog(8));
}

TEST(ProgramFeaturesTest, UniqueBytesCountIndexValuesOrSpanWhicheverIsLess) {
  // for i in 8: for r in 3: for j in 4: y[i*4 + j] = y[i*4 + j] + x[i + r] * w[j*100 + r]
  //   x: a sliding window, 24 index values over a span of 10 elements;
  //   w: sparse, 12 index values over a span of 303.
  Expr i = Var("i", 0), r = Var("r", 1), j = Var("j", 2);
  Expr y_index = i * Expr(4) + j;
  Stmt update = tir::Store(2, y_index, Ld(2, y_index) + Ld(0, i + r) * Ld(1, j * Expr(100) + r));
  Stmt nest = tir::For(i, Expr(8), ForKind::kSerial,
                       tir::For(r, Expr(3), ForKind::kSerial, tir::For(j, Expr(4), ForKind::kSerial, update)));
  FeatureMatrix m = Extract(Func({Buf("x", {10}), Buf("w", {400}), Buf("y", {32})}, nest));
  ASSERT_EQ(m.rows, 1);
  // Slots: y (read and written), then x and w (same bytes, lower id first).
  EXPECT_EQ(At(m, 0, "b0.acc_rw"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b1.unique_bytes"), Slog(10 * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.unique_bytes"), Slog(12 * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.stride"), Slog(100));
  // x is reused across j (innermost), w across i (outermost) after 12 iterations.
  EXPECT_FLOAT_EQ(At(m, 0, "b1.reuse_ct"), Slog(4));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.reuse_ct"), Slog(8));
  EXPECT_FLOAT_EQ(At(m, 0, "b2.reuse_dis_iter"), Slog(12));
  // y is reused across r (the middle loop), 4 iterations apart.
  EXPECT_FLOAT_EQ(At(m, 0, "b0.reuse_dis_iter"), Slog(4));
}

TEST(ProgramFeaturesTest, TwoReadsOfOneElementAreSerialReuse) {
  // for i in 64: y[i] = x[i] * x[i]
  Expr i = Var("i", 0);
  Stmt nest = tir::For(i, Expr(64), ForKind::kSerial, tir::Store(1, i, Ld(0, i) * Ld(0, i)));
  FeatureMatrix m = Extract(Func({Buf("x", {64}), Buf("y", {64})}, nest));
  ASSERT_EQ(m.rows, 1);
  EXPECT_EQ(At(m, 0, "b0.reuse_serial_multiple_read"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "b0.reuse_ct"), Slog(2));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.bytes"), Slog(2 * 64 * 4));
  EXPECT_FLOAT_EQ(At(m, 0, "b0.unique_bytes"), Slog(64 * 4));  // the same element twice
}

TEST(ProgramFeaturesTest, CountsOpsByKind) {
  // for i in 16: y[i] = max(exp(x[i]) / z[i], 0) - select(x[i] < 1, x[i], z[i])
  Expr i = Var("i", 0);
  Expr value = te::Max(te::Exp(Ld(0, i)) / Ld(2, i), F(0)) - te::Select(te::Lt(Ld(0, i), F(1)), Ld(0, i), Ld(2, i));
  Stmt nest = tir::For(i, Expr(16), ForKind::kSerial, tir::Store(1, i, value));
  FeatureMatrix m = Extract(Func({Buf("x", {16}), Buf("y", {16}), Buf("z", {16})}, nest));
  ASSERT_EQ(m.rows, 1);
  for (const char* name : {"float_math_func", "float_div", "float_minmax", "float_addsub", "float_cmp", "select_op"})
    EXPECT_FLOAT_EQ(At(m, 0, name), Slog(16)) << name;
  for (const char* name : {"float_mad", "float_mul", "int_mad", "int_addsub", "bool_op"})
    EXPECT_EQ(At(m, 0, name), 0) << name;
}

TEST(ProgramFeaturesTest, LocalTileHasAllocationFeatures) {
  // for i in 16: allocate t[8] { for j in 8: t[j] = x[i*8 + j];  for j in 8: y[i*8 + j] = t[j] }
  Expr i = Var("i", 0), j = Var("j", 1), j2 = Var("j", 2);
  Stmt fill = tir::For(j, Expr(8), ForKind::kSerial, tir::Store(2, j, Ld(0, i * Expr(8) + j)));
  Stmt drain = tir::For(j2, Expr(8), ForKind::kVectorized, tir::Store(1, i * Expr(8) + j2, Ld(2, j2)));
  Stmt nest = tir::For(i, Expr(16), ForKind::kSerial, tir::Allocate(2, tir::Seq({fill, drain})));
  FeatureMatrix m = Extract(Func({Buf("x", {128}), Buf("y", {128}), Buf("t", {8}, tir::BufferScope::kLocal)}, nest));
  ASSERT_EQ(m.rows, 2);
  EXPECT_EQ(At(m, 0, "scope_local"), 1);
  EXPECT_FLOAT_EQ(At(m, 0, "alloc_size"), Slog(32));
  EXPECT_FLOAT_EQ(At(m, 0, "alloc_outer_prod"), Slog(16));
  EXPECT_FLOAT_EQ(At(m, 0, "alloc_inner_prod"), Slog(8));
  EXPECT_FLOAT_EQ(At(m, 0, "alloc_prod"), Slog(8 * 16));
  EXPECT_FLOAT_EQ(At(m, 0, "live_local_bytes"), Slog(32));
  EXPECT_EQ(At(m, 1, "scope_arg"), 1);
  EXPECT_EQ(At(m, 1, "alloc_size"), 0);
  EXPECT_EQ(At(m, 1, "vec_pos_inner_spatial"), 1);
}

TEST(ProgramFeaturesTest, GuardsAreCounted) {
  Expr i = Var("i", 0);
  Stmt nest = tir::For(i, Expr(10), ForKind::kSerial,
                       tir::IfThenElse(te::Lt(i, Expr(7)), tir::Store(1, i, Ld(0, i))));
  FeatureMatrix m = Extract(Func({Buf("x", {10}), Buf("y", {10})}, nest));
  ASSERT_EQ(m.rows, 1);
  EXPECT_EQ(At(m, 0, "num_guards"), 1);
}

TEST(ProgramFeaturesTest, IndexOfAVariableOutsideTheNestIsAnError) {
  Expr i = Var("i", 0), stray = Var("stray", 7);
  Stmt nest = tir::For(i, Expr(4), ForKind::kSerial, tir::Store(1, i + stray, Ld(0, i)));
  auto m = ExtractFeatures(Func({Buf("x", {4}), Buf("y", {16})}, nest));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
}

// --- Programs drawn from the search space ---


SearchTarget TestTarget() {
  auto t = codegen::Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell -num-cores=4");
  EXPECT_TRUE(t.ok()) << t.status();
  return SearchTarget::FromTarget(*t);
}

void CheckSampledPrograms(std::shared_ptr<const te::ComputeDag> dag) {
  std::mt19937_64 rng(7);
  std::vector<schedule::State> programs = SampleInitialPopulation(dag, TestTarget(), 40, rng, nullptr);
  ASSERT_GE(programs.size(), 20u);
  std::set<std::vector<float>> distinct;
  for (const schedule::State& p : programs) {
    auto f = tir::Lower(p, "kernel");
    ASSERT_TRUE(f.ok()) << f.status();
    auto m = ExtractFeatures(*f);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_EQ(m->rows, CountStores(f->body));
    ASSERT_EQ(m->cols, static_cast<int>(StoreFeatureNames().size()));
    for (size_t v = 0; v < m->values.size(); ++v)
      ASSERT_TRUE(std::isfinite(m->values[v])) << StoreFeatureNames()[v % m->cols] << "\n" << tir::PrimFuncToString(*f);
    // Every program computes something: some row does float work.
    float flops = 0;
    for (int r = 0; r < m->rows; ++r)
      flops += At(*m, r, "float_mad") + At(*m, r, "float_addsub") + At(*m, r, "float_mul");
    EXPECT_GT(flops, 0);
    distinct.insert(m->values);
  }
  // Different schedules look different to the cost model.
  EXPECT_GE(distinct.size(), programs.size() * 9 / 10);
}

TEST(ProgramFeaturesTest, SampledGemmProgramsHaveFiniteDistinctRows) { CheckSampledPrograms(testing::GemmBiasDag(64, 48, 32)); }

TEST(ProgramFeaturesTest, SampledConvProgramsHaveFiniteDistinctRows) { CheckSampledPrograms(ConvBiasReluDag(16, 14, 16)); }

TEST(ProgramFeaturesTest, TwoSchedulesOfOneGemmDiffer) {
  auto dag = testing::GemmBiasDag(64, 64, 64);
  schedule::State plain(dag);
  schedule::State tiled(dag);
  // Stage 3 is C (A, B, bias, C, out): i j k -> i.0 j.0 k i.1 j.1, j.1 vectorized.
  ASSERT_TRUE(tiled.Split(3, 0, {8}).ok());
  ASSERT_TRUE(tiled.Split(3, 2, {16}).ok());
  ASSERT_TRUE(tiled.Reorder(3, {0, 2, 4, 1, 3}).ok());
  ASSERT_TRUE(tiled.Annotate(3, 4, schedule::IterAnnotation::kVectorize).ok());
  auto a = tir::Lower(plain, "plain");
  auto b = tir::Lower(tiled, "tiled");
  ASSERT_TRUE(a.ok() && b.ok());
  auto fa = ExtractFeatures(*a);
  auto fb = ExtractFeatures(*b);
  ASSERT_TRUE(fa.ok() && fb.ok());
  ASSERT_EQ(fa->rows, fb->rows);
  EXPECT_NE(fa->values, fb->values);
  // C's update store: in the tiled program under a vectorized loop of 16, in the plain one not.
  int update = -1;
  for (int r = 0; r < fb->rows; ++r)
    if (At(*fb, r, "reduction_update") == 1) update = r;
  ASSERT_GE(update, 0);
  EXPECT_EQ(At(*fa, update, "reduction_update"), 1);
  EXPECT_FLOAT_EQ(At(*fb, update, "vec_len"), Slog(16));
  EXPECT_EQ(At(*fa, update, "vec_num"), 0);
  EXPECT_FLOAT_EQ(At(*fa, update, "float_mad"), Slog(64 * 64 * 64));
  EXPECT_FLOAT_EQ(At(*fb, update, "float_mad"), Slog(64 * 64 * 64));
}

}  // namespace
}  // namespace tunefarm::tuner
