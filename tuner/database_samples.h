// Measured programs of a tuning database as cost-model training data: each record is replayed
// on its workload's DAG, lowered and featurized, and kept with its cost (0 for an invalid
// record: its label is 0). What the job's cost model warm-starts from, and what the ranking
// bench trains and tests on.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "db/tuning_database.h"
#include "tuner/cost_model/training_set.h"

namespace tunefarm::tuner {

struct DatabaseSamples {
  TrainingSet set;
  int64_t records = 0;  // read
  int64_t skipped = 0;  // no DAG text in the database, or the schedule no longer replays/lowers
};

// Up to `limit` records of (target, threads), newest first.
absl::StatusOr<DatabaseSamples> SamplesFromDatabase(db::TuningDatabase* database, const std::string& target,
                                                    int threads, int limit);

}  // namespace tunefarm::tuner
