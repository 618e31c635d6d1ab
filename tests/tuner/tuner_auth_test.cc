// Issue 6's last acceptance item for the Tuner: every method called with a wrong or missing
// token gets UNAUTHENTICATED, and nothing happens (no job is created).
#include <gtest/gtest.h>

#include "db/tuning_database.h"
#include "proto/health_client.h"
#include "tests/farm/child_process.h"
#include "tests/farm/method_probe.h"
#include "tests/tuner/tuner_test_util.h"

namespace tunefarm::tuner {
namespace {

using tunefarm::testing::TempDir;

TEST(TunerAuth, EveryMethodWithAWrongOrMissingTokenIsUnauthenticated) {
  TempDir dir;
  const std::string db_path = dir.path() + "/tune.db";
  // No farm: a call that got past the token check would fail later, not with UNAUTHENTICATED.
  auto server = TunerServer::Start(testing::ServerOptions(db_path, "127.0.0.1:1"));
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = wire::MakeChannel((*server)->address(), {}).value();
  for (const std::optional<std::string>& token :
       {std::optional<std::string>("wrong-token"), std::optional<std::string>(),
        std::optional<std::string>(std::string(testing::kToken) + "x")}) {
    auto results = tunefarm::testing::CallEveryMethod(channel, "tunefarm.v1.Tuner", token);
    ASSERT_EQ(results.size(), 4u);  // SubmitJob, WatchJob, CancelJob, ListJobs
    for (const auto& [method, status] : results)
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method << ": " << status.error_message();
  }
  // A real submission with a wrong token: refused, and no job in the database.
  auto stub = testing::Stub(**server);
  v1::SubmitJobRequest request;
  request.mutable_spec()->set_model_path(db_path);
  request.mutable_spec()->set_device_key(testing::kDeviceKey);
  request.mutable_spec()->set_trial_budget(3);
  v1::SubmitJobReply reply;
  grpc::Status status = stub->SubmitJob(testing::Context("wrong").get(), request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(reply.job_id().empty());
  (*server)->Stop();
  auto database = db::TuningDatabase::Open(db_path);
  ASSERT_TRUE(database.ok());
  auto jobs = (*database)->ListJobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE(jobs->empty());
}

TEST(TunerAuth, TheHealthServiceAnswersWithoutAToken) {
  TempDir dir;
  auto server = TunerServer::Start(testing::ServerOptions(dir.path() + "/tune.db", "127.0.0.1:1"));
  ASSERT_TRUE(server.ok()) << server.status();
  auto serving = wire::CheckHealth(wire::MakeChannel((*server)->address(), {}).value(),
                                   "tunefarm.v1.Tuner", std::chrono::seconds(10));
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(*serving);
}

TEST(TunerService, ABadSpecIsRefusedWithItsReason) {
  TempDir dir;
  auto server = TunerServer::Start(testing::ServerOptions(dir.path() + "/tune.db", "127.0.0.1:1"));
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = testing::Stub(**server);
  v1::SubmitJobRequest request;
  request.mutable_spec()->set_model_path(dir.path() + "/missing.onnx");
  request.mutable_spec()->set_device_key(testing::kDeviceKey);
  request.mutable_spec()->set_trial_budget(3);
  v1::SubmitJobReply reply;
  grpc::Status status = stub->SubmitJob(testing::Context().get(), request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("missing.onnx"), std::string::npos) << status.error_message();
  v1::CancelJobRequest cancel;
  cancel.set_job_id("no-such-job");
  v1::CancelJobReply cancelled;
  EXPECT_EQ(stub->CancelJob(testing::Context().get(), cancel, &cancelled).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace tunefarm::tuner
