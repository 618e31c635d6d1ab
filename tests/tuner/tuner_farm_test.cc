// The tuner end to end on a loopback farm (a real tracker and agent): tune a model, find the
// records in the database and the schedule in a build; cancel a job; stop a tuner mid-job and
// resume it in another without measuring anything twice.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <thread>

#include "compiler/build/model_builder.h"
#include "compiler/codegen/host_target.h"
#include "compiler/codegen/target.h"
#include "compiler/frontend/onnx_importer.h"
#include "db/tuning_database.h"
#include "tests/common/test_dags.h"
#include "tests/farm/child_process.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/job_runner.h"
#include "tuner/job_spec.h"
#include "tuner/measurer.h"
#include "tuner/search_space/initial_population.h"

namespace tunefarm::tuner {
namespace {

using namespace std::chrono_literals;
using tunefarm::testing::TempDir;
using testing::GemmSpec;
using testing::Records;

const std::string kMatmulModel = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_matmul_2d/model.onnx";

// The build's view of the database, as the CLI's DbScheduleSource gives it.
class DatabaseSource : public build::ScheduleSource {
 public:
  explicit DatabaseSource(db::TuningDatabase* db) : db_(db) {}
  std::vector<build::ScheduleChoice> Candidates(const std::string& key, const std::string& target, int threads,
                                                int limit) const override {
    auto records = db_->TopK(key, target, threads, limit);
    std::vector<build::ScheduleChoice> choices;
    if (records.ok()) {
      for (const db::TuningRecord& r : *records) choices.push_back({r.schedule_json, "db:" + r.record_id});
    }
    return choices;
  }

