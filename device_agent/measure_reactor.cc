#include "device_agent/measure_reactor.h"

#include "common/strings.h"
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
      o.threads() < 0 || o.atol() < 0 || o.rtol() < 0 || !(o.stop_above_sec() >= 0)) {
    return absl::InvalidArgumentError(
        "options: number, repeat, min_repeat_ms, timeout_ms, threads, atol, rtol and "
        "stop_above_sec must not be negative");
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
  queue.Push([reactor, &runner] { reactor->Run(runner); });
  return reactor.get();
}

void MeasureReactor::Run(MeasureRunner& runner) {
  if (cancelled_.load()) return;
  const absl::Status status = runner.Measure(
      request_, &cancelled_, [this](v1::MeasureResult result) { Deliver(std::move(result)); });
  if (!status.ok()) RequestFinish(wire::ToGrpc(status));
}

void MeasureReactor::Deliver(v1::MeasureResult result) {
  if (!writes_.Push(std::move(result))) return;
  if (--remaining_ == 0) writes_.RequestFinish(grpc::Status::OK);
  writes_.Pump(this);
}

void MeasureReactor::RequestFinish(grpc::Status status, bool drop_pending) {
  writes_.RequestFinish(std::move(status), drop_pending);
  cancelled_ = true;  // the remaining candidates have nobody to report to
  writes_.Pump(this);
}

void MeasureReactor::OnWriteDone(bool ok) {
  writes_.WriteDone();
  // A broken stream: nobody reads the rest.
  if (!ok) RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "result stream broken"), true);
  writes_.Pump(this);
}

void MeasureReactor::OnCancel() {
  RequestFinish(grpc::Status(grpc::StatusCode::CANCELLED, "Measure call cancelled"), true);
}

void MeasureReactor::OnDone() {
  // The last reference may be this one: nothing may touch members after the reset.
  std::shared_ptr<MeasureReactor> keep = std::move(self_);
}

}  // namespace tunefarm::agent
