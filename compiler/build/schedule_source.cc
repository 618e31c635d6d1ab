#include "compiler/build/schedule_source.h"

namespace tunefarm::build {

void InMemoryScheduleSource::Add(const std::string& workload_key, const std::string& target, int threads,
                                 ScheduleChoice choice) {
  table_[{workload_key, target, threads}] = std::move(choice);
}

std::optional<ScheduleChoice> InMemoryScheduleSource::Find(const std::string& workload_key,
                                                           const std::string& target, int threads) const {
  auto it = table_.find({workload_key, target, threads});
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tunefarm::build
