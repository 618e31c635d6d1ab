// Who holds which device, and who waits for one. One wait queue per key, served by priority
// (higher first) and then first come, first served. Pure bookkeeping: no locking (TrackerState
// serializes calls), no gRPC; events go to a LeaseListener per request.
#ifndef TUNEFARM_TRACKER_LEASE_TABLE_H_
#define TUNEFARM_TRACKER_LEASE_TABLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tunefarm::tracker {

using TicketId = uint64_t;

struct Grant {
  std::string agent_id;
  std::string key;
  std::string address;
  std::string lease_id;
};

// Hears what happens to one Acquire request. The On* calls are made while the tracker's lock
// is held: they must only record the event (never block, never call into the tracker). Flush
// is called after the lock is released, to deliver what was recorded.
class LeaseListener {
 public:
  virtual ~LeaseListener() = default;
  virtual void OnQueued(int position, int devices_in_pool) = 0;
  virtual void OnGranted(const Grant& grant) = 0;
  // Final: the request is gone from the table when this is called.
  virtual void OnRevoked(const std::string& reason) = 0;
  virtual void Flush() = 0;
};

struct DeviceUsage {
  int leased = 0;
  std::vector<std::string> holders;  // client names, in grant order
};

class LeaseTable {
 public:
  explicit LeaseTable(std::string lease_prefix);

  // A device joins its key's pool; waiters of that key may be granted at once.
  void AddDevice(const std::string& agent_id, const std::string& key, const std::string& address,
                 int capacity);
  // A device leaves; every lease on it is revoked with `reason`. Returns how many.
  int RemoveDevice(const std::string& agent_id, const std::string& reason);

  // A request for a device of `key`: granted now if a slot is free (no earlier or higher
  // waiter can exist then), else queued. The listener hears GRANTED or QUEUED before this
  // returns.
  TicketId Request(const std::string& key, int priority, const std::string& client,
                   std::shared_ptr<LeaseListener> listener);
  // Ends a request: a waiter leaves the queue, a holder frees its slot for the next waiter.
  // Unknown (already revoked or released) tickets are ignored.
  void Release(TicketId ticket);
  // Revokes every lease and queued request (the tracker is stopping).
  void RevokeAll(const std::string& reason);

  DeviceUsage Usage(const std::string& agent_id) const;
  // Queued requests per key (keys with none are absent).
  std::map<std::string, int> WaitingByKey() const;

  // Listeners that got events since the last call; flush them after unlocking.
  std::vector<std::shared_ptr<LeaseListener>> TakeTouched() { return std::exchange(touched_, {}); }

 private:
  struct Device {
    std::string key;
    std::string address;
    int capacity = 1;
    uint64_t order = 0;             // join order: ties go to the device that joined first
    std::vector<TicketId> holders;  // in grant order
  };
  struct Ticket {
    std::string key;
    std::string client;
    int priority = 0;
    std::shared_ptr<LeaseListener> listener;
    std::string agent_id;  // empty while waiting
  };
  // Queue order: higher priority first, then lower ticket id (earlier) first.
  using QueueKey = std::pair<int, TicketId>;  // (-priority, ticket)

  // The free device of `key` with the fewest leases, or nullptr.
  std::string FindFreeDevice(const std::string& key) const;
  void GrantTo(TicketId id, Ticket& ticket, const std::string& agent_id);
  void ServeQueue(const std::string& key);
  void Touch(const std::shared_ptr<LeaseListener>& listener);

  std::string lease_prefix_;
  TicketId next_ticket_ = 1;
  uint64_t next_device_order_ = 0;
  std::map<std::string, Device> devices_;              // by agent id
  std::map<TicketId, Ticket> tickets_;                 // waiting and granted
  std::map<std::string, std::set<QueueKey>> queues_;   // by key; only non-empty queues
  std::vector<std::shared_ptr<LeaseListener>> touched_;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_LEASE_TABLE_H_
