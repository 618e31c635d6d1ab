// Evolutionary search: the step-list edits, each mutation rule (every emitted program is new,
// valid, replays from its record, and computes what the DAG means: the loop-IR interpreter
// against the plain DAG evaluator), and the search itself under synthetic scores.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "common/strings.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/matmul.h"
#include "compiler/ops/normalization.h"
#include "compiler/schedule/step_json.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/test_dags.h"
#include "tuner/evolution/evolutionary_search.h"
#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/search_space/initial_population.h"

namespace tunefarm::tuner {
namespace {

using tunefarm::testing::GemmDag;
using tunefarm::testing::ConvBiasReluDag;

using schedule::State;
using schedule::Step;
using te::DType;
using DagPtr = std::shared_ptr<const te::ComputeDag>;

// AVX2, four cores: 8 lanes, 16 registers (a register tile of 128 accumulators).
SearchTarget TestTarget() {
  auto t = codegen::Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell -num-cores=4");
  EXPECT_TRUE(t.ok()) << t.status();
  return SearchTarget::FromTarget(*t);
}



struct Workload {
  std::string name;
  DagPtr dag;
};

// Small GEMM / conv / dense DAGs (interpretable), and kernels whose stages random annotation
// places (the compute-location rule's ground): an rfactor stage, softmax, layer norm.
std::vector<Workload> Workloads() {
  std::vector<Workload> out;
  out.push_back({"gemm", GemmDag(16, 24, 32)});
  out.push_back({"gemm_bias", testing::GemmBiasDag(12, 20, 18)});
  out.push_back({"conv3x3_bias_relu", ConvBiasReluDag(3, 8, 4)});
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {5, 12});
    auto w = b.Placeholder("w", DType::kFloat32, {6, 12}, true);
    auto bias = b.Placeholder("bias", DType::kFloat32, {6}, true);
    out.push_back({"dense_bias_relu", b.Build({ops::Relu(b, ops::OrDie(ops::Dense(b, x, w, bias)))})});
  }
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {1, 96});
    auto w = b.Placeholder("w", DType::kFloat32, {5, 96}, true);
    out.push_back({"dense_gemv", b.Build({ops::OrDie(ops::Dense(b, x, w, std::nullopt))})});
  }
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {6, 40});
    out.push_back({"softmax", b.Build({ops::Softmax(b, x)})});
  }
  {
    te::DagBuilder b;
    auto x = b.Placeholder("x", DType::kFloat32, {4, 24});
    auto gamma = b.Placeholder("gamma", DType::kFloat32, {24}, true);
    auto beta = b.Placeholder("beta", DType::kFloat32, {24}, true);
    out.push_back({"layer_norm", b.Build({ops::LayerNorm(b, x, gamma, beta, 1e-5)})});
  }
  return out;
}

std::vector<State> Programs(const DagPtr& dag, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  SampleStats stats;
  std::vector<State> programs = SampleInitialPopulation(dag, TestTarget(), n, rng, &stats);
  EXPECT_FALSE(programs.empty()) << stats.Summary();
  return programs;
}

int RuleIndex(std::string_view name) {
  for (size_t r = 0; r < MutationRules().size(); ++r)
    if (MutationRules()[r].name == name) return static_cast<int>(r);
  ADD_FAILURE() << "no rule " << name;
  return 0;
}

std::string StepJson(const Step& s) { return schedule::StepsToJson({s}); }

// Indices of the steps that differ, when both lists have the same length.
std::vector<size_t> DifferingSteps(const State& a, const State& b) {
  std::vector<size_t> out;
  if (a.steps().size() != b.steps().size()) return {static_cast<size_t>(-1)};
  for (size_t i = 0; i < a.steps().size(); ++i)
    if (StepJson(a.steps()[i]) != StepJson(b.steps()[i])) out.push_back(i);
  return out;
}

