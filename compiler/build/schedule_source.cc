#include "compiler/build/schedule_source.h"

#include <algorithm>

namespace tunefarm::build {

void InMemoryScheduleSource::Add(const std::string& workload_key, const std::string& target, int threads,
                                 ScheduleChoice choice) {
  table_[{workload_key, target, threads}].push_back(std::move(choice));
}

std::vector<ScheduleChoice> InMemoryScheduleSource::Candidates(const std::string& workload_key,
                                                               const std::string& target, int threads,
                                                               int limit) const {
  auto it = table_.find({workload_key, target, threads});
  if (it == table_.end()) return {};
  const size_t count = std::min(it->second.size(), static_cast<size_t>(std::max(limit, 0)));
  return std::vector<ScheduleChoice>(it->second.begin(), it->second.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace tunefarm::build
