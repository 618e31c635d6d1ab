// A job on the whole farm (docs/tuner.md "The whole farm"), on loopback: a job measures on
// every free device of its key; a device that dies or loses its lease mid-batch hands what it
// had not measured to another, with exactly one record per candidate; jobs share devices; a
// job with no device waits, says so, and resumes when one registers. The two agents share
// this machine's cores, so nothing here looks at timings. A job of higher priority gets the
// key's device before one that asked earlier. Pipelined, a round's measurement overlaps the
// next task's search.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "proto/tracker_client.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/job_runner.h"
#include "tuner/job_spec.h"

namespace tunefarm::tuner {
namespace {

using namespace std::chrono_literals;
using tunefarm::testing::TempDir;

constexpr int64_t kBudget = 12;

class FarmDevices : public ::testing::Test {
 protected:
  void Start(int agents) {
    auto farm = testing::LocalFarm::Start(agents);
    ASSERT_TRUE(farm.ok()) << farm.status();
    farm_ = std::move(*farm);
    db_path_ = dir_.path() + "/tune.db";
  }

  // Jobs on one workload would share its records (a schedule measured by one is not measured
  // again by another), so each job of a test tunes its own size.
  std::string CreateJob(int64_t budget = kBudget, int64_t n = 32, int priority = 0) {
    auto database = db::TuningDatabase::Open(db_path_);
    EXPECT_TRUE(database.ok()) << database.status();
    v1::JobSpec spec = testing::GemmSpec(db_path_, budget, n);
    spec.set_priority(priority);
    auto job = (*database)->CreateJob(SpecToJson(spec), budget);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? job->job_id : "";
  }

  // Runner settings whose candidates each take a tenth of a second or more on the agent, so
  // that a batch is still being measured when a test interferes.
  RunnerOptions Options() const {
    RunnerOptions options = testing::ServerOptions(db_path_, farm_->tracker_address()).jobs.runner;
    options.farm.token = testing::kToken;
    options.min_repeat_ms = 100;
    return options;
  }

  // Every candidate of the job has exactly one record.
  void ExpectOneRecordPerCandidate(const std::string& job_id, int64_t budget = kBudget) {
    std::vector<db::TuningRecord> records = testing::Records(db_path_, job_id);
    EXPECT_EQ(records.size(), static_cast<size_t>(budget));
    std::set<std::string> hashes;
    for (const db::TuningRecord& r : records) hashes.insert(r.schedule_hash);
    EXPECT_EQ(hashes.size(), records.size()) << "a candidate was recorded twice";
  }