// The loops of a stage: "name(extent)@annotation ..." (compared across programs).
std::string Loops(const State& s, int stage) {
  std::vector<std::string> parts;
  const schedule::Stage& st = s.stage(stage);
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i)
    parts.push_back(StrCat(st.node_of(i).name, "(", st.node_of(i).extent, ")@",
                           schedule::IterAnnotationName(st.iters[i].annotation)));
  return StrJoin(parts, " ");
}

// --- Step edits ---

// A split of a loop an earlier split made records that loop's extent. Replaying after the first
// split changed takes the extent the loop has now, and refuses lengths that would leave a tail.
TEST(StepEdit, ReplayRederivesTheExtentOfASplitOfASplitLoop) {
  DagPtr dag = GemmDag(64, 64, 64);
  State s(dag);
  const int c = static_cast<int>(s.stages().size()) - 1;
  ASSERT_TRUE(s.Split(c, 0, {8}).ok());  // i -> i.0(8) i.1(8)
  ASSERT_TRUE(s.Split(c, 1, {4}).ok());  // i.1 -> i.1.0(2) i.1.1(4), recorded extent 8
  std::vector<Step> steps = s.steps();
  std::get<schedule::SplitStep>(steps[0]).lengths = {16};  // i.1 now has 16 iterations
  EXPECT_FALSE(State::FromJson(dag, schedule::StepsToJson(steps)).ok()) << "the plain replay checks the extent";
  auto replayed = ReplaySteps(dag, steps);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(std::get<schedule::SplitStep>(replayed->steps()[1]).extent, 16);
  EXPECT_EQ(replayed->stage(c).node_of(1).extent, 4);  // i.1.0: 16 / 4
  EXPECT_LT(testing::InterpretedError(*replayed, 3), 1e-3);

  std::get<schedule::SplitStep>(steps[0]).lengths = {2};  // i.1 has 2 iterations: 4 leaves a tail
  EXPECT_FALSE(ReplaySteps(dag, steps).ok());
}

TEST(StepEdit, InsertAndEraseRenumberFollowSplits) {
  std::vector<Step> steps = {schedule::SplitStep{0, 0, 8, {2}}, schedule::ComputeRootStep{1},
                             schedule::FollowSplitStep{1, 0, 0, 1}, schedule::FollowFusedSplitStep{1, 0, {0, 2}, 0, true}};
  InsertStep(&steps, 1, schedule::ComputeRootStep{2});
  EXPECT_EQ(std::get<schedule::FollowSplitStep>(steps[3]).src_step, 0);
  EXPECT_EQ(std::get<schedule::FollowFusedSplitStep>(steps[4]).src_steps, (std::vector<int>{0, 3}));
  ASSERT_TRUE(EraseStep(&steps, 1).ok());
  EXPECT_EQ(std::get<schedule::FollowFusedSplitStep>(steps[3]).src_steps, (std::vector<int>{0, 2}));
  EXPECT_FALSE(EraseStep(&steps, 0).ok()) << "a follow split reads it";
}

// --- Mutation rules ---

struct RuleCase {
  std::string rule;
  int parents;
  int draws;  // per parent
};

