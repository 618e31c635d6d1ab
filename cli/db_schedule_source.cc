#include "cli/db_schedule_source.h"

#include "compiler/common/log.h"

namespace tunefarm::cli {

std::optional<build::ScheduleChoice> DbScheduleSource::Find(const std::string& workload_key,
                                                            const std::string& target, int threads) const {
  auto best = db_->Best(workload_key, target, threads);
  if (!best.ok()) {
    TF_LOG(WARN, "build") << "tuning database query for " << workload_key << " failed: " << best.status().message();
    return std::nullopt;
  }
  if (!best->has_value()) return std::nullopt;
  return build::ScheduleChoice{(*best)->schedule_json, "db:" + (*best)->record_id};
}

}  // namespace tunefarm::cli
