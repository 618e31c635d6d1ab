// The JSON forms `tunefarm db ... --json` prints (docs/cli.md): what scripts read.
#pragma once

#include "db/job.h"
#include "db/tuning_database.h"
#include "db/tuning_record.h"
#include "nlohmann/json.hpp"

namespace tunefarm::cli {

// db::RecordToJson plus "cost_sec", the median of the repeats (null when the record has no
// timing), and "spread", (slowest - fastest) / cost_sec.
nlohmann::json RecordJson(const db::TuningRecord& record);
// Every field of the job; "spec" is the submitted spec as JSON.
nlohmann::json JobJson(const db::Job& job);
// workload_key, record_count, valid_count, best_cost_sec (null when none), target_count.
nlohmann::json WorkloadStatsJson(const db::WorkloadStats& stats);
// inserted, replaced, kept_existing, duplicates (and lines read).
nlohmann::json ImportStatsJson(const db::ImportStats& stats);

// Writes the document to stdout, indented, with a final newline.
void PrintJson(const nlohmann::json& document);

}  // namespace tunefarm::cli
