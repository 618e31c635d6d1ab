// Virtual threads (tir/virtual_thread.h): a loop bound to "vthread" is gone after lowering;
// each thread computes all its virtual threads' points, interleaved, with a copy of their
// local accumulators each, while the shared tiles are fetched once for all of them. The
// numerics are checked against the DAG through both interpreters.
#include <gtest/gtest.h>

#include <string>

#include "compiler/tir/auto_unroll.h"
#include "compiler/tir/gpu_interpreter.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/stmt_functor.h"
#include "compiler/tir/virtual_thread.h"
#include "tests/common/count_occurrences.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/launch_expectations.h"
#include "tests/common/interpreted_error.h"

namespace tunefarm::tir {
namespace {

using schedule::IterAnnotation;

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

double GpuError(const schedule::State& s, uint64_t seed) {
  return testing::InterpretedError(s, seed, [](const PrimFunc& f, const std::vector<void*>& args) { return InterpretAsGpu(f, args); });
}

int CountStoresTo(const Stmt& body, int buffer) {
  int stores = 0;
  PreOrderVisit(body, [&](const Stmt& s) { stores += s->kind == StmtKind::kStore && s->buffer == buffer; });
  return stores;
}

int BufferNamed(const PrimFunc& f, const std::string& name) {
  for (int b = 0; b < static_cast<int>(f.buffers.size()); ++b)
    if (f.buffers[b].name == name) return b;
  return -1;
}

TEST(VirtualThreads, EachThreadOwnsACopyOfItsAccumulatorsPerVirtualThreadAndSharesTheTiles) {
  const schedule::State s = testing::VirtualThreadGemm(64, 64, 32);
  absl::StatusOr<PrimFunc> f = Lower(s, "vgemm");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = PrimFuncToString(*f);
  EXPECT_EQ(text.find("vthread"), std::string::npos) << text;
  // Four virtual threads of a 2 x 2 tile each.
  EXPECT_NE(text.find("local C.local: float32[16]"), std::string::npos) << text;
  // Block (32 rows) x 16 steps of k, as without virtual threads: the tiles span them.
  EXPECT_NE(text.find("shared A.shared: float32[512]"), std::string::npos) << text;
  EXPECT_NE(text.find("shared B.shared: float32[512]"), std::string::npos) << text;
  // The fetch is not repeated per virtual thread: one store to each tile.
  EXPECT_EQ(CountStoresTo(f->body, BufferNamed(*f, "A.shared")), 1) << text;
  EXPECT_EQ(CountStoresTo(f->body, BufferNamed(*f, "B.shared")), 1) << text;
  testing::ExpectLaunches(*f, 1, {{2, 2, 1}, {8, 8, 1}, 2 * 512 * 4, 16 * 4});
  EXPECT_LT(testing::InterpretedError(s, 5), 1e-4) << text;
  EXPECT_LT(GpuError(s, 5), 1e-4) << text;
  // A tuning record keeps the binding by name, and replays to the same program.
  const std::string json = s.ToJson();
  EXPECT_NE(json.find("\"vthread\""), std::string::npos) << json;
  absl::StatusOr<schedule::State> replayed = schedule::State::FromJson(s.original_dag(), json);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  absl::StatusOr<PrimFunc> again = Lower(*replayed, "vgemm");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrimFuncToString(*again), text);
}

TEST(VirtualThreads, ShapesThatLeaveTailsStillComputeTheGemm) {
  for (auto [m, n, k] : {std::array<int64_t, 3>{64, 96, 48}, {50, 70, 20}, {32, 32, 16}}) {
    const schedule::State s = testing::VirtualThreadGemm(m, n, k);
    EXPECT_LT(testing::InterpretedError(s, 7), 1e-4) << m << "x" << n << "x" << k;
    EXPECT_LT(GpuError(s, 7), 1e-4) << m << "x" << n << "x" << k;
  }
}

// Read as an ordinary loop (a CPU's serial reading) the virtual threads change nothing: the
// same schedule without its thread bindings, lowered for the CPU interpreter.
TEST(VirtualThreads, WithoutThreadBindingsAVirtualThreadIsAnInterleavedLoop) {
  schedule::State s(testing::GemmDag(24, 40, 12));
  ASSERT_TRUE(s.CacheWrite(2, "local").ok());  // C.local 2, C 3
  ASSERT_TRUE(s.Split(3, 0, {3, 4}).ok());        // i.0 i.1 i.2 j
  ASSERT_TRUE(s.Annotate(3, 1, IterAnnotation::kVThread).ok());
  ASSERT_TRUE(s.ComputeAt(2, 3, 2).ok());
  absl::StatusOr<PrimFunc> f = Lower(s, "cpu_vthread");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = PrimFuncToString(*f);
  EXPECT_NE(text.find("local C.local: float32[120]"), std::string::npos) << text;
  EXPECT_LT(testing::InterpretedError(s, 2), 1e-4) << text;
}

TEST(VirtualThreads, TheAnnotationRefusesWhatVirtualThreadsCannotRun) {
  schedule::State s(testing::GemmDag(16, 16, 16));
  ASSERT_TRUE(s.Split(2, 0, {4}).ok());  // i.0 i.1 j k
  absl::Status reduce = s.Annotate(2, 3, IterAnnotation::kVThread);
  ASSERT_FALSE(reduce.ok());
  EXPECT_NE(reduce.message().find("cannot bind a reduce iterator"), std::string::npos) << reduce;
  ASSERT_TRUE(s.Annotate(2, 0, IterAnnotation::kVThread).ok());
  absl::Status twice = s.Annotate(2, 1, IterAnnotation::kVThread);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("vthread is already bound to iterator 0"), std::string::npos) << twice;
  absl::Status block = s.Annotate(2, 2, IterAnnotation::kBlockX);
  ASSERT_FALSE(block.ok());
  EXPECT_NE(block.message().find("a block axis cannot be nested inside thread axis vthread"), std::string::npos) << block;
}

