#include "tuner/tuner_service.h"

#include <chrono>

#include "proto/grpc_status.h"
#include "tuner/job_spec.h"

namespace tunefarm::tuner {

grpc::Status TunerService::SubmitJob(grpc::ServerContext* /*context*/, const v1::SubmitJobRequest* request,
                                     v1::SubmitJobReply* reply) {
  auto job_id = jobs_.Submit(request->spec());
  if (!job_id.ok()) return wire::ToGrpc(job_id.status());
  reply->set_job_id(*job_id);
  return grpc::Status::OK;
}

grpc::Status TunerService::WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                                    grpc::ServerWriter<v1::JobProgress>* writer) {
  uint64_t version = 0;
  // Short waits, so a client that went away or a stopping tuner is noticed promptly.
  while (!context->IsCancelled()) {
    auto progress = jobs_.WaitProgress(request->job_id(), &version, std::chrono::milliseconds(200));
    if (!progress.ok()) return wire::ToGrpc(progress.status());
    if (progress->has_value()) {
      if (!writer->Write(**progress)) return grpc::Status(grpc::StatusCode::CANCELLED, "watcher went away");
      if (IsFinal((*progress)->state())) return grpc::Status::OK;
    }
    if (jobs_.stopping()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "tuner stopping");
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "watcher went away");
}

grpc::Status TunerService::CancelJob(grpc::ServerContext* /*context*/, const v1::CancelJobRequest* request,
                                     v1::CancelJobReply* reply) {
  auto state = jobs_.Cancel(request->job_id());
  if (!state.ok()) return wire::ToGrpc(state.status());
  reply->set_state(*state);
  return grpc::Status::OK;
}

grpc::Status TunerService::ListJobs(grpc::ServerContext* /*context*/, const v1::ListJobsRequest* request,
                                    v1::ListJobsReply* reply) {
  auto jobs = jobs_.List(request->include_finished());
  if (!jobs.ok()) return wire::ToGrpc(jobs.status());
  for (v1::JobInfo& info : *jobs) *reply->add_jobs() = std::move(info);
  return grpc::Status::OK;
}

}  // namespace tunefarm::tuner
