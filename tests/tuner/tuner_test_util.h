// Shared by the tuner's farm tests: a Tuner client with the token, and the runner settings
// that keep a test to seconds.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <grpcpp/client_context.h>

#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/tunefarm.grpc.pb.h"
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

inline std::unique_ptr<v1::Tuner::Stub> Stub(const TunerServer& server) {
  return v1::Tuner::NewStub(wire::MakeChannel(server.address(), {}).value());
}

}  // namespace tunefarm::tuner::testing
