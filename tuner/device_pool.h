// The devices a job measures on: every free device of its key, up to a limit, each a
// FarmSession (one lease). A batch is spread over them; what a device that dies or loses its
// lease had not measured goes to another one, and nothing is measured twice. A job that has
// no device (none registered yet, or all lost) waits for one, and says so.
//
// Sharing a key between jobs (docs/tuner.md "The whole farm"): a job's first device is queued
// for at the tracker like any lease, and held until the job ends; more devices are taken only
// when the tracker shows one free and nobody waiting, and each round a job gives one of its
// extra devices back while any other request waits. So extra devices never keep another job
// from its first, and jobs do not trade devices back and forth. A job of higher priority asks
// above every request of the jobs below it, for its first device and its extras alike.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/tracker_client.h"
#include "tuner/farm_session.h"

namespace tunefarm::tuner {

struct DevicePoolOptions {
  FarmOptions farm;
  int max_devices = 8;
  int priority = 0;  // the job's (JobPriority: within +-1000): its requests rank by it at the tracker
  std::function<bool()> stop;                           // polled while waiting and between batches
  std::function<void(const std::string&)> log;          // a device came, went or was given back
  std::function<void(bool waiting, int devices)> on_change;  // the pool's size or waiting state
};

// What one device of the pool did, for the job's summary.
struct DeviceUse {
  std::string address;
  int64_t batches = 0;
  int64_t candidates = 0;  // results received from it
  bool lost = false;       // died or lost its lease while the job held it
  bool given_back = false;
};

class DevicePool {
 public:
  // Waits for a first device (as long as options.farm.acquire_timeout allows; 0: no limit).
  static absl::StatusOr<std::unique_ptr<DevicePool>> Open(DevicePoolOptions options);
  ~DevicePool();

  // The first device's agent facts: every device of a key reports the same (the tracker
  // refuses one that differs, tracker/pool_facts.h), so the job's target comes from these.
  const v1::InfoReply& device() const { return first_info_; }
  const std::string& first_address() const { return first_address_; }
  int size() const { return static_cast<int>(active_.size()); }
  // Whether a device the job holds now runs on this host (device_locality.h): then builds must
  // not overlap its measurements.
  bool AnyDeviceOnThisHost() const;
  const std::vector<DeviceUse>& usage() const { return usage_; }

  // Measures `batch` on the pool's devices, as FarmSession::Measure does on one: each device
  // takes an equal share; a share whose device fails (its lease revoked, its agent dead or
  // unreachable) goes back to be measured by another, after a new device when none is left.
  // `on_result` is called once per candidate at most, from one thread at a time. Other errors
  // (a request the agent refuses) end the call with that error, as does a candidate whose
  // devices failed kMaxAttempts times. OK and unfinished when `stop` turned true.
  absl::Status Measure(const v1::MeasureOptions& options, const BuiltKernel& reference,
                       const FarmSession::Batch& batch,
                       const std::function<void(const v1::MeasureResult&)>& on_result);

  static constexpr int kMaxAttempts = 3;

 private:
  struct Active {
    std::unique_ptr<FarmSession> session;
    size_t use = 0;  // index into usage_
    bool on_this_host = false;
  };

  explicit DevicePool(DevicePoolOptions options);
  void Log(const std::string& line) const;
  void Changed(bool waiting) const;
  void Add(std::unique_ptr<FarmSession> session);
  // No device left: queue for one and wait (unbounded unless acquire_timeout).
  absl::Status WaitForDevice();
  // Takes free devices while nobody else waits for the key; gives one extra device back while
  // someone does.
  void Balance();

  DevicePoolOptions options_;
  std::unique_ptr<wire::TrackerClient> tracker_;  // for ListDevices
  std::vector<Active> active_;
  std::vector<DeviceUse> usage_;
  v1::InfoReply first_info_;
  std::string first_address_;
};

// True when `status`, from a FarmSession call, means its device is gone (revoked lease, dead
// or unreachable agent, a call that timed out) rather than a request the agent refused.
bool IsDeviceLoss(const absl::Status& status);

}  // namespace tunefarm::tuner
