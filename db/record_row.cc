#include "db/record_row.h"

#include "db/text.h"
#include "nlohmann/json.hpp"

namespace tunefarm::db::internal {

void BindRecordParams(Statement& s, const TuningRecord& r, int64_t workload_id, int64_t target_id) {
  s.Bind(1, r.record_id);
  s.Bind(2, workload_id);
  s.Bind(3, target_id);
  s.Bind(4, r.threads);
  s.Bind(5, r.device_key);
  s.Bind(6, r.schedule_json);
  s.Bind(7, r.schedule_hash);
  s.Bind(8, nlohmann::json(r.costs_sec).dump());
  if (r.costs_sec.empty()) {
    s.BindNull(9);
  } else {
    s.BindDouble(9, r.Cost());
  }
  s.Bind(10, static_cast<int>(r.error_kind));
  s.Bind(11, r.error_code);
  s.Bind(12, r.error_message);
  s.BindDouble(13, r.max_abs_error);
  s.BindDouble(14, r.max_rel_error);
  s.BindOptional(15, r.job_id);
  s.Bind(16, r.created_unix_ms);
  s.Bind(17, r.measured_unix_ms);
}

absl::StatusOr<TuningRecord> ReadRecordRow(const Statement& s, const Connection& connection) {
  TuningRecord r;
  r.record_id = s.Text(0);
  r.workload_key = s.Text(1);
  r.target = s.Text(2);
  r.threads = static_cast<int>(s.Int64(3));
  r.device_key = s.Text(4);
  r.schedule_json = s.Text(5);
  r.schedule_hash = s.Text(6);
  nlohmann::json costs = nlohmann::json::parse(s.Text(7), nullptr, /*allow_exceptions=*/false);
  bool costs_ok = costs.is_array();
  if (costs_ok) {
    for (const nlohmann::json& cost : costs) costs_ok = costs_ok && cost.is_number();
  }
  if (!costs_ok) {
    return absl::DataLossError(Cat(connection.path(), ": record ", r.record_id,
                                   " has unreadable costs '", s.Text(7), "'"));
  }
  for (const nlohmann::json& cost : costs) r.costs_sec.push_back(cost.get<double>());
  r.error_kind = static_cast<ErrorKind>(s.Int64(8));
  r.error_code = static_cast<int>(s.Int64(9));
  r.error_message = s.Text(10);
  r.max_abs_error = s.Double(11);
  r.max_rel_error = s.Double(12);
  r.job_id = s.Text(13);
  r.created_unix_ms = s.Int64(14);
  r.measured_unix_ms = s.Int64(15);
  return r;
}

std::string_view CostColumn(int schema_version) {
  return schema_version >= 3 ? "r.cost" : "r.mean_cost";
}

const std::string& BestQuery(int schema_version) {
  // Built once per column: best() runs per task per round, and per query in the benches.
  static const auto build = [](int version) {
    return Cat(kSelectRecord,
               " WHERE r.workload_id = (SELECT workload_id FROM workloads WHERE workload_key = ?1)"
               " AND r.target_id = (SELECT target_id FROM targets WHERE target = ?2)"
               " AND r.threads = ?3 AND r.error_kind = 0 ORDER BY ",
               CostColumn(version), ", r.id LIMIT ?4");
  };
  static const std::string current = build(3), before_median = build(2);
  return schema_version >= 3 ? current : before_median;
}

}  // namespace tunefarm::db::internal