  TempDir dir_;
  std::unique_ptr<testing::LocalFarm> farm_;
  std::string db_path_;
};

const DeviceUse* UseOf(const RunStats& stats, const std::string& address, bool lost) {
  for (const DeviceUse& d : stats.devices)
    if (d.address == address && d.lost == lost) return &d;
  return nullptr;
}

TEST_F(FarmDevices, AJobMeasuresOnEveryFreeDeviceOfItsKey) {
  ASSERT_NO_FATAL_FAILURE(Start(2));
  const std::string job_id = CreateJob();
  RunnerOptions options = Options();
  options.min_repeat_ms = 1;
  JobRunner runner(options);
  v1::JobProgress last = runner.Run(job_id);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  ASSERT_EQ(runner.stats().devices.size(), 2u);
  for (const DeviceUse& d : runner.stats().devices) EXPECT_GT(d.candidates, 0) << d.address << " measured nothing";
  ExpectOneRecordPerCandidate(job_id);
}

TEST_F(FarmDevices, ABatchOfADeviceKilledMidBatchIsMeasuredOnTheOther) {
  ASSERT_NO_FATAL_FAILURE(Start(2));
  const std::string job_id = CreateJob();
  RunnerOptions options = Options();
  bool killed = false;
  options.on_progress = [&](const v1::JobProgress& p) {
    // The first results have come in: both devices are in their first batch.
    if (!killed && p.trials_done() >= 1) {
      farm_->KillAgent(0);
      killed = true;
    }
  };
  JobRunner runner(options);
  v1::JobProgress last = runner.Run(job_id);
  ASSERT_TRUE(killed);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  EXPECT_NE(UseOf(runner.stats(), farm_->agent_address(0), true), nullptr) << "the killed device was not seen lost";
  const DeviceUse* survivor = UseOf(runner.stats(), farm_->agent_address(1), false);
  ASSERT_NE(survivor, nullptr);
  EXPECT_GT(survivor->candidates, kBudget / 2) << "the survivor did not take over the dead device's share";
  // Nothing handed to the dead device was dropped: every candidate drawn has its record.
  EXPECT_EQ(runner.stats().records_written, runner.stats().generated);
  ExpectOneRecordPerCandidate(job_id);
}

TEST_F(FarmDevices, ABatchWhoseLeaseIsRevokedIsMeasuredOnAnotherDevice) {
  ASSERT_NO_FATAL_FAILURE(Start(2));
  const std::string job_id = CreateJob();
  RunnerOptions options = Options();
  bool revoked = false;
  options.on_progress = [&](const v1::JobProgress& p) {
    if (!revoked && p.trials_done() >= 1) {
      EXPECT_TRUE(farm_->RevokeAgent(farm_->agent_address(0)).ok());
      revoked = true;
    }
  };
  JobRunner runner(options);
  v1::JobProgress last = runner.Run(job_id);
  ASSERT_TRUE(revoked);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  EXPECT_NE(UseOf(runner.stats(), farm_->agent_address(0), true), nullptr) << "the revoked lease went unnoticed";
  EXPECT_EQ(runner.stats().records_written, runner.stats().generated);
  ExpectOneRecordPerCandidate(job_id);
}

// Builds beside measurements (what a job does when its devices are other machines), forced on
// loopback: the overlap must not lose, duplicate or misattribute a candidate.
TEST_F(FarmDevices, APipelinedJobRecordsEveryCandidateOnce) {
  ASSERT_NO_FATAL_FAILURE(Start(2));
  const std::string job_id = CreateJob(16);
  RunnerOptions options = Options();
  options.min_repeat_ms = 1;
  options.batch_size = 2;  // four farm calls a round: three builds overlap a measurement
  options.pipelining = Pipelining::kOn;
  JobRunner runner(options);
  v1::JobProgress last = runner.Run(job_id);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  EXPECT_EQ(runner.stats().records_written, runner.stats().generated);
  ExpectOneRecordPerCandidate(job_id, 16);
  // Every measurement came back valid (checked against the reference on the agent).
  for (const db::TuningRecord& r : testing::Records(db_path_, job_id))
    EXPECT_EQ(r.error_kind, db::ErrorKind::kNone) << r.error_message;
}

TEST_F(FarmDevices, ThreeJobsShareTwoDevicesAndAllComplete) {
  ASSERT_NO_FATAL_FAILURE(Start(2));
  std::vector<std::string> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(CreateJob(6, 32 + 16 * i));
  RunnerOptions options = Options();
  options.min_repeat_ms = 20;
  options.farm.acquire_timeout = 0ms;  // a job waits for as long as the others hold the devices
  std::vector<v1::JobProgress> last(jobs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i)
    threads.emplace_back([&, i] { last[i] = JobRunner(options).Run(jobs[i]); });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(last[i].state(), v1::JOB_STATE_SUCCEEDED) << jobs[i] << ": " << last[i].message();
    ExpectOneRecordPerCandidate(jobs[i], 6);
  }
}

// Pipelined, the next task's search runs while a round measures: with two tasks, rounds take
// programs searched ahead, and still nothing is lost, measured twice or measured wrong.
TEST_F(FarmDevices, APipelinedJobSearchesTheNextTaskWhileARoundMeasures) {
  ASSERT_NO_FATAL_FAILURE(Start(1));
  v1::JobSpec spec = testing::GemmSpec(db_path_, 24, 32);
  spec.mutable_tasks()->MergeFrom(testing::GemmSpec(db_path_, 24, 48).tasks());
  spec.mutable_search()->set_measure_per_round(4);
  auto database = db::TuningDatabase::Open(db_path_);
  ASSERT_TRUE(database.ok()) << database.status();
  auto job = (*database)->CreateJob(SpecToJson(spec), 24);
  ASSERT_TRUE(job.ok()) << job.status();
  RunnerOptions options = Options();
  options.min_repeat_ms = 1;
  options.batch_size = 2;
  options.pipelining = Pipelining::kOn;
  JobRunner runner(options);
  v1::JobProgress last = runner.Run(job->job_id);
  ASSERT_EQ(last.state(), v1::JOB_STATE_SUCCEEDED) << last.message();
  EXPECT_GT(runner.stats().prefetched_rounds, 0);
  EXPECT_LT(runner.stats().prefetched_rounds, runner.stats().rounds);  // the first round is searched in line
  std::vector<db::TuningRecord> records = testing::Records(db_path_, job->job_id);
  EXPECT_EQ(records.size(), 24u);
  std::set<std::pair<std::string, std::string>> measured;
  for (const db::TuningRecord& r : records) {
    measured.insert({r.workload_key, r.schedule_hash});
    EXPECT_EQ(r.error_kind, db::ErrorKind::kNone) << r.error_message;
  }
  EXPECT_EQ(measured.size(), records.size()) << "a candidate was recorded twice";
  EXPECT_EQ(last.tasks_size(), 2);
  for (const v1::TaskProgress& t : last.tasks()) EXPECT_GT(t.trials(), 0) << t.name();
}

// Requests waiting at the tracker for the test's key.
int WaitingAtTracker(const std::string& tracker) {
  wire::TrackerClient client(*wire::MakeChannel(tracker, {}), testing::kToken);
  auto devices = client.ListDevices(testing::kDeviceKey);
  if (!devices.ok()) return -1;
  for (const v1::PoolInfo& p : devices->pools())
    if (p.key() == testing::kDeviceKey) return p.waiting();
  return 0;
}

TEST_F(FarmDevices, AJobOfHigherPriorityGetsTheKeysDeviceFirst) {
  ASSERT_NO_FATAL_FAILURE(Start(0));
  const std::string low = CreateJob(4, 32, 0);
  const std::string high = CreateJob(4, 48, 7);
  RunnerOptions options = Options();
  options.min_repeat_ms = 1;
  options.farm.acquire_timeout = 0ms;
  v1::JobProgress low_last, high_last;
  // The low job asks first, then the high one; both wait, for the key has no device yet.
  std::thread low_run([&] { low_last = JobRunner(options).Run(low); });
  for (int i = 0; i < 400 && WaitingAtTracker(farm_->tracker_address()) < 1; ++i) std::this_thread::sleep_for(25ms);
  std::thread high_run([&] { high_last = JobRunner(options).Run(high); });
  for (int i = 0; i < 400 && WaitingAtTracker(farm_->tracker_address()) < 2; ++i) std::this_thread::sleep_for(25ms);
  EXPECT_EQ(WaitingAtTracker(farm_->tracker_address()), 2);
  ASSERT_TRUE(farm_->AddAgent().ok());
  low_run.join();
  high_run.join();
  ASSERT_EQ(low_last.state(), v1::JOB_STATE_SUCCEEDED) << low_last.message();
  ASSERT_EQ(high_last.state(), v1::JOB_STATE_SUCCEEDED) << high_last.message();
  // A job holds its first device until it ends: the high job measured everything before the
  // low one measured anything.
  int64_t high_end = 0, low_start = INT64_MAX;
  for (const db::TuningRecord& r : testing::Records(db_path_, high)) high_end = std::max(high_end, r.created_unix_ms);
  for (const db::TuningRecord& r : testing::Records(db_path_, low)) low_start = std::min(low_start, r.created_unix_ms);
  EXPECT_LE(high_end, low_start);
  ExpectOneRecordPerCandidate(high, 4);
  ExpectOneRecordPerCandidate(low, 4);
}

TEST_F(FarmDevices, AJobWithNoDeviceWaitsSaysSoAndResumesWhenOneRegisters) {
  ASSERT_NO_FATAL_FAILURE(Start(0));
  auto server = TunerServer::Start(testing::ServerOptions(db_path_, farm_->tracker_address()));
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = testing::Stub(**server);
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = testing::GemmSpec(db_path_, 4);
  v1::SubmitJobReply submitted;
  ASSERT_TRUE(stub->SubmitJob(testing::Context().get(), submit, &submitted).ok());

  // `jobs list` shows it waiting for devices (not failed) while the key has none.
  v1::JobProgress listed;
  for (int i = 0; i < 200 && !listed.waiting_for_devices(); ++i) {
    v1::ListJobsReply reply;
    ASSERT_TRUE(stub->ListJobs(testing::Context().get(), v1::ListJobsRequest(), &reply).ok());
    if (reply.jobs_size() == 1) listed = reply.jobs(0).progress();
    std::this_thread::sleep_for(25ms);
  }
  ASSERT_TRUE(listed.waiting_for_devices()) << listed.message();
  EXPECT_EQ(listed.state(), v1::JOB_STATE_RUNNING);
  EXPECT_NE(listed.message().find("waiting for devices"), std::string::npos) << listed.message();

  ASSERT_TRUE(farm_->AddAgent().ok());
  v1::WatchJobRequest watch;
  watch.set_job_id(submitted.job_id());
  auto context = testing::Context();
  auto reader = stub->WatchJob(context.get(), watch);
  v1::JobProgress progress;
  while (reader->Read(&progress) && !IsFinal(progress.state())) {
  }
  reader->Finish();
  EXPECT_EQ(progress.state(), v1::JOB_STATE_SUCCEEDED) << progress.message();
  EXPECT_FALSE(progress.waiting_for_devices());
  ExpectOneRecordPerCandidate(submitted.job_id(), 4);
}

}  // namespace
}  // namespace tunefarm::tuner