// The pass on a hand-written body: a local buffer written with the virtual thread's index gets
// a copy each; a store to a global buffer that does not depend on it runs once; the dependent
// store becomes an unrolled loop inside the serial loop it sat in.
TEST(VirtualThreads, OnlyBuffersWrittenPerVirtualThreadGetCopies) {
  std::vector<Buffer> buffers = {
      Buffer{"out", te::DType::kFloat32, {8}, BufferScope::kArg, ArgRole::kOutput},
      Buffer{"flag", te::DType::kFloat32, {1}, BufferScope::kArg, ArgRole::kOutput},
      Buffer{"acc", te::DType::kFloat32, {2}, BufferScope::kLocal},
  };
  const Expr v = te::MakeVar("v", 0), i = te::MakeVar("i", 1), j = te::MakeVar("j", 2);
  const Expr one = te::FloatImm(te::DType::kFloat32, 1);
  // for v in vthread(4): allocate acc { flag[0] = 1; for i in 0..2: acc[i] = v; for j: out[v*2+j] = acc[j] }
  Stmt body = For(v, Idx(4), ForKind::kVirtualThread,
                  Allocate(2, Seq({Store(1, Idx(0), one),
                                   For(i, Idx(2), ForKind::kSerial, Store(2, i, te::Cast(te::DType::kFloat32, v))),
                                   For(j, Idx(2), ForKind::kSerial, Store(0, v * Idx(2) + j, te::Load(te::DType::kFloat32, 2, {j})))})));
  int64_t next_var = 3;
  Stmt injected = InjectVirtualThreads(body, &buffers, &next_var);
  EXPECT_EQ(buffers[2].shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(buffers[0].shape, (std::vector<int64_t>{8}));
  const std::string text = StmtToString(injected);
  EXPECT_EQ(testing::CountOccurrences(text, "buf1[0] ="), 1) << text;
  EXPECT_EQ(testing::CountOccurrences(text, "unrolled"), 2) << text;
  EXPECT_EQ(text.find("vthread"), std::string::npos) << text;
  PrimFunc f{"hand", buffers, 2, 0, injected};
  std::vector<float> out(8, 0), flag(1, 0);
  ASSERT_TRUE(Interpret(f, {out.data(), flag.data()}).ok()) << text;
  EXPECT_EQ(out, (std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3})) << text;
  EXPECT_EQ(flag[0], 1);
}

