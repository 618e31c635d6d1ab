#include "tracker/lease_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tunefarm::tracker {

LeaseTable::LeaseTable(std::string lease_prefix) : lease_prefix_(std::move(lease_prefix)) {}

void LeaseTable::Touch(const std::shared_ptr<LeaseListener>& listener) {
  touched_.push_back(listener);
}

void LeaseTable::AddDevice(const std::string& agent_id, const std::string& key,
                           const std::string& address, int capacity) {
  Device& device = devices_[agent_id];
  device.key = key;
  device.address = address;
  device.capacity = std::max(capacity, 1);
  device.order = next_device_order_++;
  ServeQueue(key);
}

int LeaseTable::RemoveDevice(const std::string& agent_id, const std::string& reason) {
  auto it = devices_.find(agent_id);
  if (it == devices_.end()) return 0;
  const std::vector<TicketId> holders = std::move(it->second.holders);
  devices_.erase(it);
  for (TicketId id : holders) {
    auto t = tickets_.find(id);
    if (t == tickets_.end()) continue;
    t->second.listener->OnRevoked(reason);
    Touch(t->second.listener);
    tickets_.erase(t);
  }
  return static_cast<int>(holders.size());
}

std::string LeaseTable::FindFreeDevice(const std::string& key) const {
  const std::string* best = nullptr;
  const Device* best_device = nullptr;
  for (const auto& [id, device] : devices_) {
    if (device.key != key || static_cast<int>(device.holders.size()) >= device.capacity) continue;
    // Spread leases over devices; among equals the one that joined first.
    if (best_device == nullptr || device.holders.size() < best_device->holders.size() ||
        (device.holders.size() == best_device->holders.size() && device.order < best_device->order)) {
      best = &id;
      best_device = &device;
    }
  }
  return best == nullptr ? std::string() : *best;
}

void LeaseTable::GrantTo(TicketId id, Ticket& ticket, const std::string& agent_id) {
  Device& device = devices_.at(agent_id);
  device.holders.push_back(id);
  ticket.agent_id = agent_id;
  ticket.listener->OnGranted(Grant{agent_id, device.key, device.address,
                                   absl::StrCat(lease_prefix_, "-", id)});
  Touch(ticket.listener);
}

void LeaseTable::ServeQueue(const std::string& key) {
  auto q = queues_.find(key);
  if (q == queues_.end()) return;
  std::set<QueueKey>& queue = q->second;
  while (!queue.empty()) {
    const std::string agent_id = FindFreeDevice(key);
    if (agent_id.empty()) break;
    const TicketId id = queue.begin()->second;
    queue.erase(queue.begin());
    GrantTo(id, tickets_.at(id), agent_id);
  }
  if (queue.empty()) queues_.erase(q);
}

TicketId LeaseTable::Request(const std::string& key, int priority, const std::string& client,
                             std::shared_ptr<LeaseListener> listener) {
  const TicketId id = next_ticket_++;
  Ticket& ticket = tickets_[id];
  ticket.key = key;
  ticket.client = client;
  ticket.priority = priority;
  ticket.listener = std::move(listener);
  // A free slot means nobody of this key is waiting (queues are served whenever a slot frees).
  const std::string agent_id = FindFreeDevice(key);
  if (!agent_id.empty()) {
    GrantTo(id, ticket, agent_id);
    return id;
  }
  std::set<QueueKey>& queue = queues_[key];
  const QueueKey position_key{-priority, id};
  queue.insert(position_key);
  const int position = static_cast<int>(std::distance(queue.begin(), queue.find(position_key))) + 1;
  int devices_in_pool = 0;
  for (const auto& [agent, device] : devices_) devices_in_pool += device.key == key ? 1 : 0;
  ticket.listener->OnQueued(position, devices_in_pool);
  Touch(ticket.listener);
  return id;
}

void LeaseTable::Release(TicketId id) {
  auto t = tickets_.find(id);
  if (t == tickets_.end()) return;
  const Ticket ticket = std::move(t->second);
  tickets_.erase(t);
  if (ticket.agent_id.empty()) {
    auto q = queues_.find(ticket.key);
    if (q == queues_.end()) return;
    q->second.erase({-ticket.priority, id});
    if (q->second.empty()) queues_.erase(q);
    return;
  }
  auto d = devices_.find(ticket.agent_id);
  if (d == devices_.end()) return;
  std::erase(d->second.holders, id);
  ServeQueue(ticket.key);
}

void LeaseTable::RevokeAll(const std::string& reason) {
  for (auto& [id, ticket] : tickets_) {
    ticket.listener->OnRevoked(reason);
    Touch(ticket.listener);
  }
  tickets_.clear();
  queues_.clear();
  for (auto& [id, device] : devices_) device.holders.clear();
}

DeviceUsage LeaseTable::Usage(const std::string& agent_id) const {
  DeviceUsage usage;
  auto d = devices_.find(agent_id);
  if (d == devices_.end()) return usage;
  usage.leased = static_cast<int>(d->second.holders.size());
  for (TicketId id : d->second.holders) usage.holders.push_back(tickets_.at(id).client);
  return usage;
}

std::map<std::string, int> LeaseTable::WaitingByKey() const {
  std::map<std::string, int> waiting;
  for (const auto& [key, queue] : queues_) waiting[key] = static_cast<int>(queue.size());
  return waiting;
}

}  // namespace tunefarm::tracker
