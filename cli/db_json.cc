#include "cli/db_json.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "common/unix_time.h"

namespace tunefarm::cli {

nlohmann::json RecordJson(const db::TuningRecord& record) {
  nlohmann::json json = db::RecordToJson(record);
  const double cost = record.Cost();
  json["cost_sec"] = std::isfinite(cost) ? nlohmann::json(cost) : nlohmann::json(nullptr);
  json["spread"] = record.Spread();
  return json;
}

nlohmann::json JobJson(const db::Job& job) {
  // CreateJob accepts only valid JSON, so a spec that does not parse is a damaged row: show
  // it as the text it is rather than fail the listing.
  nlohmann::json spec = nlohmann::json::parse(job.spec_json, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded()) spec = job.spec_json;
  return {
      {"job_id", job.job_id},
      // "interrupted": running in the database, but no live tuner holds it (db/job.h).
      {"state", std::string(db::DisplayState(job, UnixMillisNow()))},
      {"owner", job.owner},
      {"trials_done", job.trials_done},
      {"trials_total", job.trials_total},
      {"error_message", job.error_message},
      {"created_unix_ms", job.created_unix_ms},
      {"updated_unix_ms", job.updated_unix_ms},
      {"spec", spec},
  };
}

nlohmann::json WorkloadStatsJson(const db::WorkloadStats& stats) {
  return {
      {"workload_key", stats.workload_key},
      {"record_count", stats.record_count},
      {"valid_count", stats.valid_count},
      {"best_cost_sec",
       stats.best_cost.has_value() ? nlohmann::json(*stats.best_cost) : nlohmann::json(nullptr)},
      {"target_count", stats.target_count},
  };
}

nlohmann::json ImportStatsJson(const db::ImportStats& stats) {
  return {
      {"lines", stats.lines},
      {"inserted", stats.writes.inserted},
      {"replaced", stats.writes.replaced},
      {"kept_existing", stats.writes.kept_existing},
      {"duplicates", stats.writes.duplicates},
  };
}

void PrintJson(const nlohmann::json& document) {
  // Text from the database (error messages of crashed kernels) need not be UTF-8: replace bad
  // bytes rather than throw.
  const std::string text =
      document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fputs(text.c_str(), stdout);
}

}  // namespace tunefarm::cli
