#include "tracker/device_registry.h"

#include "absl/strings/str_cat.h"

namespace tunefarm::tracker {

DeviceRegistry::DeviceRegistry(std::string id_prefix) : id_prefix_(std::move(id_prefix)) {}

const AgentRecord& DeviceRegistry::Add(const v1::RegisterRequest& request, Clock::time_point now) {
  AgentRecord record;
  record.id = absl::StrCat(id_prefix_, "-", next_id_++);
  record.key = request.key();
  record.address = request.address();
  record.name = request.agent_name();
  record.facts = request.facts();
  record.capacity = request.capacity() > 0 ? request.capacity() : 1;
  record.registered = now;
  record.last_seen = now;
  std::string id = record.id;
  return agents_.emplace(std::move(id), std::move(record)).first->second;
}

bool DeviceRegistry::Touch(const std::string& id, Clock::time_point now) {
  auto it = agents_.find(id);
  if (it == agents_.end()) return false;
  it->second.last_seen = now;
  return true;
}

bool DeviceRegistry::Remove(const std::string& id) { return agents_.erase(id) > 0; }

const AgentRecord* DeviceRegistry::Find(const std::string& id) const {
  auto it = agents_.find(id);
  return it == agents_.end() ? nullptr : &it->second;
}

const AgentRecord* DeviceRegistry::FindByAddress(const std::string& address) const {
  for (const auto& [id, record] : agents_) {
    if (record.address == address) return &record;
  }
  return nullptr;
}

std::vector<std::string> DeviceRegistry::SilentSince(Clock::time_point cutoff) const {
  std::vector<std::string> silent;
  for (const auto& [id, record] : agents_) {
    if (record.last_seen < cutoff) silent.push_back(id);
  }
  return silent;
}

}  // namespace tunefarm::tracker