// Applies one rule to programs of every workload; every emitted mutant must be new, valid,
// replay from its JSON, compute the DAG's result, and keep the rule's invariant.
void CheckRule(const RuleCase& rc, const std::function<void(const State& parent, const State& mutant)>& invariant,
               const std::set<std::string>& must_apply) {
  const int rule = RuleIndex(rc.rule);
  const SearchTarget target = TestTarget();
  for (const Workload& w : Workloads()) {
    std::vector<State> parents = Programs(w.dag, rc.parents, 11);
    Mutator mutator(target);
    std::mt19937_64 rng(5);
    int emitted = 0, wrong = 0;
    for (const State& parent : parents) {
      const std::string parent_hash = parent.Hash();
      for (int d = 0; d < rc.draws; ++d) {
        auto m = mutator.MutateWith(rule, parent, parent_hash, rng);
        if (!m.ok()) continue;
        ++emitted;
        EXPECT_NE(m->hash, parent_hash);
        EXPECT_EQ(m->hash, m->program.Hash());
        EXPECT_TRUE(CheckProgram(m->program, target).ok()) << m->program.ToString();
        auto replayed = State::FromJson(w.dag, m->program.ToJson());
        ASSERT_TRUE(replayed.ok()) << replayed.status() << "\n" << m->program.ToJson();
        EXPECT_EQ(replayed->Hash(), m->hash);
        const double error = testing::InterpretedError(m->program, 7);
        if (!(error < 1e-3) && ++wrong <= 3)
          ADD_FAILURE() << w.name << " " << rc.rule << ": error " << error << "\nparent " << parent.ToString()
                        << "\nmutant " << m->program.ToString() << "\n" << m->program.ToJson();
        invariant(parent, m->program);
      }
    }
    std::printf("[ %s / %s ] %d mutants from %zu parents\n%s\n", w.name.c_str(), rc.rule.c_str(), emitted,
                parents.size(), mutator.stats().Summary().c_str());
    if (must_apply.count(w.name)) {
      EXPECT_GT(emitted, 0) << w.name;
    }
  }
}

TEST(MutationRules, TableHasAnsorsWeightsInOrderThenLayoutRewriteAndStorageAlign) {
  const auto& rules = MutationRules();
  ASSERT_EQ(rules.size(), 6u);
  EXPECT_EQ(rules[0].name, "tile size");
  EXPECT_DOUBLE_EQ(rules[0].weight, 0.90);
  EXPECT_EQ(rules[1].name, "auto-unroll");
  EXPECT_DOUBLE_EQ(rules[1].weight, 0.04);
  EXPECT_EQ(rules[2].name, "compute location");
  EXPECT_DOUBLE_EQ(rules[2].weight, 0.05);
  EXPECT_EQ(rules[3].name, "parallel");
  EXPECT_DOUBLE_EQ(rules[3].weight, 0.01);
  EXPECT_EQ(rules[4].name, "layout rewrite");
  EXPECT_DOUBLE_EQ(rules[4].weight, 0.02);
  EXPECT_EQ(rules[5].name, "storage align");
  EXPECT_DOUBLE_EQ(rules[5].weight, 0.02);
}

// One split changes; its extent stays and its lengths still divide it; the innermost length
// stays within 64 and a stage's register tile within the register file.
TEST(MutationRules, TileSizeMovesAFactorWithinOneSplit) {
  const SearchTarget target = TestTarget();
  CheckRule(
      {"tile size", 12, 4},
      [&](const State& parent, const State& mutant) {
        std::vector<size_t> diff = DifferingSteps(parent, mutant);
        ASSERT_EQ(diff.size(), 1u);
        const auto* before = std::get_if<schedule::SplitStep>(&parent.steps()[diff[0]]);
        const auto* after = std::get_if<schedule::SplitStep>(&mutant.steps()[diff[0]]);
        ASSERT_TRUE(before && after);
        EXPECT_EQ(before->stage, after->stage);
        EXPECT_EQ(before->iter, after->iter);
        EXPECT_EQ(before->extent, after->extent);
        int64_t product = 1;
        for (const auto& l : after->lengths) product *= *l;
        EXPECT_EQ(after->extent % product, 0) << StepJson(*after);
        if (*after->lengths.back() > *before->lengths.back()) {
          EXPECT_LE(*after->lengths.back(), kMaxInnermostSplitLength);
        }
        // Register tiles: the innermost space lengths of each stage's multi-level splits.
        ReplayTrace trace;
        ASSERT_TRUE(ReplaySteps(mutant.original_dag(), mutant.steps(), &trace).ok());
        std::map<std::pair<int, int>, int64_t> tiles;
        for (size_t i = 0; i < mutant.steps().size(); ++i)
          if (const auto* sp = std::get_if<schedule::SplitStep>(&mutant.steps()[i]);
              sp && sp->lengths.size() >= 2 && trace.split_kind[i] == schedule::IterKind::kSpace) {
            auto [it, fresh] = tiles.emplace(std::make_pair(sp->stage, trace.stage_count[i]), 1);
            it->second *= *sp->lengths.back();
          }
        for (const auto& [stage, tile] : tiles) EXPECT_LE(tile, target.RegisterTileElements()) << mutant.ToString();
      },
      {"gemm", "gemm_bias", "conv3x3_bias_relu", "dense_bias_relu", "dense_gemv"});
}

