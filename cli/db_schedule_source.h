// The build's ScheduleSource over the tuning database: the fastest valid records of a workload
// on the target at the thread count, best first. A query that fails (the database went away mid-build) is
// logged and treated as "no record", so the build still completes with default schedules.
#pragma once

#include "compiler/build/schedule_source.h"
#include "db/tuning_database.h"

namespace tunefarm::cli {

class DbScheduleSource : public build::ScheduleSource {
 public:
  explicit DbScheduleSource(db::TuningDatabase* db) : db_(db) {}
  std::vector<build::ScheduleChoice> Candidates(const std::string& workload_key, const std::string& target,
                                                int threads, int limit) const override;

 private:
  db::TuningDatabase* db_;
};

}  // namespace tunefarm::cli
