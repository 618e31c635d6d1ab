// Measurement through the farm: one device leased from the tracker for as long as this object
// lives (the Acquire stream; destroying the session closes it and frees the device), kernels
// uploaded to its agent by content hash, and Measure calls in batches, each result handed on
// as it arrives. A job holds one per device it uses (tuner/device_pool.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_agent/agent_client.h"
#include "proto/credentials.h"
#include "proto/tracker_client.h"
#include "tuner/kernel_build.h"

namespace tunefarm::tuner {

struct FarmOptions {
  std::string tracker;  // HOST:PORT
  std::string token;
  wire::TlsFiles tls;   // client side: the CA (and our identity for mutual TLS)
  std::string device_key;
  std::string client_name = "tunefarm tuner";
  // How long a job with no device waits for one before it fails; 0: as long as it takes (a
  // tuner service's jobs wait, shown as "waiting for devices").
  std::chrono::milliseconds acquire_timeout{0};
  std::chrono::milliseconds call_timeout = std::chrono::minutes(10);  // each upload or batch
};

class FarmSession {
 public:
  // Asks the tracker for a device of options.device_key at `priority` (higher first); the
  // request queues there until one is free. Never blocks: see WaitReady.
  static absl::StatusOr<std::unique_ptr<FarmSession>> Request(const FarmOptions& options, int priority = 0);
  // Waits up to `timeout` for the grant; once granted, asks the device's agent for its facts.
  // True when the session is ready to measure, false while still queued; an error when the
  // request failed (tracker gone or stopping, agent unreachable).
  absl::StatusOr<bool> WaitReady(std::chrono::milliseconds timeout);
  ~FarmSession();

  const v1::AcquireEvent::Granted& grant() const { return grant_; }
  const v1::InfoReply& device() const { return info_; }

  // A program to measure: the caller's id, the library that holds it (several programs may
  // share one: kernel_build.h) and its entry there.
  struct Program {
    uint64_t id = 0;
    const BuiltKernel* library = nullptr;
    std::string entry;
  };
  using Batch = std::vector<Program>;
  // Measures `batch` (caller's ids) against `reference`, calling `on_result` for each result
  // as it arrives. Libraries not yet uploaded in this session are uploaded first; one the
  // agent evicted meanwhile (NOT_FOUND) is uploaded again and measured once more, so
  // `on_result` never sees NOT_FOUND unless the second try also misses. Unavailable when the
  // lease was revoked.
  absl::Status Measure(const v1::MeasureOptions& options, const BuiltKernel& reference,
                       const Batch& batch,
                       const std::function<void(const v1::MeasureResult&)>& on_result);

 private:
  FarmSession() = default;
  absl::Status CheckLease();
  absl::Status Connect();
  absl::Status Upload(const BuiltKernel& kernel, bool force);
  absl::Status MeasureOnce(const v1::MeasureOptions& options, const BuiltKernel& reference,
                           const Batch& batch,
                           const std::function<void(const v1::MeasureResult&)>& on_result,
                           std::set<uint64_t>* not_found);

  FarmOptions options_;
  bool ready_ = false;
  std::unique_ptr<wire::TrackerClient> tracker_;
  std::unique_ptr<wire::Lease> lease_;
  std::unique_ptr<agent::AgentClient> agent_;
  v1::AcquireEvent::Granted grant_;
  v1::InfoReply info_;
  std::set<std::string> uploaded_;  // sha256 of kernels this session has uploaded
};

}  // namespace tunefarm::tuner