TEST(MutationRules, AutoUnrollChangesOnlyAPragma) {
  CheckRule(
      {"auto-unroll", 6, 2},
      [](const State& parent, const State& mutant) {
        std::vector<size_t> diff = DifferingSteps(parent, mutant);
        ASSERT_EQ(diff.size(), 1u);
        const auto* before = std::get_if<schedule::PragmaStep>(&parent.steps()[diff[0]]);
        const auto* after = std::get_if<schedule::PragmaStep>(&mutant.steps()[diff[0]]);
        ASSERT_TRUE(before && after);
        EXPECT_EQ(before->stage, after->stage);
        EXPECT_EQ(before->iter, after->iter);
        EXPECT_NE(before->auto_unroll_max_step, after->auto_unroll_max_step);
      },
      {"gemm", "conv3x3_bias_relu", "dense_bias_relu", "softmax"});
}

// One stage moves; every other stage keeps its place and its loops.
TEST(MutationRules, ComputeLocationMovesOneStageOnly) {
  CheckRule(
      {"compute location", 10, 3},
      [](const State& parent, const State& mutant) {
        ASSERT_EQ(parent.stages().size(), mutant.stages().size());
        int moved = -1;
        for (int s = 0; s < static_cast<int>(parent.stages().size()); ++s) {
          const schedule::Stage& a = parent.stage(s);
          const schedule::Stage& b = mutant.stage(s);
          if (a.location != b.location || a.attach_stage != b.attach_stage ||
              (a.location == schedule::ComputeLocation::kAt && a.attach_node != b.attach_node)) {
            EXPECT_EQ(moved, -1) << "two stages moved";
            moved = s;
          }
        }
        ASSERT_GE(moved, 0) << "nothing moved";
        for (int s = 0; s < static_cast<int>(parent.stages().size()); ++s)
          if (s != moved) {
            EXPECT_EQ(Loops(parent, s), Loops(mutant, s)) << "stage " << s;
          }
      },
      {"softmax", "layer_norm"});
}

// One stage's parallel loop fuses another number of loops; nothing else changes.
TEST(MutationRules, ParallelChangesOneStagesFusedLoops) {
  CheckRule(
      {"parallel", 12, 3},
      [](const State& parent, const State& mutant) {
        ASSERT_EQ(parent.stages().size(), mutant.stages().size());
        int changed = 0;
        for (int s = 0; s < static_cast<int>(parent.stages().size()); ++s) {
          if (Loops(parent, s) == Loops(mutant, s)) continue;
          ++changed;
          EXPECT_EQ(mutant.stage(s).iters[0].annotation, schedule::IterAnnotation::kParallel);
          EXPECT_NE(parent.stage(s).iters.size(), mutant.stage(s).iters.size());
        }
        EXPECT_EQ(changed, 1);
      },
      {"gemm", "conv3x3_bias_relu"});
}

int LayoutRewrites(const State& s) {
  int n = 0;
  for (const Step& step : s.steps()) n += std::holds_alternative<schedule::LayoutRewriteStep>(step);
  return n;
}

