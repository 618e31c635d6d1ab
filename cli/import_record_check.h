// What `tunefarm db import` checks in each record beyond what the database can: the target
// parses, the schedule is JSON, and, where the database knows the workload's DAG, the schedule
// replays on it. A fake or damaged record never becomes `db best`.
#pragma once

#include "db/tuning_database.h"

namespace tunefarm::cli {

// A check for TuningDatabase::ImportJsonl that reads DAGs from `database` (parsed once per
// workload). The database must outlive the check.
db::TuningDatabase::RecordCheck ImportRecordCheck(db::TuningDatabase* database);

}  // namespace tunefarm::cli
