// Candidate generation: every candidate replays, lowers and computes what the default schedule
// computes (checked with the loop-IR interpreter on random inputs); candidates are distinct
// and the sequence is a function of the seed.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/common/rewritten_weights.h"
#include "tests/common/test_dags.h"
#include "tuner/candidate_generator.h"
#include "tuner/search_space/gpu_default_program.h"
#include "tuner/search_space/shared_tiles.h"

namespace tunefarm::tuner {
namespace {

schedule::RuleContext Rules() {
  schedule::RuleContext ctx;
  ctx.vector_lanes = 8;
  ctx.num_threads = 4;
  return ctx;
}

SearchTarget Space() {
  SearchTarget t;
  t.vector_lanes = 8;
  t.vector_registers = 16;
  t.cores = 4;
  return t;
}

// Runs `state` through the interpreter: every float32 argument before the outputs gets inputs
// from `seed`; returns the outputs, concatenated.
std::vector<float> Interpreted(const schedule::State& state, uint64_t seed) {
  auto f = tir::Lower(state, "k");
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return {};
  // Inputs as the DAG declares them, then in the layout the schedule reads them.
  const te::ComputeDag& dag = *state.original_dag();
  std::vector<std::vector<float>> buffers;
  for (int a = 0; a < static_cast<int>(dag.inputs().size()); ++a)
    buffers.push_back(tunefarm::testing::RandomFloats(dag.tensor(dag.inputs()[a]).NumElements(), seed + a));
  EXPECT_TRUE(tunefarm::testing::RewriteFloatInputs(state, &buffers).ok());
  for (int a = static_cast<int>(buffers.size()); a < f->num_args; ++a)
    buffers.push_back(std::vector<float>(f->buffers[a].NumElements(), NAN));
  std::vector<void*> args;
  for (std::vector<float>& b : buffers) args.push_back(b.data());
  absl::Status st = tir::Interpret(*f, args);
  EXPECT_TRUE(st.ok()) << st;
  std::vector<float> out;
  for (int a = 0; a < f->num_args; ++a)
    if (f->buffers[a].role == tir::ArgRole::kOutput) out.insert(out.end(), buffers[a].begin(), buffers[a].end());
  return out;
}

std::vector<std::string> Hashes(const std::vector<Candidate>& cs) {
  std::vector<std::string> h;
  for (const Candidate& c : cs) h.push_back(c.hash);
  return h;
}

struct DagCase {
  const char* name;
  std::shared_ptr<const te::ComputeDag> dag;
};

std::vector<DagCase> Dags() {
  return {{"gemm_bias", tunefarm::testing::GemmBiasDag(24, 32, 16)},
          {"elementwise_chain", tunefarm::testing::ElementwiseChainDag(12, 40)},
          {"padded_conv1d", tunefarm::testing::PaddedConv1dDag(3, 20, 5, 2)}};
}

TEST(CandidateGenerator, FirstCandidateIsTheDefaultSchedule) {
  auto dag = tunefarm::testing::GemmBiasDag(16, 16, 16);
  auto gen = CandidateGenerator::Create(dag, Rules(), Space(), 7);
  ASSERT_TRUE(gen.ok()) << gen.status();
  auto expected = schedule::ApplyDefaultSchedule(dag, Rules());
  ASSERT_TRUE(expected.ok());
  std::set<std::string> seen;
  std::vector<Candidate> first = gen->Next(1, &seen);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].hash, expected->Hash());
  EXPECT_EQ(gen->default_candidate().json, expected->ToJson());
}

// On a GPU the first candidate is the default program (shared and register tiles), not one
// thread per output point (the reference the tuner checks it against).
TEST(CandidateGenerator, OnAGpuTheFirstCandidateIsTheDefaultProgram) {
  auto dag = tunefarm::testing::GemmBiasDag(64, 64, 64);
  SearchTarget gpu = SearchTarget::FromTarget(codegen::Target::Parse("cuda -arch=sm_80 -num-sms=4").value());
  auto gen = CandidateGenerator::Create(dag, Rules(), gpu, 7);
  ASSERT_TRUE(gen.ok()) << gen.status();
  auto expected = GpuDefaultProgram(dag, gpu);
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::set<std::string> seen;
  std::vector<Candidate> first = gen->Next(1, &seen);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].hash, expected->Hash());
  EXPECT_NE(first[0].json.find("shared"), std::string::npos);
}

// A quarter of a GPU task's candidates replay the default program with mutated tile sizes: its
// padded rows follow (FitFetchesToTiles). A 1x1 conv's default pads its weight tile's rows
// (axis 0); in every candidate a padded tile still pads its rows, to a length it changes.
TEST(CandidateGenerator, OnAGpuReplaysOfTheDefaultProgramKeepPaddingOnTheTilesRows) {
  auto dag = tunefarm::testing::PointwiseConvDag(64, 16, 55);
  SearchTarget gpu = SearchTarget::FromTarget(codegen::Target::Parse("cuda -arch=sm_90 -num-sms=132").value());
  auto gen = CandidateGenerator::Create(dag, Rules(), gpu, 3);
  ASSERT_TRUE(gen.ok()) << gen.status();
  std::set<std::string> seen;
  std::vector<Candidate> cs = gen->Next(48, &seen);
  ASSERT_GE(cs.size(), 24u);
  int padded = 0;
  for (const Candidate& c : cs)
    for (int st = 0; st < static_cast<int>(c.state.stages().size()); ++st) {
      const schedule::Stage& stage = c.state.stage(st);
      if (stage.storage_align_factor == 0) continue;
      absl::StatusOr<SharedTile> tile = EstimateSharedTile(c.state, st);
      ASSERT_TRUE(tile.ok()) << tile.status();
      EXPECT_EQ(stage.storage_align_axis, tile->RowDim() - 1) << c.state.ToString();
      EXPECT_NE(tile->extents[tile->RowDim()] % stage.storage_align_factor, stage.storage_align_offset)
          << c.state.ToString();
      ++padded;
    }
  EXPECT_GT(padded, 0);
}

