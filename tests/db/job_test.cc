// Jobs: create/get/list, progress and state rules, resuming after a restart.
#include <chrono>
#include <string>
#include <thread>

#include "db/record_id.h"
#include "db/tuning_database.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/db/db_test_util.h"

namespace tunefarm::db {
namespace {

using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::TempDir;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<TuningDatabase> OpenOrDie(const std::string& path) {
  absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
  EXPECT_TRUE(db.ok()) << db.status();
  return db.ok() ? *std::move(db) : nullptr;
}

TEST(DbJobs, CreateGetAndList) {
  TempDir dir;
  std::unique_ptr<TuningDatabase> db = OpenOrDie(dir.File("tunefarm.db"));
  ASSERT_NE(db, nullptr);
  absl::StatusOr<Job> first = db->CreateJob(R"({"model":"resnet18.onnx"})", 1000);
  absl::StatusOr<Job> second = db->CreateJob(R"({"model":"bert.onnx"})", 64);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(IsUuidText(first->job_id));
  EXPECT_NE(first->job_id, second->job_id);
  EXPECT_EQ(first->state, JobState::kQueued);

  absl::StatusOr<Job> got = db->GetJob(second->job_id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->spec_json, R"({"model":"bert.onnx"})");
  EXPECT_EQ(got->trials_total, 64);
  EXPECT_EQ(got->trials_done, 0);
  EXPECT_GT(got->created_unix_ms, 0);

  ASSERT_TRUE(db->SetJobState(first->job_id, JobState::kRunning).ok());
  absl::StatusOr<std::vector<Job>> all = db->ListJobs();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].job_id, first->job_id);
  EXPECT_EQ((*all)[1].job_id, second->job_id);
  absl::StatusOr<std::vector<Job>> queued = db->ListJobs(JobState::kQueued);
  ASSERT_TRUE(queued.ok());
  ASSERT_EQ(queued->size(), 1u);
  EXPECT_EQ((*queued)[0].job_id, second->job_id);

  absl::Status missing = db->GetJob("00000000-0000-4000-8000-000000000000").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(db->CreateJob("{not json", 1).status().code(), absl::StatusCode::kInvalidArgument);
}

