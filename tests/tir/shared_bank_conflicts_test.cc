// Bank conflicts of shared accesses (tir/shared_bank_conflicts.h) and the row padding that
// removes them (schedule step "SA"): the ways a warp's access is replayed, on hand-written
// indices and on a lowered GEMM whose threads read down the columns of a shared tile.
#include <gtest/gtest.h>

#include <string>

#include "compiler/schedule/step_json.h"
#include "compiler/tir/gpu_interpreter.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/shared_bank_conflicts.h"
#include "tests/common/gpu_schedules.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/launch_expectations.h"

namespace tunefarm::tir {
namespace {

Expr Idx(int64_t v) { return te::IntImm(te::kIndexType, v); }

// 32 lanes along threadIdx.x (loop var 1), inside a serial loop (var 2) at its first iteration.
const Expr kLane = te::MakeVar("tx", 1);
const Expr kStep = te::MakeVar("k", 2);
std::vector<WarpLoop> WarpOf(int64_t threads) {
  return {{1, ThreadAxis::kThreadX, ForKind::kThreadBinding, threads}, {2, ThreadAxis::kNone, ForKind::kSerial, 8}};
}

TEST(SharedBankConflicts, AWarpReadingAColumnOfRowsOf16WordsHits2BanksAnOddStrideHitsAll32) {
  EXPECT_EQ(WarpBankConflictWays(kLane * Idx(16) + kStep, 4, WarpOf(256)), 16);
  EXPECT_EQ(WarpBankConflictWays(kLane * Idx(17) + kStep, 4, WarpOf(256)), 1);
  EXPECT_EQ(WarpBankConflictWays(kLane * Idx(32), 4, WarpOf(256)), 32);
  EXPECT_EQ(WarpBankConflictWays(kLane + kStep, 4, WarpOf(256)), 1);  // a row: neighbouring words
  EXPECT_EQ(WarpBankConflictWays(kStep * Idx(16), 4, WarpOf(256)), 1);  // one word for all: a broadcast
  // Lanes sharing a word are served together: 4 rows of 32 words, 8 lanes on each row's word.
  EXPECT_EQ(WarpBankConflictWays((kLane / Idx(8)) * Idx(32), 4, WarpOf(256)), 4);
}

TEST(SharedBankConflicts, OnlyTheBlocksThreadsAreLanesAndWideElementsSpanTwoBanks) {
  EXPECT_EQ(WarpBankConflictWays(kLane * Idx(32), 4, WarpOf(4)), 4);  // a block of 4 threads
  EXPECT_EQ(WarpBankConflictWays(kLane * Idx(16), 2, WarpOf(32)), 8);  // 2-byte elements, 8 words apart
  EXPECT_EQ(WarpBankConflictWays(kLane, 8, WarpOf(32)), 2);            // 8-byte elements: 64 words
  // threadIdx.y counts above x: a block of 8 x 16 puts 4 rows of 8 lanes in a warp.
  const Expr ty = te::MakeVar("ty", 3);
  const std::vector<WarpLoop> loops = {{3, ThreadAxis::kThreadY, ForKind::kThreadBinding, 16},
                                       {1, ThreadAxis::kThreadX, ForKind::kThreadBinding, 8}};
  EXPECT_EQ(WarpBankConflictWays(ty * Idx(32) + kLane, 4, loops), 4);
}

TEST(SharedBankConflicts, AnIndexThatReadsMemoryOrAnUnknownVariableIsNotEvaluated) {
  EXPECT_EQ(WarpBankConflictWays(te::Load(te::kIndexType, 0, {kLane}), 4, WarpOf(32)), 0);
  EXPECT_EQ(WarpBankConflictWays(te::MakeVar("other", 9) + kLane, 4, WarpOf(32)), 0);
}

// VirtualThreadGemm: 8 x 8 threads, each a 2 x 2 tile for each of 4 virtual threads; the 32 x 16
// tile of A is read down a column, a warp's 4 thread rows 2 tile rows apart: 32 words apart, one
// bank. Rows padded to 17 words put them 34 words apart: 4 banks.
TEST(SharedBankConflicts, PaddingTheRowsOfAGemmsSharedTileRemovesItsConflictsAndKeepsItsValues) {
  using testing::kSharedGemmA;
  using testing::kSharedGemmB;
  schedule::State plain = testing::VirtualThreadGemm(64, 64, 64);
  schedule::State padded = plain;
  ASSERT_TRUE(padded.StorageAlign(kSharedGemmA, 0, 2, 1).ok());
  const auto ways_of = [](const schedule::State& s, const std::string& tile) {
    absl::StatusOr<PrimFunc> f = Lower(s, "gemm");
    EXPECT_TRUE(f.ok()) << f.status();
    int reads = 0, most = 0;
    for (const SharedAccess& a : SharedBankConflicts(*f, f->body)) {
      if (a.store || f->buffers[a.buffer].name != tile) continue;
      ++reads;
      most = std::max(most, a.ways);
    }
    EXPECT_GT(reads, 0) << tile;
    return most;
  };
  EXPECT_EQ(ways_of(plain, "A.shared"), 4);
  EXPECT_EQ(ways_of(padded, "A.shared"), 1);
  EXPECT_EQ(ways_of(plain, "B.shared"), 1);  // read along its rows: nothing to pad
  // The tile takes 32 rows of 17 words (544); the values are the GEMM's, run as a GPU runs it.
  absl::StatusOr<PrimFunc> f = Lower(padded, "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_NE(PrimFuncToString(*f).find("shared A.shared: float32[544]"), std::string::npos) << PrimFuncToString(*f);
  testing::ExpectLaunches(*f, 1, {{2, 2, 1}, {8, 8, 1}, (32 * 17 + 16 * 32) * 4, 16 * 4});
  const auto as_gpu = [](const PrimFunc& g, const std::vector<void*>& args) { return InterpretAsGpu(g, args); };
  EXPECT_LT(testing::InterpretedError(padded, 5, as_gpu), 1e-4);
  // A record of the step reads back as the same step.
  const std::string json = schedule::StepsToJson(padded.steps());
  EXPECT_NE(json.find(R"(["SA",1,0,2,1])"), std::string::npos) << json;
  absl::StatusOr<std::vector<schedule::Step>> read = schedule::StepsFromJson(json);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(schedule::StepsToJson(*read), json);
}

TEST(SharedBankConflicts, StorageAlignRefusesWhatItCannotPad) {
  schedule::State s = testing::VirtualThreadGemm(64, 64, 64);
  const auto refused = [&](int stage, int axis, int factor, int offset, const std::string& why) {
    schedule::State copy = s;
    absl::Status st = copy.StorageAlign(stage, axis, factor, offset);
    EXPECT_FALSE(st.ok()) << stage << " " << axis;
    EXPECT_NE(std::string(st.message()).find(why), std::string::npos) << st;
  };
  refused(testing::kVThreadGemmC, 0, 2, 1, "only a local or shared stage");
  refused(testing::kSharedGemmA, 1, 2, 1, "axis 1 has no rows");
  refused(testing::kSharedGemmA, -1, 2, 1, "axis -1 has no rows");
  refused(testing::kSharedGemmA, 0, 0, 0, "factor 0");
  refused(testing::kSharedGemmA, 0, 2, 2, "offset 2");
  ASSERT_TRUE(s.StorageAlign(testing::kSharedGemmA, 0, 2, 1).ok());
  refused(testing::kSharedGemmA, 0, 32, 1, "already aligned");
  for (const char* json : {R"({"format":1,"steps":[["SA",1,0,2]]})", R"({"format":1,"steps":[["SA",1,0,4294967298,1]]})"}) {
    absl::StatusOr<std::vector<schedule::Step>> bad = schedule::StepsFromJson(json);
    ASSERT_FALSE(bad.ok()) << json;
    EXPECT_NE(std::string(bad.status().message()).find("malformed storage_align step"), std::string::npos) << bad.status();
  }
}

}  // namespace
}  // namespace tunefarm::tir