// One constant's layout toggles: one LR step more or fewer, every tiled stage keeps its loops
// (the stages after the constant move by one), and both directions happen.
TEST(MutationRules, LayoutRewriteTogglesOneConstant) {
  int added = 0, removed = 0;
  CheckRule(
      {"layout rewrite", 12, 3},
      [&](const State& parent, const State& mutant) {
        const int delta = LayoutRewrites(mutant) - LayoutRewrites(parent);
        ASSERT_TRUE(delta == 1 || delta == -1) << parent.ToString() << "\n" << mutant.ToString();
        (delta == 1 ? added : removed)++;
        ASSERT_EQ(mutant.stages().size(), parent.stages().size() + delta);
        // The output stage is the last one in both: its loops stay.
        EXPECT_EQ(Loops(parent, static_cast<int>(parent.stages().size()) - 1),
                  Loops(mutant, static_cast<int>(mutant.stages().size()) - 1));
      },
      {"gemm", "conv3x3_bias_relu", "dense_bias_relu", "dense_gemv"});
  EXPECT_GT(added, 0);
  EXPECT_GT(removed, 0);
}

// A tile-size edit of a split that follow splits read: the followers change with it (when the
// edit touches the levels they copy) and the program stays correct.
TEST(MutationRules, FollowSplitsFollowAnEditedSplit) {
  DagPtr dag = testing::GemmBiasDag(32, 32, 16);
  Mutator mutator(TestTarget());
  std::mt19937_64 rng(3);
  int edits_of_sources = 0, followers_changed = 0;
  for (const State& parent : Programs(dag, 20, 4)) {
    for (int d = 0; d < 6; ++d) {
      auto m = mutator.MutateWith(RuleIndex("tile size"), parent, parent.Hash(), rng);
      if (!m.ok()) continue;
      const size_t edited = DifferingSteps(parent, m->program)[0];
      for (const Step& s : m->program.steps())
        if (const auto* f = std::get_if<schedule::FollowSplitStep>(&s); f && f->src_step == static_cast<int>(edited)) {
          ++edits_of_sources;
          followers_changed += Loops(parent, f->stage) != Loops(m->program, f->stage);
        }
      EXPECT_LT(testing::InterpretedError(m->program, 1), 1e-3);
    }
  }
  EXPECT_GT(edits_of_sources, 0);
  EXPECT_GT(followers_changed, 0);
}

// --- The search ---

// A score the search can climb: the innermost lengths of all splits, added.
std::vector<float> InnermostScore(const std::vector<State>& programs) {
  std::vector<float> out;
  for (const State& p : programs) {
    float s = 1;
    for (const Step& step : p.steps())
      if (const auto* sp = std::get_if<schedule::SplitStep>(&step)) s += static_cast<float>(sp->lengths.back().value_or(1));
    out.push_back(s);
  }
  return out;
}

EvolutionOptions SmallOptions(uint64_t seed) {
  EvolutionOptions o;
  o.population = 96;
  o.generations = 4;
  o.seed = seed;
  return o;
}

TEST(EvolutionarySearch, ImprovesTheBestScoreAndReturnsValidDistinctPrograms) {
  const SearchTarget target = TestTarget();
  std::vector<State> initial = Programs(GemmDag(64, 64, 64), 48, 21);
  const std::vector<float> initial_scores = InnermostScore(initial);
  const float initial_best = *std::max_element(initial_scores.begin(), initial_scores.end());
  EvolutionResult r = EvolutionarySearch(initial, target, InnermostScore, {}, 20, SmallOptions(1));
  std::printf("%s\n", r.stats.Summary().c_str());
  ASSERT_EQ(r.programs.size(), 20u);
  EXPECT_EQ(r.num_random, 1);  // ceil(0.05 x 20)
  EXPECT_GT(r.scores[0], initial_best);
  for (size_t i = 0; i + 1 < r.programs.size() - r.num_random; ++i) EXPECT_GE(r.scores[i], r.scores[i + 1]);
  std::set<std::string> hashes;
  for (size_t i = 0; i < r.programs.size(); ++i) {
    EXPECT_TRUE(hashes.insert(r.hashes[i]).second) << "duplicate";
    EXPECT_EQ(r.hashes[i], r.programs[i].Hash());
    EXPECT_TRUE(CheckProgram(r.programs[i], target).ok());
  }
  EXPECT_EQ(r.stats.generations, 4);
  EXPECT_GT(r.stats.mutations.rules[0].applied, 0);
}

