// The tracker's whole state behind one lock: the device registry, the lease table, and a
// reaper thread that drops agents gone silent (revoking their leases). State is soft: nothing
// is persisted, agents re-register after a restart.
#ifndef TUNEFARM_TRACKER_TRACKER_STATE_H_
#define TUNEFARM_TRACKER_TRACKER_STATE_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/tunefarm.pb.h"
#include "tracker/device_registry.h"
#include "tracker/lease_table.h"

namespace tunefarm::tracker {

struct TrackerOptions {
  // Silence after which an agent is dropped and its leases revoked.
  std::chrono::milliseconds agent_timeout{10000};
  // Heartbeat period asked of agents; zero means agent_timeout / 5.
  std::chrono::milliseconds heartbeat_interval{0};
  // One line per registration, drop and revocation; nullptr stays quiet.
  std::function<void(const std::string&)> log;
  // Time source; tests pass a fake one and call ExpireSilentAgents themselves.
  std::function<Clock::time_point()> now = [] { return Clock::now(); };
};

class TrackerState {
 public:
  explicit TrackerState(TrackerOptions options);
  ~TrackerState();  // stops the reaper
  TrackerState(const TrackerState&) = delete;
  TrackerState& operator=(const TrackerState&) = delete;

  // Checks silence every agent_timeout / 4 on a background thread.
  void StartReaper();
  void StopReaper();

  // InvalidArgument for an empty key or address or a capacity out of [0, 1024].
  absl::StatusOr<v1::RegisterReply> Register(const v1::RegisterRequest& request);
  // NotFound for an agent id this tracker does not know (any more).
  absl::Status Heartbeat(const std::string& agent_id);
  absl::Status Unregister(const std::string& agent_id);

  // Queues a request for a device; `listener` hears QUEUED / GRANTED / REVOKED. Release the
  // ticket when the requester goes away, whatever happened to it.
  absl::StatusOr<TicketId> Acquire(const v1::AcquireRequest& request, const std::string& client,
                                   std::shared_ptr<LeaseListener> listener);
  void Release(TicketId ticket);

  v1::ListDevicesReply ListDevices(const std::string& key) const;

  // Drops every agent silent for longer than agent_timeout; returns how many.
  int ExpireSilentAgents();
  // Revokes every lease and queued request (before the server stops).
  void RevokeAll(const std::string& reason);

  const TrackerOptions& options() const { return options_; }

 private:
  // Removes one agent from both tables. Lock held.
  // By value: callers pass ids that live in the registry entry this removes.
  void DropAgentLocked(std::string agent_id, const std::string& reason);
  // Delivers recorded listener events; call after releasing the lock.
  static void Flush(std::vector<std::shared_ptr<LeaseListener>> touched);
  void Log(const std::string& line) const;

  TrackerOptions options_;
  mutable std::mutex mu_;
  DeviceRegistry registry_;
  LeaseTable leases_;

  std::mutex reaper_mu_;
  std::condition_variable reaper_cv_;
  bool reaper_stop_ = false;
  std::thread reaper_;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_TRACKER_STATE_H_
