#include "cli/db_schedule_source.h"

#include "common/log.h"

namespace tunefarm::cli {

std::vector<build::ScheduleChoice> DbScheduleSource::Candidates(const std::string& workload_key,
                                                                const std::string& target, int threads,
                                                                int limit) const {
  auto records = db_->TopK(workload_key, target, threads, limit);
  if (!records.ok()) {
    TF_LOG(WARN, "build") << "tuning database query for " << workload_key << " failed: " << records.status().message();
    return {};
  }
  std::vector<build::ScheduleChoice> choices;
  for (const db::TuningRecord& r : *records) choices.push_back({r.schedule_json, "db:" + r.record_id});
  return choices;
}

}  // namespace tunefarm::cli
