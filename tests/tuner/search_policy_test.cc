// The evolutionary search policy and the job's cost model, without a farm: costs are made up
// from the programs' features, so the policy has something a model can learn; every program a
// policy proposes must still be a valid, correct and unmeasured program.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/codegen/host_target.h"
#include "compiler/schedule/default_rules.h"
#include "tests/common/interpreted_error.h"
#include "tests/common/test_dags.h"
#include "tests/farm/child_process.h"
#include "tuner/evolution_search_policy.h"
#include "tuner/features/program_features.h"
#include "tuner/job_cost_model.h"
#include "tuner/search_space/initial_population.h"

namespace tunefarm::tuner {
namespace {

using tunefarm::testing::TempDir;

SearchTarget Target() {
  SearchTarget t = SearchTarget::FromTarget(codegen::HostTarget());
  t.cores = 1;
  return t;
}

// A made-up cost that depends on the program: the fewer loops the first store sits in and the
// more it vectorizes, the faster (any deterministic function of the features does).
double MadeUpCost(const Candidate& c) {
  auto f = ExtractFeatures(*c.lowered);
  if (!f.ok() || f->rows == 0) return 1;
  double sum = 0;
  for (int j = 0; j < f->cols; ++j) sum += f->row(0)[j] * (j % 7 + 1);
  return 1e-3 * (1 + std::fmod(sum, 10.0));
}

db::TuningRecord RecordOf(const Candidate& c) {
  db::TuningRecord r;
  r.schedule_hash = c.hash;
  r.costs_sec = {MadeUpCost(c)};
  return r;
}

TuningTask GemmTask() {
  auto dag = tunefarm::testing::GemmBiasDag(24, 32, 16);
  return {dag, dag->WorkloadKey(), 1};
}

Candidate DefaultOf(const TuningTask& task) {
  auto state = schedule::ApplyDefaultSchedule(task.dag, {Target().vector_lanes, 1});
  EXPECT_TRUE(state.ok());
  auto c = MakeCandidate(std::move(*state), Target());
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

void ExpectValidNewAndCorrect(const std::vector<Candidate>& batch, const std::set<std::string>& measured) {
  std::set<std::string> seen;
  for (const Candidate& c : batch) {
    EXPECT_FALSE(measured.count(c.hash)) << "proposed a measured program";
    EXPECT_TRUE(seen.insert(c.hash).second) << "proposed a program twice";
    EXPECT_TRUE(CheckProgram(c.state, Target()).ok());
    EXPECT_LE(tunefarm::testing::InterpretedError(c.state, 5), 1e-3) << c.json;
  }
}

TEST(EvolutionSearchPolicy, ProposesValidNewProgramsBeforeAndAfterTheModelLearns) {
  TempDir dir;
  JobCostModel model(dir.path() + "/m.xgb", {}, nullptr);
  TuningTask task = GemmTask();
  EvolutionPolicyOptions options;
  options.population = 64;
  options.generations = 2;
  auto policy = EvolutionSearchPolicy::Create(task, DefaultOf(task), Target(), &model, {}, options, 7);
  ASSERT_TRUE(policy.ok()) << policy.status();

  std::set<std::string> measured;
  for (int round = 0; round < 3; ++round) {
    std::vector<Candidate> batch = (*policy)->NextBatch(8, measured);
    ASSERT_FALSE(batch.empty());
    if (round == 0) {
      EXPECT_EQ(batch[0].hash, (*policy)->default_candidate().hash) << "the default opens";
    }
    EXPECT_EQ(model.trained(), round > 0);
    ExpectValidNewAndCorrect(batch, measured);
    if (round > 0) {
      // The model chose them from what it scored: they keep the lowering scoring made, and it
      // is the program's own (the same features as lowering it afresh).
      EXPECT_GT((*policy)->last_reused_lowerings(), 0);
      for (const Candidate& c : batch) {
        auto fresh = MakeCandidate(c.state, Target());
        ASSERT_TRUE(fresh.ok()) << fresh.status();
        auto kept = ExtractFeatures(*c.lowered), again = ExtractFeatures(*fresh->lowered);
        ASSERT_TRUE(kept.ok() && again.ok());
        EXPECT_EQ(kept->values, again->values) << c.json;
      }
    }
    std::vector<db::TuningRecord> records;
    for (const Candidate& c : batch) records.push_back(RecordOf(c));
    std::vector<MeasuredCandidate> results;
    for (size_t i = 0; i < batch.size(); ++i) {
      results.push_back({&batch[i], &records[i]});
      measured.insert(batch[i].hash);
    }
    (*policy)->Observe(results);
    EXPECT_TRUE(model.trained());
    EXPECT_EQ(model.samples(), static_cast<int64_t>(measured.size()));
  }
}

// Samples with made-up costs for a model to train on.
void AddSamples(JobCostModel& model, int n) {
  std::mt19937_64 rng(3);
  TuningTask task = GemmTask();
  for (const schedule::State& p : SampleInitialPopulation(task.dag, Target(), n, rng, nullptr)) {
    auto c = MakeCandidate(p, Target());
    ASSERT_TRUE(c.ok());
    auto f = ExtractFeatures(*c->lowered);
    ASSERT_TRUE(f.ok());
    model.Add(task.workload_key, *f, MadeUpCost(*c));
  }
}

TEST(JobCostModel, ACorruptSavedModelIsSaidAndRetrained) {
  TempDir dir;
  const std::string path = dir.path() + "/job.xgb";
  {
    JobCostModel model(path, {}, nullptr);
    AddSamples(model, 30);
    ASSERT_TRUE(model.Retrain().ok());
    ASSERT_TRUE(std::filesystem::exists(path));
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);  // a crash mid-write, say

  std::vector<std::string> said;
  JobCostModel resumed(path, {}, [&](const std::string& line) { said.push_back(line); });
  AddSamples(resumed, 30);
  resumed.LoadOrTrain();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("cannot be used"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find(path), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("retraining"), std::string::npos) << said[0];
  EXPECT_TRUE(resumed.trained());
  // Retrained and saved again: the next resume loads it.
  std::vector<std::string> again;
  JobCostModel third(path, {}, [&](const std::string& line) { again.push_back(line); });
  third.LoadOrTrain();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_NE(again[0].find("resumed from"), std::string::npos) << again[0];
  EXPECT_TRUE(third.trained());
}

TEST(JobCostModel, AMissingModelIsTrainedFromTheSamplesOrLeftUntrained) {
  TempDir dir;
  std::vector<std::string> said;
  JobCostModel empty(dir.path() + "/none.xgb", {}, [&](const std::string& line) { said.push_back(line); });
  empty.LoadOrTrain();
  EXPECT_FALSE(empty.trained());  // nothing to learn from: random order until the first round
  EXPECT_TRUE(said.empty());
  JobCostModel model(dir.path() + "/none.xgb", {}, [&](const std::string& line) { said.push_back(line); });
  AddSamples(model, 20);
  model.LoadOrTrain();
  EXPECT_TRUE(model.trained());
  EXPECT_TRUE(said.empty());
}

}  // namespace
}  // namespace tunefarm::tuner