// One tuner at a time: a claim holds until its lease runs out or its owner releases it; two
// connections (two tuner processes) see the same claims.
TEST(DbJobs, AJobIsClaimedByOneOwnerUntilItsLeaseEnds) {
  TempDir dir;
  std::unique_ptr<TuningDatabase> a = OpenOrDie(dir.File("tunefarm.db"));
  std::unique_ptr<TuningDatabase> b = OpenOrDie(dir.File("tunefarm.db"));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  absl::StatusOr<Job> job = a->CreateJob("{}", 10);
  ASSERT_TRUE(job.ok());
  ASSERT_TRUE(a->SetJobState(job->job_id, JobState::kRunning).ok());
  EXPECT_TRUE(IsInterrupted(*a->GetJob(job->job_id), NowMs()));

  EXPECT_TRUE(a->ClaimJob(job->job_id, "tuner-a", 60'000).value_or(false));
  EXPECT_FALSE(b->ClaimJob(job->job_id, "tuner-b", 60'000).value_or(true)) << "a holds it";
  EXPECT_TRUE(a->ClaimJob(job->job_id, "tuner-a", 60'000).value_or(false)) << "renewing";
  absl::StatusOr<Job> held = b->GetJob(job->job_id);
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(held->owner, "tuner-a");
  EXPECT_EQ(DisplayState(*held, NowMs()), "running");

  // Released (a stopped tuner): free at once, and shown as interrupted until someone resumes.
  ASSERT_TRUE(b->ReleaseJob(job->job_id, "tuner-b").ok());  // not b's: no effect
  EXPECT_FALSE(b->ClaimJob(job->job_id, "tuner-b", 60'000).value_or(true));
  ASSERT_TRUE(a->ReleaseJob(job->job_id, "tuner-a").ok());
  EXPECT_EQ(DisplayState(*b->GetJob(job->job_id), NowMs()), "interrupted");
  EXPECT_TRUE(b->ClaimJob(job->job_id, "tuner-b", 1).value_or(false));

  // A dead owner's lease runs out.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(IsInterrupted(*a->GetJob(job->job_id), NowMs()));
  EXPECT_TRUE(a->ClaimJob(job->job_id, "tuner-a", 60'000).value_or(false));

  ASSERT_TRUE(a->SetJobState(job->job_id, JobState::kDone).ok());
  EXPECT_EQ(b->ClaimJob(job->job_id, "tuner-b", 60'000).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DbJobs, FinalStatesAreFinal) {
  TempDir dir;
  std::unique_ptr<TuningDatabase> db = OpenOrDie(dir.File("tunefarm.db"));
  ASSERT_NE(db, nullptr);
  absl::StatusOr<Job> job = db->CreateJob("{}", 10);
  ASSERT_TRUE(job.ok());
  ASSERT_TRUE(db->SetJobState(job->job_id, JobState::kRunning).ok());
  ASSERT_TRUE(db->UpdateJobProgress(job->job_id, 4).ok());
  ASSERT_TRUE(db->SetJobState(job->job_id, JobState::kFailed, "tracker unreachable").ok());

  absl::StatusOr<Job> failed = db->GetJob(job->job_id);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->state, JobState::kFailed);
  EXPECT_EQ(failed->error_message, "tracker unreachable");
  EXPECT_EQ(failed->trials_done, 4);

  absl::Status progress = db->UpdateJobProgress(job->job_id, 5);
  EXPECT_EQ(progress.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(progress.message(), HasSubstr("is already failed"));
  EXPECT_FALSE(db->SetJobState(job->job_id, JobState::kRunning).ok());
  EXPECT_EQ(db->GetJob(job->job_id)->trials_done, 4);
}

TEST(DbJobs, RestartedTunerFindsRunningJobWithItsRecords) {
  TempDir dir;
  std::string path = dir.File("tunefarm.db");
  std::string job_id;
  std::vector<std::string> measured;
  {
    std::unique_ptr<TuningDatabase> db = OpenOrDie(path);
    ASSERT_NE(db, nullptr);
    absl::StatusOr<Job> job = db->CreateJob(R"({"trials":100})", 100);
    ASSERT_TRUE(job.ok());
    job_id = job->job_id;
    ASSERT_TRUE(db->SetJobState(job_id, JobState::kRunning).ok());
    for (int i = 0; i < 3; ++i) {
      TuningRecord record = MakeRecord("wl", "t", 2, "h" + std::to_string(i), {1e-3 * (i + 1)});
      record.job_id = job_id;
      measured.push_back(record.record_id);
      ASSERT_TRUE(db->AddRecord(record).ok());
    }
    ASSERT_TRUE(db->AddRecord(MakeRecord("wl", "t", 2, "no-job", {1e-3})).ok());
    ASSERT_TRUE(db->UpdateJobProgress(job_id, 3).ok());
  }  // the tuner "crashes" here

  std::unique_ptr<TuningDatabase> db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<std::vector<Job>> running = db->ListJobs(JobState::kRunning);
  ASSERT_TRUE(running.ok());
  ASSERT_EQ(running->size(), 1u);
  EXPECT_EQ((*running)[0].job_id, job_id);
  EXPECT_EQ((*running)[0].trials_done, 3);
  EXPECT_EQ((*running)[0].trials_total, 100);

  absl::StatusOr<std::vector<TuningRecord>> records = db->RecordsOfJob(job_id);
  ASSERT_TRUE(records.ok()) << records.status();
  std::vector<std::string> ids;
  for (const TuningRecord& r : *records) ids.push_back(r.record_id);
  EXPECT_EQ(ids, measured);
}

}  // namespace
}  // namespace tunefarm::db