 private:
  db::TuningDatabase* db_;
};

// Reads the job's progress stream until `until` holds or the stream ends; returns the last.
v1::JobProgress Watch(v1::Tuner::Stub& stub, const std::string& job_id,
                      const std::function<bool(const v1::JobProgress&)>& until) {
  auto context = testing::Context();
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  auto reader = stub.WatchJob(context.get(), request);
  v1::JobProgress progress, last;
  while (reader->Read(&progress)) {
    last = progress;
    if (until(last)) {
      context->TryCancel();
      break;
    }
  }
  reader->Finish();
  return last;
}

bool Final(const v1::JobProgress& p) { return IsFinal(p.state()); }

std::string Submit(v1::Tuner::Stub& stub, const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitJobReply reply;
  grpc::Status status = stub.SubmitJob(testing::Context().get(), request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply.job_id();
}

db::JobState StateInDatabase(const std::string& db_path, const std::string& job_id) {
  auto database = db::TuningDatabase::Open(db_path);
  auto job = (*database)->GetJob(job_id);
  EXPECT_TRUE(job.ok());
  return job->state;
}

class TunerFarm : public ::testing::Test {
 protected:
  void SetUp() override {
    auto farm = testing::LocalFarm::Start();
    ASSERT_TRUE(farm.ok()) << farm.status();
    farm_ = std::move(*farm);
    db_path_ = dir_.path() + "/tune.db";
  }
  std::unique_ptr<TunerServer> StartTuner() {
    auto server = TunerServer::Start(testing::ServerOptions(db_path_, farm_->tracker_address()));
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? std::move(*server) : nullptr;
  }

  TempDir dir_;
  std::unique_ptr<testing::LocalFarm> farm_;
  std::string db_path_;
};

// Builds kMatmulModel for `target_text` (what `compile --db` does) with the schedules of the
// database at `db_path`, and counts the tasks built from its best record for `workload_key`
// (their schedule names it: "db:<record id>"); -1 after a failure.
int TasksBuiltFromTheBestRecord(const std::string& db_path, const std::string& target_text,
                                const std::string& workload_key) {
  auto target = codegen::Target::Parse(target_text);
  auto database = db::TuningDatabase::Open(db_path);
  auto graph = frontend::ImportOnnxFile(kMatmulModel);
  if (!target.ok() || !database.ok() || !graph.ok()) {
    ADD_FAILURE() << target_text << ", " << db_path << ", " << kMatmulModel << ": one does not open";
    return -1;
  }
  DatabaseSource source(database->get());
  build::BuildOptions options;
  options.target = *target;
  options.threads = 1;
  options.schedules = &source;
  auto plan = build::PlanModel(*graph, options);
  absl::Status built = plan.ok() ? build::BuildArtifact(&*plan, options).status() : plan.status();
  if (!built.ok()) {
    ADD_FAILURE() << built;
    return -1;
  }
  auto best = (*database)->Best(workload_key, target_text, 1);
  if (!best.ok() || !best->has_value()) {
    ADD_FAILURE() << "no best record for " << workload_key << " under " << target_text;
    return -1;
  }
  int tuned = 0;
  for (const build::Task& t : plan->exec.tasks) tuned += t.schedule == "db:" + (*best)->record_id;
  return tuned;
}

TEST_F(TunerFarm, TunesAModelAndTheBuildUsesTheBestRecord) {
  // Shared test data is part of the test setup: a missing file fails, never skips.
  ASSERT_EQ(access(kMatmulModel.c_str(), R_OK), 0) << kMatmulModel << " not found (../shared missing?)";
  auto server = StartTuner();
  ASSERT_NE(server, nullptr);
  auto stub = testing::Stub(*server);
  v1::JobSpec spec;
  spec.set_model_path(kMatmulModel);
  spec.set_device_key(testing::kDeviceKey);
  spec.set_trial_budget(6);
  spec.set_threads(1);
  const std::string job_id = Submit(*stub, spec);
  ASSERT_FALSE(job_id.empty());
  v1::JobProgress last = Watch(*stub, job_id, Final);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  EXPECT_EQ(last.trials_done(), 6);
  ASSERT_EQ(last.tasks_size(), 1);
  EXPECT_GT(last.tasks(0).best_cost_sec(), 0);

  std::vector<db::TuningRecord> records = Records(db_path_, job_id);
  ASSERT_EQ(records.size(), 6u);
  std::set<std::string> hashes;
  for (const db::TuningRecord& r : records) {
    hashes.insert(r.schedule_hash);
    EXPECT_EQ(r.job_id, job_id);
    EXPECT_EQ(r.device_key, testing::kDeviceKey);
    EXPECT_EQ(r.threads, 1);
    EXPECT_EQ(r.workload_key, last.tasks(0).workload_key());
    EXPECT_FALSE(r.schedule_json.empty());
    // Every candidate computes the reference's result, so every record is a valid timing with
    // its correctness figures.
    EXPECT_EQ(r.error_kind, db::ErrorKind::kNone) << r.error_message;
    // `repeat` costs, or one for a candidate more than kSlowCandidateFactor times slower than
    // the best so far (which is at least the final best).
    if (r.costs_sec.size() == 1u) {
      EXPECT_GT(r.costs_sec[0], tuner::kSlowCandidateFactor * last.tasks(0).best_cost_sec());
    } else {
      EXPECT_EQ(r.costs_sec.size(), 2u);
    }
    for (double c : r.costs_sec) EXPECT_GT(c, 0);
    EXPECT_LE(r.max_abs_error, 1e-4);
    EXPECT_GT(r.measured_unix_ms, 0);
  }
  EXPECT_EQ(hashes.size(), 6u);

  auto listed = [&](bool finished) {
    v1::ListJobsRequest request;
    request.set_include_finished(finished);
    v1::ListJobsReply reply;
    EXPECT_TRUE(stub->ListJobs(testing::Context().get(), request, &reply).ok());
    return reply;
  };
  EXPECT_EQ(listed(false).jobs_size(), 0);
  ASSERT_EQ(listed(true).jobs_size(), 1);
  EXPECT_EQ(listed(true).jobs(0).progress().state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(listed(true).jobs(0).spec().model_path(), kMatmulModel);
  server->Stop();

  // `compile --db` finds the tuned schedule: the build's task names a db: origin.
  EXPECT_EQ(TasksBuiltFromTheBestRecord(db_path_, records[0].target, last.tasks(0).workload_key()), 1);
}

// The tuner's GPU path end to end, on a farm whose only device is a GPU agent over the fake
// driver of tests/common/fake_cuda_driver.cc. That fake runs no kernel: its outputs are the
// poison the agent wrote, for the reference as for every candidate, and its times are made up,
// so nothing here is about the schedules' results or speed. What it checks is the path: the
// agent's facts make the job's target a cuda target, every drawn GPU program is generated as
// PTX in its farm call's module, the agent takes the module, loads it and launches each entry,
// and the records land under the cuda target; and the model's GPU build takes the best of them.
TEST(TunerGpuFarm, AJobOnAGpuAgentShipsPtxModulesAndRecordsThemUnderTheCudaTarget) {
  ASSERT_EQ(access(kMatmulModel.c_str(), R_OK), 0) << kMatmulModel << " not found (../shared missing?)";
  auto farm = testing::LocalFarm::Start(0);
  ASSERT_TRUE(farm.ok()) << farm.status();
  auto agent = (*farm)->AddAgent({"--device", "cuda:0", "--cuda-driver", TUNEFARM_FAKE_CUDA_DRIVER});
  ASSERT_TRUE(agent.ok()) << agent.status();
  TempDir dir;
  const std::string db_path = dir.path() + "/tune.db";
  auto server = TunerServer::Start(testing::ServerOptions(db_path, (*farm)->tracker_address()));
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = testing::Stub(**server);
  v1::JobSpec spec;
  spec.set_model_path(kMatmulModel);
  spec.set_device_key(testing::kDeviceKey);
  spec.set_trial_budget(8);
  spec.set_threads(1);
  const std::string job_id = Submit(*stub, spec);
  ASSERT_FALSE(job_id.empty());
  v1::JobProgress last = Watch(*stub, job_id, Final);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  std::vector<db::TuningRecord> records = Records(db_path, job_id);
  ASSERT_EQ(records.size(), 8u);
  for (const db::TuningRecord& r : records) {
    EXPECT_EQ(r.target.rfind("cuda -arch=sm_90", 0), 0u) << r.target;
    EXPECT_NE(r.target.find("-num-sms=132"), std::string::npos) << r.target;
    // Built, shipped, loaded and launched: no build, load or runtime error.
    EXPECT_EQ(r.error_kind, db::ErrorKind::kNone) << r.error_message;
  }
  (*server)->Stop();
  // `compile --target cuda ... --db` builds the model's GPU artifact from the tuned GPU record.
  EXPECT_EQ(TasksBuiltFromTheBestRecord(db_path, records[0].target, last.tasks(0).workload_key()), 1);
}

// A candidate that reads its constant weights in its tiles' order (the LR step) ships the entry
// that makes them; the agent applies it to the weights it generated, so the candidate is
// checked against the task's naive reference on the same inputs, and found correct.
TEST_F(TunerFarm, ACandidateWithRewrittenWeightsIsCheckedOnTheGeneratedWeights) {
  te::DagBuilder b;
  auto a = b.Placeholder("a", te::DType::kFloat32, {32, 48});
  auto w = b.Placeholder("w", te::DType::kFloat32, {48, 40}, /*is_constant=*/true);
  std::shared_ptr<const te::ComputeDag> dag = b.Build({ops::Matmul(b, a, w)});
  const codegen::Target target = codegen::HostTarget();
  std::mt19937_64 rng(3);
  std::vector<Candidate> rewritten;
  for (const schedule::State& p : SampleInitialPopulation(dag, SearchTarget::FromTarget(target), 40, rng, nullptr)) {
    bool lr = false;
    for (const schedule::Step& s : p.steps()) lr |= std::holds_alternative<schedule::LayoutRewriteStep>(s);
    if (!lr || rewritten.size() == 4) continue;
    auto c = MakeCandidate(p, SearchTarget::FromTarget(target));
    ASSERT_TRUE(c.ok()) << c.status();
    rewritten.push_back(std::move(*c));
  }
  ASSERT_EQ(rewritten.size(), 4u) << "annotation drew too few layout rewrites";
  auto reference = BuildKernel(schedule::State(dag), target);
  ASSERT_TRUE(reference.ok()) << reference.status();

  DevicePoolOptions pool;
  pool.farm.tracker = farm_->tracker_address();
  pool.farm.token = testing::kToken;
  pool.farm.device_key = testing::kDeviceKey;
  auto session = DevicePool::Open(pool);
  ASSERT_TRUE(session.ok()) << session.status();
  v1::MeasureOptions options;
  options.set_number(1);
  options.set_repeat(1);
  options.set_timeout_ms(60000);
  options.set_check_correctness(true);
  options.set_atol(1e-4);
  options.set_rtol(1e-4);
  options.set_seed(5);
  options.set_threads(1);
  Measurer measurer(session->get(), target, options, [] { return false; });
  int correct = 0;
  ASSERT_TRUE(measurer
                  .Measure(*reference, rewritten, 0,
                           [&](size_t i, db::TuningRecord r) {
                             EXPECT_EQ(r.error_kind, db::ErrorKind::kNone) << i << ": " << r.error_message;
                             correct += r.error_kind == db::ErrorKind::kNone && r.max_abs_error < 1e-4;
                             return absl::OkStatus();
                           })
                  .ok());
  EXPECT_EQ(correct, 4);
  EXPECT_EQ(measurer.counters().libraries, 1) << "the four programs of one farm call share one library";
}

TEST_F(TunerFarm, ACancelledJobStops) {
  auto server = StartTuner();
  ASSERT_NE(server, nullptr);
  auto stub = testing::Stub(*server);
  const std::string job_id = Submit(*stub, GemmSpec(db_path_, 500));
  ASSERT_FALSE(job_id.empty());
  v1::JobProgress started = Watch(*stub, job_id, [](const v1::JobProgress& p) { return p.trials_done() >= 1 || Final(p); });
  ASSERT_EQ(started.state(), v1::JOB_STATE_RUNNING) << started.message();

  v1::CancelJobRequest cancel;
  cancel.set_job_id(job_id);
  v1::CancelJobReply reply;
  ASSERT_TRUE(stub->CancelJob(testing::Context().get(), cancel, &reply).ok());
  EXPECT_EQ(reply.state(), v1::JOB_STATE_CANCELLED);
  v1::JobProgress last = Watch(*stub, job_id, Final);
  EXPECT_EQ(last.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(StateInDatabase(db_path_, job_id), db::JobState::kCancelled);

  // At most the farm call in flight lands after the cancel (its records are written together,
  // when it ends: tuner/record_writer.h); then nothing more.
  size_t before = std::numeric_limits<size_t>::max(), after = Records(db_path_, job_id).size();
  for (int i = 0; i < 20 && before != after; ++i) {
    std::this_thread::sleep_for(1500ms);
    before = after;
    after = Records(db_path_, job_id).size();
  }
  EXPECT_EQ(before, after);
  EXPECT_LT(after, 20u);
  // Cancelling again keeps the state.
  ASSERT_TRUE(stub->CancelJob(testing::Context().get(), cancel, &reply).ok());
  EXPECT_EQ(reply.state(), v1::JOB_STATE_CANCELLED);
  // A stopped tuner has written everything it had: still nothing more.
  server.reset();
  EXPECT_EQ(Records(db_path_, job_id).size(), after);
}

TEST_F(TunerFarm, AStoppedTunerResumesTheJobWithoutMeasuringAnythingTwice) {
  constexpr int64_t kBudget = 12;
  std::string job_id;
  std::vector<db::TuningRecord> first;
  {
    auto server = StartTuner();
    ASSERT_NE(server, nullptr);
    auto stub = testing::Stub(*server);
    job_id = Submit(*stub, GemmSpec(db_path_, kBudget));
    v1::JobProgress p = Watch(*stub, job_id, [](const v1::JobProgress& p) { return p.trials_done() >= 2 || Final(p); });
    ASSERT_EQ(p.state(), v1::JOB_STATE_RUNNING) << p.message();
    server->Stop();  // as on SIGTERM: the job stays running in the database
  }
  EXPECT_EQ(StateInDatabase(db_path_, job_id), db::JobState::kRunning);
  first = Records(db_path_, job_id);
  ASSERT_GE(first.size(), 2u);
  ASSERT_LT(first.size(), static_cast<size_t>(kBudget));

  auto server = StartTuner();
  ASSERT_NE(server, nullptr);
  auto stub = testing::Stub(*server);
  v1::JobProgress last = Watch(*stub, job_id, Final);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  EXPECT_EQ(last.trials_done(), kBudget);

  std::vector<db::TuningRecord> all = Records(db_path_, job_id);
  ASSERT_EQ(all.size(), static_cast<size_t>(kBudget));  // a re-measured schedule would merge
  std::set<std::string> hashes, ids;
  for (const db::TuningRecord& r : all) {
    hashes.insert(r.schedule_hash);
    ids.insert(r.record_id);
  }
  EXPECT_EQ(hashes.size(), static_cast<size_t>(kBudget));
  for (const db::TuningRecord& r : first) EXPECT_TRUE(ids.count(r.record_id)) << "lost " << r.record_id;
}

// Two tuners on one database: a job another live tuner holds is neither run nor failed here.
TEST_F(TunerFarm, AJobHeldByAnotherLiveTunerIsLeftAlone) {
  std::string job_id;
  {
    auto database = db::TuningDatabase::Open(db_path_);
    ASSERT_TRUE(database.ok()) << database.status();
    auto job = (*database)->CreateJob(SpecToJson(GemmSpec(db_path_, 4)), 4);
    ASSERT_TRUE(job.ok()) << job.status();
    job_id = job->job_id;
    ASSERT_TRUE((*database)->SetJobState(job_id, db::JobState::kRunning).ok());
    ASSERT_TRUE((*database)->ClaimJob(job_id, "other-host:1:1", 600'000).value_or(false));
  }
  RunnerOptions options;
  options.db_path = db_path_;
  options.farm.tracker = farm_->tracker_address();
  v1::JobProgress last = JobRunner(options).Run(job_id);
  EXPECT_EQ(last.state(), v1::JOB_STATE_RUNNING);
  EXPECT_NE(last.message().find("is being run by other-host:1:1"), std::string::npos) << last.message();
  EXPECT_EQ(StateInDatabase(db_path_, job_id), db::JobState::kRunning);
  EXPECT_TRUE(Records(db_path_, job_id).empty());

  // The tuner service does not even queue it.
  auto server = StartTuner();
  ASSERT_NE(server, nullptr);
  auto database = db::TuningDatabase::Open(db_path_);
  ASSERT_TRUE(database.ok());
  EXPECT_EQ((*database)->GetJob(job_id)->owner, "other-host:1:1");
}

}  // namespace
}  // namespace tunefarm::tuner
