#include "device_agent/measure_reactor.h"

#include "compiler/common/strings.h"
#include "device_agent/kernel_upload.h"
#include "proto/grpc_status.h"

namespace tunefarm::agent {
namespace {

// Bounds a request's thread count: far beyond any core count, still a sane pool.
constexpr int32_t kMaxThreads = 1024;

}  // namespace

absl::Status ValidateMeasureRequest(const v1::MeasureRequest& request) {
  const v1::MeasureOptions& o = request.options();
  if (o.number() < 0 || o.repeat() < 0 || o.min_repeat_ms() < 0 || o.timeout_ms() < 0 ||
      o.threads() < 0 || o.atol() < 0 || o.rtol() < 0) {
    return absl::InvalidArgumentError(
        "options: number, repeat, min_repeat_ms, timeout_ms, threads, atol and rtol must not "
        "be negative");
  }
  if (o.threads() > kMaxThreads) {
    return absl::InvalidArgumentError(StrCat("options.threads ", o.threads(),
                                             " exceeds the limit of ", kMaxThreads));
  }
  if (o.check_correctness() &&
      (!IsSha256Hex(request.reference().sha256()) || request.reference().entry().empty())) {
    return absl::InvalidArgumentError(
        "check_correctness needs a reference kernel: its sha256 and entry");
  }
  for (const v1::Candidate& candidate : request.candidates()) {
    if (!IsSha256Hex(candidate.kernel().sha256()) || candidate.kernel().entry().empty()) {
      return absl::InvalidArgumentError(StrCat(
          "candidate ", candidate.id(), ": kernel needs a sha256 (64 lowercase hex) and an entry"));
    }
  }
  return absl::OkStatus();
}

grpc::ServerWriteReactor<v1::MeasureResult>* MeasureReactor::Start(
    MeasureQueue& queue, MeasureRunner& runner, const v1::MeasureRequest& request) {
  auto reactor = std::shared_ptr<MeasureReactor>(new MeasureReactor());
  reactor->self_ = reactor;
  if (absl::Status s = ValidateMeasureRequest(request); !s.ok()) {
    reactor->RequestFinish(wire::ToGrpc(s));
    return reactor.get();
  }
  reactor->request_ = request;
  reactor->remaining_ = request.candidates_size();
  if (reactor->remaining_ == 0) {
    reactor->RequestFinish(grpc::Status::OK);
    return reactor.get();
  }
  for (const v1::Candidate& candidate : reactor->request_.candidates()) {
    queue.Push([reactor, &runner, &candidate] { reactor->RunCandidate(runner, candidate); });
  }
  return reactor.get();
}

void MeasureReactor::RunCandidate(MeasureRunner& runner, const v1::Candidate& candidate) {
  if (cancelled_.load()) return;
  absl::StatusOr<v1::MeasureResult> result =
      runner.Measure(request_.options(), request_.reference(), candidate, &cancelled_);
  if (!result.ok()) {
    RequestFinish(wire::ToGrpc(result.status()));
    return;
  }
  Deliver(std::move(*result));
}

void MeasureReactor::Deliver(v1::MeasureResult result) {
  {
    std::lock_guard lock(mu_);
    if (finish_wanted_) return;
    pending_.push_back(std::move(result));
    if (--remaining_ == 0) finish_wanted_ = true;  // finish_status_ stays OK
  }
  Pump();
}

void MeasureReactor::RequestFinish(grpc::Status status) {
  {
    std::lock_guard lock(mu_);
    if (finish_wanted_) return;
    finish_wanted_ = true;
    finish_status_ = std::move(status);
  }
  cancelled_ = true;  // the remaining jobs have nobody to report to
  Pump();
}

void MeasureReactor::Pump() {
  std::unique_lock lock(mu_);
  if (writing_ || finished_) return;
  if (!pending_.empty()) {
    in_flight_ = std::move(pending_.front());
    pending_.pop_front();
    writing_ = true;
    lock.unlock();
    StartWrite(&in_flight_);
    return;
  }
  if (finish_wanted_) {
    finished_ = true;
    const grpc::Status status = finish_status_;
    lock.unlock();
    Finish(status);
  }
}

void MeasureReactor::OnWriteDone(bool ok) {
  {
    std::lock_guard lock(mu_);
    writing_ = false;
    if (!ok) pending_.clear();  // the stream broke: nobody reads the rest
  }
  if (!ok) RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "result stream broken"));
  Pump();
}

void MeasureReactor::OnCancel() {
  cancelled_ = true;
  {
    std::lock_guard lock(mu_);
    pending_.clear();
  }
  RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "Measure call cancelled"));
}

void MeasureReactor::OnDone() {
  // The last reference may be this one: nothing may touch members after the reset.
  std::shared_ptr<MeasureReactor> keep = std::move(self_);
}

}  // namespace tunefarm::agent