TEST(CandidateGenerator, CandidatesAreValidDistinctAndComputeTheDefaultsResult) {
  for (const DagCase& c : Dags()) {
    SCOPED_TRACE(c.name);
    auto gen = CandidateGenerator::Create(c.dag, Rules(), Space(), 1);
    ASSERT_TRUE(gen.ok()) << gen.status();
    std::set<std::string> seen;
    std::vector<Candidate> cs = gen->Next(12, &seen);
    ASSERT_GE(cs.size(), 4u) << "too few variants of " << c.name;
    std::set<std::string> distinct;
    const std::vector<float> expected = Interpreted(gen->default_candidate().state, 42);
    for (const Candidate& cand : cs) {
      EXPECT_TRUE(distinct.insert(cand.hash).second) << "repeated " << cand.json;
      EXPECT_EQ(cand.hash, cand.state.Hash());
      // The stored form replays to the same schedule.
      auto replayed = schedule::State::FromJson(c.dag, cand.json);
      ASSERT_TRUE(replayed.ok()) << replayed.status() << "\n" << cand.json;
      EXPECT_EQ(replayed->Hash(), cand.hash);
      const std::vector<float> got = Interpreted(cand.state, 42);
      ASSERT_EQ(got.size(), expected.size());
      float worst = 0;
      for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - expected[i]));
      EXPECT_LE(worst, 1e-4f) << cand.state.ToString() << "\n" << cand.json;
    }
  }
}

TEST(CandidateGenerator, TheSequenceIsAFunctionOfTheSeed) {
  auto dag = tunefarm::testing::GemmBiasDag(24, 32, 16);
  auto a = CandidateGenerator::Create(dag, Rules(), Space(), 99);
  auto b = CandidateGenerator::Create(dag, Rules(), Space(), 99);
  auto other = CandidateGenerator::Create(dag, Rules(), Space(), 100);
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  std::set<std::string> sa, sb, so;
  std::vector<std::string> ha = Hashes(a->Next(10, &sa)), hb = Hashes(b->Next(10, &sb));
  std::vector<std::string> ho = Hashes(other->Next(10, &so));
  EXPECT_EQ(ha, hb);
  EXPECT_NE(ha, ho);
}

TEST(CandidateGenerator, SeenHashesAreSkippedAndTheRestOfTheSequenceFollows) {
  // What a resumed job relies on: with the first k hashes already seen, the generator yields
  // the rest of the same sequence.
  auto dag = tunefarm::testing::GemmBiasDag(24, 32, 16);
  auto fresh = CandidateGenerator::Create(dag, Rules(), Space(), 5);
  ASSERT_TRUE(fresh.ok());
  std::set<std::string> seen;
  std::vector<std::string> all = Hashes(fresh->Next(9, &seen));
  ASSERT_EQ(all.size(), 9u);
  auto resumed = CandidateGenerator::Create(dag, Rules(), Space(), 5);
  ASSERT_TRUE(resumed.ok());
  std::set<std::string> measured(all.begin(), all.begin() + 4);
  std::vector<std::string> rest = Hashes(resumed->Next(5, &measured));
  EXPECT_EQ(rest, std::vector<std::string>(all.begin() + 4, all.end()));
}

TEST(CandidateGenerator, ASmallSpaceRunsOut) {
  auto dag = tunefarm::testing::ElementwiseChainDag(1, 3);
  auto gen = CandidateGenerator::Create(dag, Rules(), Space(), 3);
  ASSERT_TRUE(gen.ok());
  gen->max_attempts = 50;
  std::set<std::string> seen;
  std::vector<Candidate> cs = gen->Next(1000, &seen);
  EXPECT_LT(cs.size(), 1000u);
  EXPECT_GE(cs.size(), 1u);
  EXPECT_TRUE(gen->Next(10, &seen).empty());
}

TEST(SplitLengthChoices, DivisorsAndNeighboursWithinTheLimit) {
  EXPECT_EQ(SplitLengthChoices(24, 8, 64), (std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 24}));
  EXPECT_EQ(SplitLengthChoices(100, 4, 8), (std::vector<int64_t>{1, 2, 4, 5, 8}));
  EXPECT_EQ(SplitLengthChoices(7, 7, 64), (std::vector<int64_t>{1, 3, 7}));
  EXPECT_TRUE(SplitLengthChoices(0, 1, 64).empty());
}

}  // namespace
}  // namespace tunefarm::tuner
