// The order in which a tuner runs its queued jobs (tuner/job_queue.h), the range a job's
// priority must lie in, and a spec's tasks listed once each.
#include "tuner/job_queue.h"

#include <gtest/gtest.h>

#include <limits>

#include "tuner/job_spec.h"

namespace tunefarm::tuner {
namespace {

TEST(JobQueue, HigherPriorityFirstThenFirstQueuedFirst) {
  JobQueue queue;
  queue.Push("a", 0);
  queue.Push("b", 5);
  queue.Push("c", 0);
  queue.Push("d", -3);
  queue.Push("e", 5);
  for (const char* expected : {"b", "e", "a", "c", "d"}) EXPECT_EQ(queue.Pop(), expected);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

TEST(JobQueue, ARemovedJobIsNotRun) {
  JobQueue queue;
  queue.Push("a", 1);
  queue.Push("b", 2);
  queue.Push("c", 0);
  queue.Remove("b");
  queue.Remove("unknown");
  EXPECT_EQ(queue.Pop(), "a");
  EXPECT_EQ(queue.Pop(), "c");
  EXPECT_TRUE(queue.empty());
}

TEST(JobSpec, APriorityOutOfRangeIsRefusedNamingTheField) {
  v1::JobSpec spec;
  spec.mutable_tasks()->add_tasks()->set_workload_key("some workload");
  spec.set_device_key("key");
  spec.set_trial_budget(4);
  spec.set_priority(kMaxJobPriority);
  EXPECT_TRUE(ValidateSpec(spec).ok());
  spec.set_priority(-kMaxJobPriority - 1);
  absl::Status refused = ValidateSpec(spec);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("spec.priority"), std::string::npos) << refused;
}

TEST(JobSpec, AWorkloadListedTwiceIsRefused) {
  v1::JobSpec spec;
  spec.mutable_tasks()->add_tasks()->set_workload_key("a");
  spec.mutable_tasks()->add_tasks()->set_workload_key("b");
  spec.mutable_tasks()->add_tasks()->set_workload_key("a");
  spec.set_device_key("key");
  spec.set_trial_budget(4);
  absl::Status refused = ValidateSpec(spec);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("spec.tasks[2] repeats the workload_key of spec.tasks[0]"), std::string::npos)
      << refused;
}

TEST(JobSpec, APriorityFromElsewhereIsClampedWhereItIsUsed) {
  v1::JobSpec spec;
  spec.set_priority(std::numeric_limits<int32_t>::min());
  EXPECT_EQ(JobPriority(spec), -kMaxJobPriority);
  spec.set_priority(std::numeric_limits<int32_t>::max());
  EXPECT_EQ(JobPriority(spec), kMaxJobPriority);
  spec.set_priority(-3);
  EXPECT_EQ(JobPriority(spec), -3);
}

}  // namespace
}  // namespace tunefarm::tuner