TEST(EvolutionarySearch, NeverReturnsAnExcludedHash) {
  std::vector<State> initial = Programs(GemmDag(64, 64, 64), 48, 21);
  EvolutionResult first = EvolutionarySearch(initial, TestTarget(), InnermostScore, {}, 20, SmallOptions(1));
  std::unordered_set<std::string> measured(first.hashes.begin(), first.hashes.end());
  for (const State& p : initial) measured.insert(p.Hash());
  EvolutionResult second = EvolutionarySearch(initial, TestTarget(), InnermostScore, measured, 20, SmallOptions(1));
  EXPECT_EQ(second.programs.size(), 20u);
  for (const std::string& h : second.hashes) EXPECT_EQ(measured.count(h), 0u);
}

TEST(EvolutionarySearch, IsDeterministicForASeed) {
  std::vector<State> initial = Programs(ConvBiasReluDag(3, 8, 4), 32, 2);
  EvolutionResult a = EvolutionarySearch(initial, TestTarget(), InnermostScore, {}, 12, SmallOptions(9));
  EvolutionResult b = EvolutionarySearch(initial, TestTarget(), InnermostScore, {}, 12, SmallOptions(9));
  EXPECT_EQ(a.hashes, b.hashes);
  EXPECT_EQ(a.scores, b.scores);
}

// Mutation runs on several workers, with one generator per slot: the number of workers does not
// change the result, nor the counts.
TEST(EvolutionarySearch, GivesTheSameResultOnOneWorkerAndOnFour) {
  std::vector<State> initial = Programs(ConvBiasReluDag(3, 8, 4), 32, 2);
  EvolutionOptions one = SmallOptions(5), four = SmallOptions(5);
  one.threads = 1;
  four.threads = 4;
  EvolutionResult a = EvolutionarySearch(initial, TestTarget(), InnermostScore, {}, 12, one);
  EvolutionResult b = EvolutionarySearch(initial, TestTarget(), InnermostScore, {}, 12, four);
  ASSERT_EQ(a.programs.size(), 12u);
  EXPECT_EQ(a.hashes, b.hashes);
  EXPECT_EQ(a.scores, b.scores);
  EXPECT_EQ(a.stats.copies, b.stats.copies);
  EXPECT_EQ(a.stats.scored, b.stats.scored);
  for (size_t r = 0; r < a.stats.mutations.rules.size(); ++r) {
    EXPECT_EQ(a.stats.mutations.rules[r].tried, b.stats.mutations.rules[r].tried) << r;
    EXPECT_EQ(a.stats.mutations.rules[r].applied, b.stats.mutations.rules[r].applied) << r;
  }
}

// With check_mutants off, the score function reports invalid programs (as a caller that lowers
// to extract features does); the search drops them, and still returns only valid programs.
TEST(EvolutionarySearch, ScoreCanReportInvalidPrograms) {
  const SearchTarget target = TestTarget();
  std::vector<State> initial = Programs(ConvBiasReluDag(3, 8, 4), 32, 2);
  int64_t lowered = 0;
  ScoreFunction score = [&](const std::vector<State>& programs) {
    std::vector<float> s = InnermostScore(programs);
    for (size_t i = 0; i < programs.size(); ++i, ++lowered)
      if (!CheckProgram(programs[i], target).ok()) s[i] = -INFINITY;
    return s;
  };
  EvolutionOptions o = SmallOptions(4);
  o.check_mutants = false;
  EvolutionResult r = EvolutionarySearch(initial, target, score, {}, 12, o);
  std::printf("%s\n", r.stats.Summary().c_str());
  EXPECT_EQ(r.programs.size(), 12u);
  EXPECT_EQ(lowered, r.stats.scored);
  for (const State& p : r.programs) EXPECT_TRUE(CheckProgram(p, target).ok());
}

}  // namespace
}  // namespace tunefarm::tuner
