// A running Tuner gRPC server: the job manager, the service, and gRPC's health service.
#pragma once

#include <memory>
#include <string>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "proto/credentials.h"
#include "tuner/job_manager.h"
#include "tuner/tuner_service.h"

namespace tunefarm::tuner {

struct TunerServerOptions {
  std::string host = "0.0.0.0";
  int port = 0;        // 0: any free port; port() tells which
  std::string token;   // required: callers must present it, and the tuner presents it to the farm
  wire::TlsFiles tls;  // server identity; empty: plaintext
  JobManagerOptions jobs;
};

class TunerServer {
 public:
  // Opens the database, resumes its unfinished jobs and serves. Unavailable when the address
  // cannot be bound.
  static absl::StatusOr<std::unique_ptr<TunerServer>> Start(TunerServerOptions options);
  ~TunerServer();  // Stop()

  int port() const { return port_; }
  std::string address() const;  // HOST:PORT as bound
  JobManager& jobs() { return *jobs_; }

  // Tells watchers the tuner is stopping, stops accepting calls (open ones get a second),
  // then waits for the current job to reach a stopping point; it stays running in the
  // database and resumes when a tuner starts on it again. Idempotent.
  void Stop();

 private:
  TunerServer() = default;

  std::string host_;
  int port_ = 0;
  std::unique_ptr<JobManager> jobs_;
  std::unique_ptr<TunerService> service_;
  std::unique_ptr<grpc::Server> server_;
  bool stopped_ = false;
};

}  // namespace tunefarm::tuner
