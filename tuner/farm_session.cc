#include "tuner/farm_session.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "common/strings.h"
#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {
namespace {

std::string Text(const absl::Status& s) { return std::string(s.message()); }

}  // namespace

absl::StatusOr<std::unique_ptr<FarmSession>> FarmSession::Request(const FarmOptions& options, int priority) {
  auto channel = wire::MakeChannel(options.tracker, options.tls);
  if (!channel.ok()) return channel.status();
  std::unique_ptr<FarmSession> session(new FarmSession());
  session->options_ = options;
  session->tracker_ = std::make_unique<wire::TrackerClient>(*channel, options.token);
  v1::AcquireRequest request;
  request.set_key(options.device_key);
  request.set_priority(priority);
  request.set_client_name(options.client_name);
  session->lease_ = session->tracker_->Acquire(request);
  return session;
}

absl::StatusOr<bool> FarmSession::WaitReady(std::chrono::milliseconds timeout) {
  if (ready_) return true;
  auto granted = lease_->WaitGranted(timeout);
  if (!granted.ok()) {
    if (granted.status().code() == absl::StatusCode::kDeadlineExceeded) return false;
    return absl::Status(granted.status().code(), StrCat("acquiring a '", options_.device_key, "' device from tracker ",
                                                        options_.tracker, ": ", Text(granted.status())));
  }
  grant_ = *granted;
  if (absl::Status s = Connect(); !s.ok()) return s;
  ready_ = true;
  return true;
}

absl::Status FarmSession::Connect() {
  auto agent_channel = wire::MakeChannel(grant_.device_address(), options_.tls);
  if (!agent_channel.ok()) return agent_channel.status();
  agent_ = std::make_unique<agent::AgentClient>(*agent_channel, options_.token, options_.call_timeout);
  auto info = agent_->Info();
  if (!info.ok()) {
    return absl::Status(info.status().code(), StrCat("agent ", grant_.device_address(), ": ", Text(info.status())));
  }
  info_ = *info;
  return absl::OkStatus();
}

FarmSession::~FarmSession() {
  if (lease_) lease_->Release();
}

absl::Status FarmSession::CheckLease() {
  auto event = lease_->NextEvent(std::chrono::milliseconds(0));
  if (event.ok() && event->has_revoked()) {
    return absl::UnavailableError(StrCat("lease on ", grant_.device_address(),
                                         " revoked: ", event->revoked().reason()));
  }
  if (!event.ok() && event.status().code() != absl::StatusCode::kDeadlineExceeded) {
    return absl::UnavailableError(StrCat("lease on ", grant_.device_address(), " ended: ",
                                         Text(event.status())));
  }
  return absl::OkStatus();
}

absl::Status FarmSession::Upload(const BuiltKernel& kernel, bool force) {
  if (!force && uploaded_.count(kernel.sha256)) return absl::OkStatus();
  StageTimer timer(TuningStage::kUpload);
  auto reply = agent_->Upload(kernel.bytes, &kernel.metadata);
  if (!reply.ok()) {
    return absl::Status(reply.status().code(), StrCat("upload to ", grant_.device_address(), ": ",
                                                      Text(reply.status())));
  }
  uploaded_.insert(kernel.sha256);
  return absl::OkStatus();
}

absl::Status FarmSession::MeasureOnce(const v1::MeasureOptions& options, const BuiltKernel& reference,
                                      const Batch& batch,
                                      const std::function<void(const v1::MeasureResult&)>& on_result,
                                      std::set<uint64_t>* not_found) {
  v1::MeasureRequest request;
  *request.mutable_options() = options;
  request.mutable_reference()->set_sha256(reference.sha256);
  request.mutable_reference()->set_entry(kTuneEntry);
  for (const Program& p : batch) {
    v1::Candidate* c = request.add_candidates();
    c->set_id(p.id);
    c->mutable_kernel()->set_sha256(p.library->sha256);
    c->mutable_kernel()->set_entry(p.entry);
  }
  // The call's time beyond the agent's own measurements and our handling of its results
  // (which overlaps the agent's next measurement, so the remainder is clamped at 0) is queue
  // wait (tuning_profile.h).
  const auto call_start = std::chrono::steady_clock::now();
  double measured = 0, handling = 0;
  absl::Status status = agent_->Measure(request, [&](const v1::MeasureResult& result) {
    const auto handling_start = std::chrono::steady_clock::now();
    if (result.finished_unix_us() > result.started_unix_us() && result.started_unix_us() > 0) {
      const double seconds = 1e-6 * static_cast<double>(result.finished_unix_us() - result.started_unix_us());
      TuningProfile::Global().Add(TuningStage::kMeasure, seconds);
      measured += seconds;
    }
    if (not_found != nullptr && result.error_kind() == v1::ERROR_KIND_NOT_FOUND) {
      not_found->insert(result.id());
    } else {
      on_result(result);
    }
    handling += std::chrono::duration<double>(std::chrono::steady_clock::now() - handling_start).count();
  });
  const double call = std::chrono::duration<double>(std::chrono::steady_clock::now() - call_start).count();
  TuningProfile::Global().Add(TuningStage::kQueueWait, std::max(0.0, call - measured - handling));
  if (!status.ok()) {
    return absl::Status(status.code(), StrCat("measure on ", grant_.device_address(), ": ", Text(status)));
  }
  return absl::OkStatus();
}

absl::Status FarmSession::Measure(const v1::MeasureOptions& options, const BuiltKernel& reference,
                                  const Batch& batch,
                                  const std::function<void(const v1::MeasureResult&)>& on_result) {
  if (absl::Status s = CheckLease(); !s.ok()) return s;
  if (absl::Status s = Upload(reference, false); !s.ok()) return s;
  for (const Program& p : batch)
    if (absl::Status s = Upload(*p.library, false); !s.ok()) return s;

  std::set<uint64_t> not_found;
  if (absl::Status s = MeasureOnce(options, reference, batch, on_result, &not_found); !s.ok()) return s;
  if (not_found.empty()) return absl::OkStatus();

  // Evicted from the agent's cache between upload and measurement: upload again, once.
  Batch retry;
  if (absl::Status s = Upload(reference, true); !s.ok()) return s;
  std::set<std::string> uploaded_again = {reference.sha256};
  for (const Program& p : batch) {
    if (!not_found.count(p.id)) continue;
    if (uploaded_again.insert(p.library->sha256).second)
      if (absl::Status s = Upload(*p.library, true); !s.ok()) return s;
    retry.push_back(p);
  }
  return MeasureOnce(options, reference, retry, on_result, nullptr);
}

}  // namespace tunefarm::tuner