// The guarded update as lowering makes it: C[i, j] = sum over k of B[k, j], which does not read
// i, with C's 5 rows split 1 x 2 x 3 (a tail), the middle loop a virtual thread, C.local at it
// and its reduce loop outermost. Each of C.local's init and update gets its own guard on the
// virtual thread's rows; the update's index and value do not use it, its guard does.
TEST(VirtualThreads, AGuardedReductionThatIgnoresTheVirtualThreadComputesEachRowOnce) {
  te::DagBuilder b;
  auto in = b.Placeholder("B", te::DType::kFloat32, {3, 4});
  auto c = b.Reduce("C", te::ReduceKind::kSum, {5, 4}, {3}, [&](const te::DagBuilder::Axes& i, const te::DagBuilder::Axes& k) {
    return in(k[0], i[1]);
  });
  schedule::State s(b.Build({c}));
  ASSERT_TRUE(s.CacheWrite(1, "local").ok());  // C.local 1, C 2
  ASSERT_TRUE(s.Split(2, 0, {2, 3}).ok());     // i.0 i.1 i.2 j
  ASSERT_TRUE(s.Annotate(2, 1, IterAnnotation::kVThread).ok());
  ASSERT_TRUE(s.ComputeAt(1, 2, 1).ok());
  ASSERT_TRUE(s.Reorder(1, {2, 0, 1}).ok());   // k i j
  absl::StatusOr<PrimFunc> f = Lower(s, "guarded");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_LT(testing::InterpretedError(s, 3), 1e-5) << PrimFuncToString(*f);
}

// What interleaving must not change (found by review): an update guarded by the virtual thread
// makes its buffer owned even though its index and value do not use it; an update in place of a
// buffer from outside the loop that is the same for every virtual thread keeps the loop serial;
// a gather between two owned buffers offsets each load once.
TEST(VirtualThreads, GuardsOutsideBuffersAndGathersKeepTheirMeaning) {
  const Expr v = te::MakeVar("v", 0), k = te::MakeVar("k", 1), j = te::MakeVar("j", 2);
  const Expr one = te::FloatImm(te::DType::kFloat32, 1);
  auto run = [](std::vector<Buffer> buffers, int num_args, Stmt body, std::vector<std::vector<float>*> args) {
    int64_t next_var = 10;
    Stmt injected = InjectVirtualThreads(body, &buffers, &next_var);
    PrimFunc f{"hand", buffers, num_args, 0, injected};
    std::vector<void*> pointers;
    for (std::vector<float>* a : args) pointers.push_back(a->data());
    EXPECT_TRUE(Interpret(f, pointers).ok()) << StmtToString(injected);
    return StmtToString(injected);
  };
  {
    // for v in vthread(2): allocate acc { acc[0] = 0; for k < 4: if (v*2 + k < 5) acc[0] += 1; out[v] = acc[0] }
    std::vector<Buffer> buffers = {Buffer{"out", te::DType::kFloat32, {2}, BufferScope::kArg, ArgRole::kOutput},
                                   Buffer{"acc", te::DType::kFloat32, {1}, BufferScope::kLocal}};
    const Expr acc = te::Load(te::DType::kFloat32, 1, {Idx(0)});
    Stmt body = For(v, Idx(2), ForKind::kVirtualThread,
                    Allocate(1, Seq({Store(1, Idx(0), te::FloatImm(te::DType::kFloat32, 0)),
                                     For(k, Idx(4), ForKind::kSerial,
                                         IfThenElse(te::Lt(v * Idx(2) + k, Idx(5)), Store(1, Idx(0), acc + one))),
                                     Store(0, v, acc)})));
    std::vector<float> out(2, -1);
    const std::string text = run(buffers, 1, body, {&out});
    EXPECT_EQ(out, (std::vector<float>{4, 3})) << text;
  }
  {
    // for v in vthread(2): { for k < 3: w[0] += 1; out[v] = w[0] }, w an argument
    std::vector<Buffer> buffers = {Buffer{"out", te::DType::kFloat32, {2}, BufferScope::kArg, ArgRole::kOutput},
                                   Buffer{"w", te::DType::kFloat32, {1}, BufferScope::kArg, ArgRole::kOutput}};
    const Expr w = te::Load(te::DType::kFloat32, 1, {Idx(0)});
    Stmt body = For(v, Idx(2), ForKind::kVirtualThread,
                    Seq({For(k, Idx(3), ForKind::kSerial, Store(1, Idx(0), w + one)), Store(0, v, w)}));
    std::vector<float> out(2, -1), wv(1, 0);
    const std::string text = run(buffers, 2, body, {&out, &wv});
    EXPECT_EQ(out, (std::vector<float>{3, 6})) << text;
    EXPECT_EQ(wv[0], 6) << text;
  }
  {
    // for v in vthread(2): allocate x, y { for j < 2: { x[j] = (j + v) % 2; y[j] = v*10 + j };
    //                                      for j < 2: out[v*2 + j] = y[x[j]] }
    std::vector<Buffer> buffers = {Buffer{"out", te::DType::kFloat32, {4}, BufferScope::kArg, ArgRole::kOutput},
                                   Buffer{"x", te::kIndexType, {2}, BufferScope::kLocal},
                                   Buffer{"y", te::DType::kFloat32, {2}, BufferScope::kLocal}};
    const Expr j2 = te::MakeVar("j2", 3);
    Stmt body = For(
        v, Idx(2), ForKind::kVirtualThread,
        Allocate(1, Allocate(2, Seq({For(j, Idx(2), ForKind::kSerial,
                                         Seq({Store(1, j, (j + v) % Idx(2)),
                                              Store(2, j, te::Cast(te::DType::kFloat32, v * Idx(10) + j))})),
                                     For(j2, Idx(2), ForKind::kSerial,
                                         Store(0, v * Idx(2) + j2,
                                               te::Load(te::DType::kFloat32, 2, {te::Load(te::kIndexType, 1, {j2})})))}))));
    std::vector<float> out(4, -1);
    const std::string text = run(buffers, 1, body, {&out});
    EXPECT_EQ(out, (std::vector<float>{0, 1, 11, 10})) << text;
  }
}

}  // namespace
}  // namespace tunefarm::tir

