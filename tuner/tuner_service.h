// The Tuner gRPC service (proto/tunefarm.proto): submit, watch, cancel and list jobs. A call
// reaches it only with the farm's token: the server's credentials check it
// (proto/token_gate.h), so a call without it changes and reveals nothing.
#pragma once

#include "proto/tunefarm.grpc.pb.h"
#include "tuner/job_manager.h"

namespace tunefarm::tuner {

class TunerService final : public v1::Tuner::Service {
 public:
  explicit TunerService(JobManager& jobs) : jobs_(jobs) {}

  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                         v1::SubmitJobReply* reply) override;
  // The current progress at once, then every change, until the job ends (OK), the client
  // goes away, or the tuner stops (UNAVAILABLE).
  grpc::Status WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::JobProgress>* writer) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                         v1::CancelJobReply* reply) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                        v1::ListJobsReply* reply) override;

 private:
  JobManager& jobs_;
};

}  // namespace tunefarm::tuner
