// Shared by the tuner's farm tests: a Tuner client with the token, and the runner settings
// that keep a test to seconds.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include <gtest/gtest.h>

#include "db/tuning_database.h"
#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/tunefarm.grpc.pb.h"
#include "tests/common/test_dags.h"
#include "tests/tuner/local_farm.h"
#include "tuner/tuner_server.h"

namespace tunefarm::tuner::testing {

inline std::unique_ptr<grpc::ClientContext> Context(const std::string& token = kToken) {
  auto context = std::make_unique<grpc::ClientContext>();
  wire::AddToken(*context, token);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  return context;
}

inline TunerServerOptions ServerOptions(const std::string& db_path, const std::string& tracker) {
  TunerServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.token = kToken;
  options.jobs.runner.db_path = db_path;
  options.jobs.runner.farm.tracker = tracker;
  options.jobs.runner.farm.acquire_timeout = std::chrono::seconds(30);
  options.jobs.runner.batch_size = 3;
  options.jobs.runner.repeat = 2;
  options.jobs.runner.min_repeat_ms = 1;
  options.jobs.runner.timeout_ms = 5000;
  return options;
}

// An n x n x n GEMM + bias (32 by default) registered in the database: a task with many variants, submitted by
// workload key alone.
inline v1::JobSpec GemmSpec(const std::string& db_path, int64_t budget, int64_t n = 32) {
  auto dag = tunefarm::testing::GemmBiasDag(n, n, n);
  auto database = db::TuningDatabase::Open(db_path);
  EXPECT_TRUE(database.ok());
  EXPECT_TRUE((*database)->RegisterWorkload(dag->WorkloadKey(), dag->CanonicalText()).ok());
  v1::JobSpec spec;
  spec.mutable_tasks()->add_tasks()->set_workload_key(dag->WorkloadKey());
  spec.set_device_key(kDeviceKey);
  spec.set_trial_budget(budget);
  spec.set_threads(1);
  return spec;
}

inline std::vector<db::TuningRecord> Records(const std::string& db_path, const std::string& job_id) {
  auto database = db::TuningDatabase::Open(db_path);
  EXPECT_TRUE(database.ok());
  auto records = (*database)->RecordsOfJob(job_id);
  EXPECT_TRUE(records.ok());
  return records.ok() ? *records : std::vector<db::TuningRecord>{};
}

inline std::unique_ptr<v1::Tuner::Stub> Stub(const TunerServer& server) {
  return v1::Tuner::NewStub(wire::MakeChannel(server.address(), {}).value());
}

}  // namespace tunefarm::tuner::testing
