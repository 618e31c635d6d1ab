// Loop nests run through the JIT and through a .so + the deploy loader, on 1 and 3 threads,
// against plain C++ references.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>

#include "compiler/codegen/host_target.h"
#include "deploy/thread_pool.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/codegen/test_kernels.h"

namespace tunefarm::codegen::testing {
namespace {

using te::DType;
using te::Expr;
using tir::ForKind;
using tir::Stmt;

constexpr DType kF32 = DType::kFloat32;

class ExecutionTest : public ::testing::TestWithParam<std::tuple<Backend, int>> {
 protected:
  Backend backend() const { return std::get<0>(GetParam()); }
  int threads() const { return std::get<1>(GetParam()); }
};

TEST_P(ExecutionTest, GemmMatchesReference) {
  const int64_t m = 37, n = 80, k = 29;  // n: two full chunks of 32 lanes and a tail of 16
  auto runner = KernelRunner::Create({GemmFunc("gemm", m, n, k)}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> a(m * k), b(k * n), c(m * n);
  FillRandom(a, 1);
  FillRandom(b, 2);
  c.buffer.Fill(std::nanf(""));
  ASSERT_EQ(runner->Run("gemm", {a.data(), b.data(), c.data()}, threads()), 0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < k; ++p) ref += double(a[i * k + p]) * b[p * n + j];
      ASSERT_NEAR(c[i * n + j], ref, 1e-4) << i << "," << j;
    }
  }
}

// Three loops communicating through two workspace buffers (float and int32 at an offset).
TEST_P(ExecutionTest, ElementwiseChainThroughWorkspace) {
  const int64_t n = 1000;
  const int64_t u_offset = (n * 4 + 63) / 64 * 64;
  Expr i2 = te::MakeVar("i2", 2), i3 = te::MakeVar("i3", 3);
  Expr io = te::MakeVar("io", 4), ii = te::MakeVar("ii", 5);
  Expr idx = io * 8 + ii;
  Stmt body = tir::Seq({
      // T = exp(A) * 2 + B, as a parallel loop of vectorized 8-wide chunks
      tir::For(io, n / 8, ForKind::kParallel,
               tir::For(ii, 8, ForKind::kVectorized,
                        tir::Store(3, idx, te::Exp(te::Load(kF32, 0, {idx})) * te::FloatImm(kF32, 2) +
                                               te::Load(kF32, 1, {idx})))),
      // U = int32(A * 100)
      tir::For(i2, n, ForKind::kVectorized,
               tir::Store(4, i2, te::Cast(DType::kInt32, te::Load(kF32, 0, {i2}) * te::FloatImm(kF32, 100)))),
      // C = sigmoid(T) + float(U) * 0.25 - T
      tir::For(i3, n, ForKind::kSerial,
               tir::Store(2, i3,
                          te::Sigmoid(te::Load(kF32, 3, {i3})) +
                              te::Cast(kF32, te::Load(DType::kInt32, 4, {i3})) * te::FloatImm(kF32, 0.25) -
                              te::Load(kF32, 3, {i3}))),
  });
  tir::PrimFunc f = MakeFunc("chain",
                             {Arg("A", kF32, {n}), Arg("B", kF32, {n}), Arg("C", kF32, {n}, tir::ArgRole::kOutput),
                              Workspace("T", kF32, {n}, 0), Workspace("U", DType::kInt32, {n}, u_offset)},
                             3, body, u_offset + n * 4);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> a(n), b(n), c(n);
  FillRandom(a, 3);
  FillRandom(b, 4);
  ASSERT_EQ(runner->Run("chain", {a.data(), b.data(), c.data()}, threads()), 0);
  for (int64_t p = 0; p < n; ++p) {
    float t = std::exp(a[p]) * 2 + b[p];
    float ref = 1 / (1 + std::exp(-t)) + float(int32_t(a[p] * 100.0f)) * 0.25f - t;
    ASSERT_NEAR(c[p], ref, 2e-5) << p;
  }
}

// A vectorized loop guarded by a lane-dependent if: the scalar fallback must be correct and
// must not write past the guarded range.
TEST_P(ExecutionTest, TailGuardedVectorLoop) {
  const int64_t n = 100;
  Expr jo = te::MakeVar("jo", 1), ji = te::MakeVar("ji", 2);
  Expr j = jo * 32 + ji;
  Stmt body = tir::For(jo, 4, ForKind::kParallel,
                       tir::For(ji, 32, ForKind::kVectorized,
                                tir::IfThenElse(te::Lt(j, n), tir::Store(1, j, te::Load(kF32, 0, {j}) *
                                                                                    te::FloatImm(kF32, 3) +
                                                                                te::FloatImm(kF32, 1)))));
  tir::PrimFunc f = MakeFunc("tail", {Arg("A", kF32, {n}), Arg("C", kF32, {n}, tir::ArgRole::kOutput)}, 2, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> a(128), c(128);  // 28 spare elements past the end to catch stray stores
  FillRandom(a, 5);
  c.buffer.Fill(-7.0f);
  ASSERT_EQ(runner->Run("tail", {a.data(), c.data()}, threads()), 0);
  for (int64_t p = 0; p < n; ++p) ASSERT_FLOAT_EQ(c[p], a[p] * 3 + 1) << p;
  for (int64_t p = n; p < 128; ++p) ASSERT_EQ(c[p], -7.0f) << "store past the guard at " << p;
}

// Lane-dependent select, a transposing scatter, a strided gather and a data-dependent gather,
// all in vectorized loops.
TEST_P(ExecutionTest, VectorSelectGatherScatter) {
  const int64_t rows = 8, cols = 24, n = rows * cols;
  Expr j = te::MakeVar("j", 1), r = te::MakeVar("r", 2), c = te::MakeVar("c", 3);
  Expr r2 = te::MakeVar("r2", 4), c2 = te::MakeVar("c2", 5), g = te::MakeVar("g", 6);
  Stmt body = tir::Seq({
      tir::For(j, n, ForKind::kVectorized,
               tir::Store(2, j, te::Select(te::Lt(j, 37), te::Load(kF32, 0, {j}),
                                           te::Load(kF32, 0, {j}) * te::FloatImm(kF32, 2)))),
      // T[c*rows + r] = A[r*cols + c]: contiguous load, scatter store
      tir::For(r, rows, ForKind::kSerial,
               tir::For(c, cols, ForKind::kVectorized, tir::Store(3, c * rows + r, te::Load(kF32, 0, {r * cols + c})))),
      // U[r2*cols + c2] = T[c2*rows + r2]: gather load, contiguous store
      tir::For(r2, rows, ForKind::kSerial,
               tir::For(c2, cols, ForKind::kVectorized, tir::Store(4, r2 * cols + c2, te::Load(kF32, 3, {c2 * rows + r2})))),
      // V[g] = A[idx[g]] + A[(g*7) % n]
      tir::For(g, n, ForKind::kVectorized,
               tir::Store(5, g, te::Load(kF32, 0, {te::Cast(DType::kInt64, te::Load(DType::kInt32, 1, {g}))}) +
                                    te::Load(kF32, 0, {(g * 7) % n}))),
  });
  tir::Buffer idx = Arg("idx", DType::kInt32, {n});
  idx.has_range = true;
  idx.range_min = 0;
  idx.range_max = n - 1;
  tir::PrimFunc f = MakeFunc("shuffle",
                             {Arg("A", kF32, {n}), idx, Arg("S", kF32, {n}, tir::ArgRole::kOutput),
                              Arg("T", kF32, {n}, tir::ArgRole::kOutput), Arg("U", kF32, {n}, tir::ArgRole::kOutput),
                              Arg("V", kF32, {n}, tir::ArgRole::kOutput)},
                             6, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> a(n), s(n), t(n), u(n), v(n);
  Array<int32_t> ix(n);
  FillRandom(a, 6);
  std::mt19937 rng(7);
  for (int64_t p = 0; p < n; ++p) ix[p] = static_cast<int32_t>(rng() % n);
  ASSERT_EQ(runner->Run("shuffle", {a.data(), ix.data(), s.data(), t.data(), u.data(), v.data()}, threads()), 0);
  for (int64_t p = 0; p < n; ++p) {
    ASSERT_EQ(s[p], p < 37 ? a[p] : a[p] * 2) << p;
    ASSERT_EQ(u[p], a[p]) << p;  // transposed twice
    ASSERT_EQ(v[p], a[ix[p]] + a[(p * 7) % n]) << p;
  }
  for (int64_t rr = 0; rr < rows; ++rr)
    for (int64_t cc = 0; cc < cols; ++cc) ASSERT_EQ(t[cc * rows + rr], a[rr * cols + cc]);
}

// Unrolled loops (copies, and the >kMaxUnrolledCopies loop form), nested parallel loops and a
// parallel loop whose extent depends on an enclosing parallel variable.
TEST_P(ExecutionTest, UnrolledAndNestedParallel) {
  Expr u = te::MakeVar("u", 1), w = te::MakeVar("w", 2), i = te::MakeVar("i", 3), j = te::MakeVar("j", 4);
  Stmt body = tir::Seq({
      tir::For(u, 4, ForKind::kUnrolled,
               tir::For(w, 600, ForKind::kUnrolled, tir::Store(0, u * 600 + w, te::Cast(kF32, u * w - 5)))),
      tir::For(i, 6, ForKind::kParallel,
               tir::For(j, i + 1, ForKind::kParallel, tir::Store(1, i * 6 + j, te::Cast(kF32, i * 10 + j)))),
  });
  tir::PrimFunc f = MakeFunc("nested",
                             {Arg("P", kF32, {2400}, tir::ArgRole::kOutput), Arg("Q", kF32, {36}, tir::ArgRole::kOutput)},
                             2, body);
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> p(2400), q(36);
  q.buffer.Fill(-1.0f);
  ASSERT_EQ(runner->Run("nested", {p.data(), q.data()}, threads()), 0);
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 600; ++b) ASSERT_EQ(p[a * 600 + b], float(a * b - 5));
  for (int64_t a = 0; a < 6; ++a)
    for (int64_t b = 0; b < 6; ++b) ASSERT_EQ(q[a * 6 + b], b <= a ? float(a * 10 + b) : -1.0f) << a << "," << b;
}

INSTANTIATE_TEST_SUITE_P(BackendsAndThreads, ExecutionTest,
                         ::testing::Combine(::testing::Values(Backend::kJit, Backend::kSharedObject),
                                            ::testing::Values(1, 3)),
                         [](const auto& info) {
                           return BackendName(std::get<0>(info.param)) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "threads";
                         });

// --- The host API contract, with hand-written host tables. ---

std::atomic<int> g_calls{0};
std::atomic<int> g_last_num_tasks{0};

int32_t CountingParallelFor(tunefarm_parallel_body body, void* closure, int32_t num_tasks) {
  g_calls++;
  g_last_num_tasks = num_tasks;
  for (int32_t t = num_tasks - 1; t >= 0; --t) {  // reverse order: tasks must be independent
    if (int32_t rc = body(t, num_tasks, closure)) return rc;
  }
  return 0;
}

int32_t FailingParallelFor(tunefarm_parallel_body, void*, int32_t) { return 77; }

tir::PrimFunc IncrementFunc(int64_t n) {
  Expr i = te::MakeVar("i", 1);
  Stmt body = tir::For(i, n, ForKind::kParallel,
                       tir::Store(0, i, te::Load(kF32, 0, {i}) + te::FloatImm(kF32, 1)));
  return MakeFunc("increment", {Arg("C", kF32, {n}, tir::ArgRole::kOutput)}, 1, body);
}

std::unique_ptr<JitModule> CompileJit(const std::vector<tir::PrimFunc>& funcs) {
  absl::StatusOr<std::unique_ptr<JitModule>> jit = JitModule::Compile(funcs, HostTarget());
  EXPECT_TRUE(jit.ok()) << jit.status();
  return jit.ok() ? std::move(*jit) : nullptr;
}

TEST(HostApiTest, ParallelLoopRunsEveryIterationOnceInCappedTasks) {
  const int64_t n = 3000;
  auto jit = CompileJit({IncrementFunc(n)});
  ASSERT_NE(jit, nullptr);
  tunefarm_host_api api = {sizeof(tunefarm_host_api), &CountingParallelFor};
  jit->SetHostApi(&api);
  Array<float> c(n);
  c.buffer.Zero();
  void* args[] = {c.data()};
  g_calls = 0;
  ASSERT_EQ(jit->Lookup("increment")(args, 1, nullptr), 0);
  EXPECT_EQ(g_calls.load(), 1);
  EXPECT_EQ(g_last_num_tasks.load(), 1024);  // kMaxParallelTasks
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.0f) << i;
}

TEST(HostApiTest, SmallParallelLoopHasOneTaskPerIteration) {
  auto jit = CompileJit({IncrementFunc(5)});
  ASSERT_NE(jit, nullptr);
  tunefarm_host_api api = {sizeof(tunefarm_host_api), &CountingParallelFor};
  jit->SetHostApi(&api);
  Array<float> c(5);
  c.buffer.Zero();
  void* args[] = {c.data()};
  ASSERT_EQ(jit->Lookup("increment")(args, 1, nullptr), 0);
  EXPECT_EQ(g_last_num_tasks.load(), 5);
}

TEST(HostApiTest, ErrorsAreReported) {
  auto jit = CompileJit({IncrementFunc(16)});
  ASSERT_NE(jit, nullptr);
  Array<float> c(16);
  void* args[] = {c.data()};
  tunefarm_kernel_fn fn = jit->Lookup("increment");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(jit->Lookup("no_such_entry"), nullptr);
  EXPECT_EQ(fn(args, 1, nullptr), TUNEFARM_ERR_NO_HOST_API);  // never set
  tunefarm_host_api failing = {sizeof(tunefarm_host_api), &FailingParallelFor};
  jit->SetHostApi(&failing);
  EXPECT_EQ(fn(args, 1, nullptr), 77);  // parallel_for's code comes back
  jit->SetHostApi(deploy::HostApi());
  EXPECT_EQ(fn(args, 0, nullptr), TUNEFARM_ERR_BAD_ARGS);
  EXPECT_EQ(fn(args, 2, nullptr), TUNEFARM_ERR_BAD_ARGS);
  EXPECT_EQ(fn(args, 1, nullptr), 0);
}

TEST(HostApiTest, JitRejectsAForeignTarget) {
  absl::StatusOr<Target> arm = Target::Parse("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72");
  ASSERT_TRUE(arm.ok());
  absl::StatusOr<std::unique_ptr<JitModule>> jit = JitModule::Compile({IncrementFunc(4)}, *arm);
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MetadataTest, LoaderSeesEntriesArgumentsAndWorkspace) {
  const int64_t n = 64;
  Expr i = te::MakeVar("i", 1);
  tir::Buffer idx = Arg("idx", DType::kInt64, {n});
  idx.has_range = true;
  idx.range_min = 0;
  idx.range_max = 9;
  tir::PrimFunc gather = MakeFunc(
      "gather",
      {Arg("table", kF32, {10}), idx, Arg("out", kF32, {n}, tir::ArgRole::kOutput), Workspace("tmp", kF32, {n}, 0)},
      3,
      tir::Seq({tir::For(i, n, ForKind::kVectorized, tir::Store(3, i, te::Load(kF32, 0, {te::Load(DType::kInt64, 1, {i})}))),
                tir::For(te::MakeVar("k", 2), n, ForKind::kSerial,
                         tir::Store(2, te::MakeVar("k", 2), te::Load(kF32, 3, {te::MakeVar("k", 2)})))}),
      n * 4);
  tir::PrimFunc gemm = GemmFunc("gemm", 4, 8, 2);
  absl::StatusOr<std::string> so = BuildSharedObject({gather, gemm}, HostTarget());
  ASSERT_TRUE(so.ok()) << so.status();
  auto library = deploy::KernelLibrary::LoadFromBytes(so->data(), so->size(), "meta");
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  const deploy::KernelMetadata& md = (*library)->metadata();
  EXPECT_EQ(md.target, HostTarget().ToString());
  ASSERT_EQ(md.entries.size(), 2u);
  const deploy::EntryInfo& e = md.entries[0];
  EXPECT_EQ(e.name, "gather");
  EXPECT_EQ(e.workspace_bytes, uint64_t(n * 4));
  ASSERT_EQ(e.args.size(), 3u);
  EXPECT_EQ(e.args[1].name, "idx");
  EXPECT_EQ(e.args[1].dtype, "int64");
  EXPECT_EQ(e.args[1].shape, std::vector<int64_t>{n});
  ASSERT_TRUE(e.args[1].range.has_value());
  EXPECT_EQ(e.args[1].range->hi, 9);
  EXPECT_EQ(e.args[2].role, deploy::ArgRole::kOut);
  EXPECT_FALSE(e.args[0].range.has_value());
  EXPECT_EQ(md.entries[1].name, "gemm");

  Array<float> table(10), out(n);
  Array<int64_t> ix(n);
  for (int p = 0; p < 10; ++p) table[p] = p * 1.5f;
  for (int p = 0; p < n; ++p) ix[p] = (p * 3) % 10;
  void* args[] = {table.data(), ix.data(), out.data()};
  ASSERT_TRUE((*library)->Call("gather", args, 3).ok());
  for (int p = 0; p < n; ++p) ASSERT_EQ(out[p], ((p * 3) % 10) * 1.5f);
}

}  // namespace
}  // namespace tunefarm::codegen::testing