namespace tunefarm::tir {
namespace {

// Injection copies a virtual-thread loop's body once per virtual thread, so auto-unroll counts
// the copies: a loop of 32 under 4 virtual threads unrolls to 128 statements, not 32.
TEST(VirtualThreads, AutoUnrollCountsTheCopiesInjectionMakes) {
  const Expr v = te::MakeVar("v", 1), i = te::MakeVar("i", 2);
  const Stmt inner = For(i, Idx(32), ForKind::kSerial, Store(0, i, te::FloatImm(te::DType::kFloat32, 1)));
  const Stmt nest = For(v, Idx(4), ForKind::kVirtualThread, inner);
  const auto inner_kind = [](const Stmt& s) { return s->body->for_kind; };
  EXPECT_EQ(inner_kind(AutoUnroll(nest, 64)), ForKind::kSerial);
  EXPECT_EQ(inner_kind(AutoUnroll(nest, 128)), ForKind::kUnrolled);
  // An attached stage's nest: the virtual threads are its consumer's loops, passed in.
  EXPECT_EQ(AutoUnroll(inner, 64, 4)->for_kind, ForKind::kSerial);
  EXPECT_EQ(AutoUnroll(inner, 64, 1)->for_kind, ForKind::kUnrolled);
}

// VirtualThreadGemm's accumulator stage, attached inside 4 virtual threads: its loop over k.i
// (16 steps of a 2 x 2 tile, 64 statements) unrolls at a pragma of 256, not of 64.
TEST(VirtualThreads, AnAttachedStageUnrollsWithinItsShareOfThePragma) {
  const auto unrolled_k_steps = [](int max_step) {
    schedule::State s = testing::VirtualThreadGemm(64, 64, 64);
    EXPECT_TRUE(s.PragmaAutoUnroll(testing::kVThreadGemmLocal, 0, max_step).ok());
    absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
    EXPECT_TRUE(f.ok()) << f.status();
    int unrolled = 0, serial = 0;
    PreOrderVisit(f->body, [&](const Stmt& st) {
      int64_t extent = 0;
      if (st->kind != StmtKind::kFor || !te::IsConstInt(st->extent, &extent) || extent != 16) return;
      unrolled += st->for_kind == ForKind::kUnrolled;
      serial += st->for_kind == ForKind::kSerial;
    });
    EXPECT_GT(unrolled + serial, 0) << PrimFuncToString(*f);
    return unrolled > 0 && serial == 0;
  };
  EXPECT_FALSE(unrolled_k_steps(64));
  EXPECT_TRUE(unrolled_k_steps(256));
}

}  // namespace
}  // namespace tunefarm::tir
