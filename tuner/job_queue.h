// The tuner's queued jobs, in the order its worker runs them: higher JobSpec.priority first,
// and among equal priorities the one queued first (so resumed jobs, queued at start in the
// database's order, keep it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace tunefarm::tuner {

class JobQueue {
 public:
  void Push(const std::string& job_id, int priority) { order_.emplace(Key{-priority, next_++}, job_id); }
  // The next job to run, removed from the queue; nullopt when empty.
  std::optional<std::string> Pop() {
    if (order_.empty()) return std::nullopt;
    std::string id = std::move(order_.begin()->second);
    order_.erase(order_.begin());
    return id;
  }
  void Remove(const std::string& job_id) {
    for (auto it = order_.begin(); it != order_.end();) it = it->second == job_id ? order_.erase(it) : std::next(it);
  }
  bool empty() const { return order_.empty(); }

 private:
  using Key = std::pair<int, uint64_t>;  // (-priority, arrival)
  std::map<Key, std::string> order_;
  uint64_t next_ = 0;
};

}  // namespace tunefarm::tuner
