// The agents the tracker knows: what they reported at registration and when each was last
// heard from. Pure bookkeeping: no locking (TrackerState serializes calls), no gRPC.
#ifndef TUNEFARM_TRACKER_DEVICE_REGISTRY_H_
#define TUNEFARM_TRACKER_DEVICE_REGISTRY_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "proto/tunefarm.pb.h"

namespace tunefarm::tracker {

using Clock = std::chrono::steady_clock;

struct AgentRecord {
  std::string id;
  std::string key;
  std::string address;
  std::string name;
  v1::HardwareFacts facts;
  int capacity = 1;
  Clock::time_point registered;
  Clock::time_point last_seen;
};

class DeviceRegistry {
 public:
  // `id_prefix` makes ids unique to one tracker run, so an agent id from before a restart is
  // unknown (NOT_FOUND) rather than silently matching a different agent.
  explicit DeviceRegistry(std::string id_prefix);

  // Adds an agent; the request must already be validated. Returns its record.
  const AgentRecord& Add(const v1::RegisterRequest& request, Clock::time_point now);
  // Marks the agent alive; false when the id is unknown.
  bool Touch(const std::string& id, Clock::time_point now);
  bool Remove(const std::string& id);

  const AgentRecord* Find(const std::string& id) const;
  const AgentRecord* FindByAddress(const std::string& address) const;
  // Agents not heard from since `cutoff`.
  std::vector<std::string> SilentSince(Clock::time_point cutoff) const;

  const std::map<std::string, AgentRecord>& agents() const { return agents_; }

 private:
  std::string id_prefix_;
  uint64_t next_id_ = 1;
  std::map<std::string, AgentRecord> agents_;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_DEVICE_REGISTRY_H_
